// How setting values are written (durations, rates, plans) and the defaults the library and the CLI share.
// A leaf module: the option table (cli/options/table.ts), the config resolver and the pipeline all read it, so it
// imports nothing of theirs. The rules throw UsageError, whose code reaches `--json` output; commander-facing
// wrappers turn that into its InvalidArgumentError.
import { UsageError } from '../api/errors.js';
import { PLAN_NAMES, type PlanName } from '../api/types.js';

export const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Cached answers older than this are fetched again, unless --max-age says otherwise (the CLI and `enrich()`). */
export const DEFAULT_MAX_AGE_MS = 30 * DAY_MS;

/** A request rate: at most `requests` starts in any `windowMs`. */
export interface Rate {
  requests: number;
  windowMs: number;
}

// Largest first: durationText writes a value in the largest unit that divides it.
const UNITS = [
  ['w', 7 * DAY_MS],
  ['d', DAY_MS],
  ['h', 3_600_000],
  ['m', MINUTE_MS],
  ['s', 1000],
  ['ms', 1],
] as const;

/** Parses a duration such as 500ms, 45s, 90m, 12h, 30d or 2w into ms; throws UsageError. */
export function parseDuration(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/i.exec(value);
  const unit = UNITS.find(([name]) => name === m?.[2]?.toLowerCase())?.[1];
  if (!m || unit === undefined) {
    throw new UsageError(`expected a duration like 30d, 12h, 90m, 45s or 500ms, got ${JSON.stringify(value)}`, 'bad_duration');
  }
  const ms = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(ms)) throw new UsageError(`duration ${JSON.stringify(value)} is too long`, 'bad_duration');
  return ms;
}

/** A duration in ms written as parseDuration reads it, in the largest whole unit (30 days: "30d"). */
export function durationText(ms: number): string {
  const [name, size] = UNITS.find(([, size]) => ms % size === 0 && ms >= size) ?? ['ms', 1];
  return `${ms / size}${name}`;
}

/** Parses a rate such as 300/1m, 20/1s, 300/m or a plain 600 (per minute); throws UsageError. */
export function parseRate(value: string): Rate {
  const m = /^\s*(\d+)\s*(?:\/\s*(\S.*?))?\s*$/.exec(value);
  if (!m) throw new UsageError(`expected a rate like 300/1m, 20/1s or 600 (per minute), got ${JSON.stringify(value)}`, 'bad_rate');
  const requests = Number(m[1]);
  if (!Number.isSafeInteger(requests) || requests < 1) throw new UsageError('a rate needs at least 1 request', 'bad_rate');
  const window = m[2];
  // "300/m" reads as "300 per 1 minute".
  const windowMs = window === undefined ? MINUTE_MS : parseDuration(/^\d/.test(window) ? window : `1${window}`);
  if (windowMs < 10) throw new UsageError('a rate window must be at least 10ms', 'bad_rate');
  return { requests, windowMs };
}

/** Checks a plan name; throws UsageError naming where the bad value came from. */
export function parsePlan(value: string, where = 'plan'): PlanName {
  const plan = value.trim().toLowerCase();
  if ((PLAN_NAMES as string[]).includes(plan)) return plan as PlanName;
  throw new UsageError(`${where}: unknown plan ${JSON.stringify(value)}; expected one of ${PLAN_NAMES.join(', ')}`, 'bad_plan');
}
