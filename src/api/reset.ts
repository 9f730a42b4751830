// Reading the service's reset times. The spec leaves two formats open: `X-Quota-Reset` ("format: not shown",
// §8.5) and the 429 body's reset field ("name of the reset-time field: not shown", §7). We accept the shapes a
// service would plausibly use and fall back to something safe when none can be read.

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

/** Reads a delay in seconds (Retry-After style: a number of seconds or an HTTP-date) into an instant. */
function parseDelay(value: unknown, now: number, unitMs = 1000): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? now + Math.round(value * unitMs) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return now + Math.round(Number(text) * unitMs);
  const parsed = Date.parse(text);
  return Number.isFinite(parsed) ? parsed : null;
}

// Body fields that carry a delay rather than an instant, and their unit.
const DELAY_FIELDS: Record<string, number> = {
  retry_after: 1000,
  retryAfter: 1000,
  retry_after_seconds: 1000,
  retry_in: 1000,
  retry_after_ms: 1,
  retryAfterMs: 1,
  wait_ms: 1,
};
// Body fields that carry an instant (ISO text, epoch s or epoch ms).
const INSTANT_FIELDS = ['reset_at', 'resetAt', 'reset', 'reset_time', 'resetTime', 'resets_at', 'reset_ms', 'until', 'retry_at'];

/** The longest a single 429 may make us wait; a reset further away is treated as unreadable. */
const MAX_RATE_LIMIT_WAIT_MS = 60 * 60 * 1000;

/**
 * The instant (epoch ms) a 429 allows requests again, as the service announced it: the Retry-After header
 * first, then a reset field in the body under any of the plausible names. Null when it named none we can read
 * (the limiter then uses its own estimate of the window: the service's word, when there is one, beats ours).
 */
export function announcedReset(retryAfterHeader: string | null, body: unknown, now: number): number | null {
  const candidates: (number | null)[] = [];
  if (retryAfterHeader !== null) candidates.push(parseDelay(retryAfterHeader, now));
  if (body !== null && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    // The reset may also be nested, e.g. {error: 'rate_limited', details: {reset_at}}.
    const scopes = [record, ...Object.values(record).filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v))];
    for (const scope of scopes) {
      for (const [field, unit] of Object.entries(DELAY_FIELDS)) {
        if (field in scope) candidates.push(parseDelay(scope[field], now, unit));
      }
      for (const field of INSTANT_FIELDS) {
        if (field in scope) candidates.push(parseInstant(scope[field], now));
      }
    }
  }
  for (const at of candidates) {
    if (at !== null && at <= now + MAX_RATE_LIMIT_WAIT_MS) return Math.max(at, now);
  }
  return null;
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
export function rateLimitResume(retryAfterHeader: string | null, body: unknown, now: number, windowMs = 60_000): Resume {
  const reset = announcedReset(retryAfterHeader, body, now);
  if (reset === null) return { at: nextBoundary(now, windowMs), announced: false, rounded: false };
  // announcedReset takes the Retry-After header first, when it can be read and believed.
  const fromHeader = retryAfterHeader !== null && announcedReset(retryAfterHeader, null, now) === reset;
  return { at: reset, announced: true, rounded: fromHeader && /^\s*\d+\s*$/.test(retryAfterHeader) };
}

/** The next multiple of `windowMs` after `now`: where a fixed rate window would roll over. */
export function nextBoundary(now: number, windowMs: number): number {
  return (Math.floor(now / windowMs) + 1) * windowMs;
}
