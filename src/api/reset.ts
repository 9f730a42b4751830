// Reading the service's reset times. The spec leaves two formats open: `X-Quota-Reset` ("format: not shown",
// §8.5) and the 429's reset ("name of the reset-time field: not shown", §7). Rather than a list of names (a
// service answering `resets_in_ms` was read as naming no reset, and a run met 20 to 48 429s where 8 would
// have done), one rule reads every field whose name speaks of a reset, a retry or a wait:
//
// | where                                         | name (any case, any separator)               | value                          | read as                                               |
// | --------------------------------------------- | -------------------------------------------- | ------------------------------ | ----------------------------------------------------- |
// | header                                        | Retry-After                                  | `2`, `1.5`                     | seconds to wait                                       |
// | header                                        | Retry-After                                  | HTTP date                      | that instant                                          |
// | header                                        | RateLimit-Reset, X-RateLimit-Reset, any      | a number                       | as a body number (below): by its unit, else its size  |
// |                                               | (X-)Rate(-)Limit header naming reset/retry/wait |                             |                                                       |
// | header                                        | RateLimit (`limit=10, reset=3` or `t=3`)     | its reset= or t= parameter     | seconds to wait                                       |
// | body, top level or one object down (`error`,  | a name matching reset, retry or wait, with   | a number, or numeric text      | milliseconds: ≥ 1e12 epoch ms, else ms to wait        |
// | `details`...)                                 | a unit of ms (`_ms`, `Ms`, `millis`, `msec`) |                                |                                                       |
// | body                                          | ... with a unit of seconds (`_s`, `secs`,    | a number, or numeric text      | seconds: ≥ 1e9 epoch seconds, else seconds to wait    |
// |                                               | `seconds`, `sec`) or minutes (`mins`)        |                                | (minutes: to wait)                                    |
// | body                                          | ... with no unit                             | a number, or numeric text      | by its size: ≥ 1e12 epoch ms, ≥ 1e9 epoch s, else     |
// |                                               |                                              |                                | seconds to wait                                       |
// | body                                          | any of them                                  | `1500ms`, `2s`, `2 seconds`    | the unit the text gives                               |
// | body                                          | any of them                                  | ISO datetime or date, HTTP date| that instant                                          |
//
// Names about the month's quota (`quota_reset`) are not a 429's reset. A reading more than an hour away is not
// believed. When several are read, the finest wins (milliseconds over whole seconds, which may be a second
// late), and among equals the latest: no request goes before any reset the service announced.
// test/api/reset.test.ts holds the same table, one case per row.

const EPOCH_MS_THRESHOLD = 1e12; // 2001-09-09 in ms; smaller positive numbers are seconds or a delay
const EPOCH_S_THRESHOLD = 1e9; // 2001-09-09 in seconds; smaller numbers are a delay in seconds

/**
 * Reads an absolute instant (epoch ms) from a value that may be an ISO date or datetime, epoch seconds,
 * epoch milliseconds, or a small number of seconds from `now`. Returns null when it cannot be read.
 */
export function parseInstant(value: unknown, now: number): number | null {
  if (typeof value === 'number') return fromNumber(value, now);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (text === '') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return fromNumber(Number(text), now);
  // ISO 8601 date (YYYY-MM-DD, read as UTC midnight) or datetime; also HTTP-date, which Date.parse reads.
  const parsed = Date.parse(text);
  return Number.isFinite(parsed) ? parsed : null;
}

function fromNumber(n: number, now: number): number | null {
  if (!Number.isFinite(n) || n < 0) return null;
  if (n >= EPOCH_MS_THRESHOLD) return Math.round(n);
  if (n >= EPOCH_S_THRESHOLD) return Math.round(n * 1000);
  return now + Math.round(n * 1000);
}

type HeaderBag = Record<string, string | string[] | undefined>;

/** A reset read from one field: the instant, and whether it came to whole seconds (may be up to a second late). */
interface Reading {
  at: number;
  /** Read to whole seconds: an integer of seconds, an HTTP date, an ISO time without a fraction. */
  coarse: boolean;
  /** Whole seconds to wait (Retry-After: 2): the service rounded the wait up, so the reset it names is late. */
  rounded: boolean;
}

/** The unit a field's name gives, in ms; null when it gives none. `retryAfterMs`, `resets_in_ms`, `wait-secs`. */
function unitOfName(name: string): number | null {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words.at(-1) ?? '';
  // The unit is the last word (`reset_ms`), or run into it (`resetms`, `retryafterseconds`).
  if (/^(ms|msec|msecs|millis|milli|milliseconds?)$/.test(last) || /(ms|millis|milliseconds)$/.test(last)) return 1;
  if (/^(s|sec|secs|seconds?)$/.test(last) || /(secs|seconds)$/.test(last)) return 1000;
  if (/^(mins?|minutes?)$/.test(last)) return 60_000;
  return null;
}

/** True for a field name that speaks of when to try again: a reset, a retry or a wait, not the month's quota. */
const speaksOfReset = (name: string): boolean => /reset|retry|wait/i.test(name) && !/quota|month/i.test(name);

/** A number read with `unit` (ms per unit; null: none given): an instant when it is big enough, else a wait. */
function numberReading(n: number, unit: number | null, now: number): Reading | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const whole = Number.isInteger(n);
  if (unit === 1)
    return n >= EPOCH_MS_THRESHOLD ? { at: Math.round(n), coarse: false, rounded: false } : { at: now + Math.round(n), coarse: false, rounded: false };
  if (unit === null || unit === 1000) {
    if (unit === null && n >= EPOCH_MS_THRESHOLD) return { at: Math.round(n), coarse: false, rounded: false };
    if (n >= EPOCH_S_THRESHOLD) return { at: Math.round(n * 1000), coarse: whole, rounded: false };
    return { at: now + Math.round(n * 1000), coarse: whole, rounded: whole };
  }
  return { at: now + Math.round(n * unit), coarse: whole, rounded: whole };
}

const TEXT_UNITS: Record<string, number> = { ms: 1, msec: 1, millis: 1, milliseconds: 1, s: 1000, sec: 1000, secs: 1000, seconds: 1000, second: 1000 };

/** One field's value read under the rule (the table above); null when it is not a time. */
function valueReading(value: unknown, unit: number | null, now: number): Reading | null {
  if (typeof value === 'number') return numberReading(value, unit, now);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return numberReading(Number(text), unit, now);
  const withUnit = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(text);
  const textUnit = withUnit ? TEXT_UNITS[(withUnit[2] as string).toLowerCase()] : undefined;
  if (withUnit && textUnit !== undefined) return numberReading(Number(withUnit[1]), textUnit, now);
  // A date needs digits and a separator of dates or times: Date.parse alone reads "soon 1" as an instant.
  if (!/\d/.test(text) || !/[-:/,]/.test(text)) return null;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return null;
  // Only a time with a fraction of a second is finer than a second.
  return { at, coarse: !/\d\.\d/.test(text), rounded: false };
}

function headerValue(headers: HeaderBag, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** Readings from the headers: Retry-After, any rate-limit header naming a reset, retry or wait, and RateLimit's parameter. */
function headerReadings(headers: HeaderBag, now: number): Reading[] {
  const out: Reading[] = [];
  for (const raw of Object.keys(headers)) {
    const name = raw.toLowerCase();
    const value = headerValue(headers, raw);
    if (value === null) continue;
    const squeezed = name.replace(/[^a-z0-9]/g, '');
    let reading: Reading | null = null;
    if (name === 'retry-after') reading = valueReading(value, 1000, now);
    else if (/ratelimit/.test(squeezed) && speaksOfReset(name)) reading = valueReading(value, unitOfName(name), now);
    else if (squeezed === 'ratelimit' || squeezed === 'xratelimit') {
      // The IETF draft's one header: `limit=10, remaining=0, reset=3`, or `"default";r=0;t=3`.
      const param = /(?:^|[\s,;])(?:reset|t)\s*=\s*(\d+(?:\.\d+)?)/i.exec(value);
      if (param) reading = numberReading(Number(param[1]), 1000, now);
    }
    if (reading !== null) out.push(reading);
  }
  return out;
}

/** Readings from a 429's body: its fields and those one object down (`{error: {retry_after_ms}}`, `details`). */
function bodyReadings(body: unknown, now: number): Reading[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const record = body as Record<string, unknown>;
  const scopes = [record, ...Object.values(record).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v))];
  const out: Reading[] = [];
  for (const scope of scopes) {
    for (const [name, value] of Object.entries(scope)) {
      if (!speaksOfReset(name)) continue;
      const reading = valueReading(value, unitOfName(name), now);
      if (reading !== null) out.push(reading);
    }
  }
  return out;
}

/** The longest a single 429 may make us wait; a reset further away is treated as unreadable. */
const MAX_RATE_LIMIT_WAIT_MS = 60 * 60 * 1000;

/** The reading that decides: believable (within the hour), the finest, and among those the latest. */
function decisive(readings: Reading[], now: number): Reading | null {
  const believed = readings.filter((r) => r.at <= now + MAX_RATE_LIMIT_WAIT_MS);
  const fine = believed.filter((r) => !r.coarse);
  const pool = fine.length > 0 ? fine : believed;
  let best: Reading | null = null;
  for (const r of pool) if (best === null || r.at > best.at) best = r;
  return best === null ? null : { ...best, at: Math.max(best.at, now) };
}

/**
 * The instant (epoch ms) a 429 allows requests again, as the service announced it in its headers or body
 * (the table at the top). Null when it named none we can read (the limiter then uses its own estimate of
 * the window: the service's word, when there is one, beats ours).
 */
export function announcedReset(headers: HeaderBag | null, body: unknown, now: number): number | null {
  return decisive([...headerReadings(headers ?? {}, now), ...bodyReadings(body, now)], now)?.at ?? null;
}

/** When a 429 lets requests resume, and how the service said it. */
export interface Resume {
  /** Epoch ms: the announced reset, else the next boundary of the rate window (a guess). */
  at: number;
  /** False when the 429 named no reset we can read: `at` is only our guess. */
  announced: boolean;
  /** The reset came as whole seconds to wait (Retry-After: 2): up to a second late, too coarse to measure a window by. */
  rounded: boolean;
}

/** When a 429 lets requests resume: the announced reset, else the next boundary of the rate window. */
export function rateLimitResume(headers: HeaderBag | null, body: unknown, now: number, windowMs = 60_000): Resume {
  const reading = decisive([...headerReadings(headers ?? {}, now), ...bodyReadings(body, now)], now);
  if (reading === null) return { at: nextBoundary(now, windowMs), announced: false, rounded: false };
  return { at: reading.at, announced: true, rounded: reading.rounded };
}

/** The next multiple of `windowMs` after `now`: where a fixed rate window would roll over. */
export function nextBoundary(now: number, windowMs: number): number {
  return (Math.floor(now / windowMs) + 1) * windowMs;
}
