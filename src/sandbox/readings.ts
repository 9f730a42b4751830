// The readings: one knob per point the spec leaves open ("not shown"), so every reading a real service may
// take can be played. Pure data and validation, free of node:http, so the CLI's option table can import the
// choices. The first choice of each is the default: the reading we think most likely, for the reason given.

/**
 * The 429 reset styles that announce a time; `'none'` (a bare 429) is the one more reading (§7). The last
 * three use names no list of ours held: a body field `resets_in_ms` (ms to wait), the IETF draft's
 * `RateLimit-Reset` header (seconds to wait, rounded up) and GitHub's `X-RateLimit-Reset` (epoch seconds).
 */
export const RESET_STYLES = ['iso', 'epoch-s', 'epoch-ms', 'seconds', 'retry-after', 'resets-in-ms', 'ratelimit-reset', 'x-ratelimit-reset'] as const;

/** The choices of every enumerated reading, default first. */
export const READING_CHOICES = {
  allAbsent: ['empty', 'not-found'],
  overQuota: ['refuse', 'partial'],
  order: ['submitted', 'reversed', 'sorted'],
  missingCase: ['lower', 'submitted'],
  upperCase: ['lower', 'reject'],
  resetStyle: [...RESET_STYLES, 'none'],
  quotaResetStyle: ['iso', 'date', 'epoch-s', 'http-date'],
  window: ['fixed', 'sliding'],
  asOf: ['figure', 'release'],
} as const;

type Choice<K extends keyof typeof READING_CHOICES> = (typeof READING_CHOICES)[K][number];

/** How a 429 tells its reset time; the spec does not name the field (§7). */
export type ResetStyle = Choice<'resetStyle'>;

export interface Readings {
  /**
   * A batch whose every submitted host is absent (§4 rule 5, not shown): 'empty' (default: the batch lists
   * no 404 in §7 and absent hosts "go to missing") answers 200 {data:[],missing:[...]}; 'not-found' answers
   * 404 {error:'not_found'}. Charged one lookup per distinct host either way (§8.6).
   */
  allAbsent: Choice<'allAbsent'>;
  /**
   * A batch costing more than what is left (not shown): 'refuse' (default: "the service never throttles
   * silently", §7) answers 402 with nothing charged; 'partial' serves and charges the first `remaining`
   * distinct hosts in submitted order and leaves the rest out of both data and missing.
   */
  overQuota: Choice<'overQuota'>;
  /** Order of data and missing in a batch answer (not shown): 'submitted' (default: the natural echo), 'reversed', 'sorted'. */
  order: Choice<'order'>;
  /** Spelling of missing (not shown): 'lower' (default: §2.1 lower-cases the profile's domain) or exactly as 'submitted'. */
  missingCase: Choice<'missingCase'>;
  /**
   * A hostname with upper-case letters, in a path or a batch: 'lower' (default: §4 rule 1 answers the domain
   * lower-cased, which implies upper case is taken) or 'reject' (400 by rule 2.9's "lower-case", not charged).
   */
  upperCase: Choice<'upperCase'>;
  /**
   * How a 429 tells its reset: 'iso' (default: the body "carries a reset time", §7), epoch seconds or ms,
   * seconds to wait, a Retry-After header, ms to wait under a name of its own (`resets_in_ms`), a
   * `RateLimit-Reset` or `X-RateLimit-Reset` header, or 'none'.
   */
  resetStyle: ResetStyle;
  /** Format of X-Quota-Reset (§8.5, not shown): 'iso' datetime (default: the common JSON-API form), ISO 'date', 'epoch-s', or an RFC 7231 'http-date'. */
  quotaResetStyle: Choice<'quotaResetStyle'>;
  /** The per-window request limit: 'fixed' windows aligned on the clock (default: "per minute", §8) or 'sliding' over the last windowMs. */
  window: Choice<'window'>;
  /**
   * What an estimate's `as_of` dates (§2.2 "month of the figure", §2.3): 'figure' (default: the dataset as it
   * always was, a date moving only with its figure) or 'release' (each monthly release restates every estimate
   * as of its month, the figures standing: restate.ts). Profiles, traffic and employees answers alike.
   */
  asOf: Choice<'asOf'>;
  /** Technology and catalog also count against, and are refused by, the rate limit (default false: §7 lists 429 for the metered four only). */
  freeLimited: boolean;
  /** Technology and catalog answers also carry the three quota headers (default false: they are free, §8.6). */
  freeQuotaHeaders: boolean;
  /**
   * The primary key is revoked after this many API requests made with it (those that reach the key check),
   * counted from when this is set (default null: never). Revocation is final (§3), as with revokeKey().
   */
  revokeAfter: number | null;
  /**
   * Not a reading but a condition: 1-based numbers of API requests (counted like charges().requests, from the
   * last resetCounters()) whose answer is held back by slowMs, so answers arrive out of order deterministically.
   * Default [].
   */
  slowRequests: number[];
  /**
   * Days added to every age_days served (default 0). §2.1 says "days since registration", which a real
   * service counts to the day it answers: a test sets this to play an answer fetched that many days later,
   * in which age_days alone moved (the sandbox's dataset keeps it fixed, one reading of the spec).
   */
  ageDrift: number;
}

/** The default readings (the first choice of each). */
export const DEFAULT_READINGS: Readonly<Readings> = Object.freeze({
  allAbsent: 'empty',
  overQuota: 'refuse',
  order: 'submitted',
  missingCase: 'lower',
  upperCase: 'lower',
  resetStyle: 'iso',
  quotaResetStyle: 'iso',
  window: 'fixed',
  asOf: 'figure',
  freeLimited: false,
  freeQuotaHeaders: false,
  revokeAfter: null,
  slowRequests: [],
  ageDrift: 0,
});

const isChoice = (key: string): key is keyof typeof READING_CHOICES => Object.hasOwn(READING_CHOICES, key);
const positiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** `base` with `changes` applied, every value checked; throws a RangeError naming the first bad one. */
export function applyReadings(base: Readonly<Readings>, changes: object): Readings {
  const next: Record<string, unknown> = { ...base, slowRequests: [...base.slowRequests] };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (isChoice(key)) {
      const choices: readonly string[] = READING_CHOICES[key];
      if (typeof value !== 'string' || !choices.includes(value))
        throw new RangeError(`${key} must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
    } else if (key === 'freeLimited' || key === 'freeQuotaHeaders') {
      if (typeof value !== 'boolean') throw new RangeError(`${key} must be true or false, got ${JSON.stringify(value)}`);
    } else if (key === 'ageDrift') {
      if (!positiveInt(value)) throw new RangeError(`ageDrift must be a non-negative integer (days), got ${JSON.stringify(value)}`);
    } else if (key === 'revokeAfter') {
      if (value !== null && !positiveInt(value)) throw new RangeError(`revokeAfter must be a non-negative integer or null, got ${JSON.stringify(value)}`);
    } else if (key === 'slowRequests') {
      if (!Array.isArray(value) || !value.every((n) => positiveInt(n) && n >= 1)) {
        throw new RangeError(`slowRequests must be a list of 1-based request numbers, got ${JSON.stringify(value)}`);
      }
      next[key] = [...value];
      continue;
    } else {
      throw new RangeError(`unknown reading: ${key}`);
    }
    next[key] = value;
  }
  return next as unknown as Readings;
}
