// A stale answer beats an error row: when a cached answer older than --max-age (or, under --refresh, any
// answer from before the run) cannot be refreshed, the row gets that answer rather than an error, and the
// run counts it (stats.stale) and says why (stats.staleCause). Which failures it stands in for, and the words
// for why, are here, shared by a run (run/waiting-rows.ts, planner.ts) and a single lookup (run/single-lookup.ts).
import { AbortedError, BadRequestError, DomainIntelError, InvalidKeyError, NetworkError, ProtocolError, RateLimitedError, UsageError } from '../api/errors.js';
import { type RunStats, stopCause, UNANSWERED } from './stats.js';

/**
 * True when an older answer may stand in for a lookup that failed with `err`. Not when the service answered
 * about the host itself (a 400: it refuses the host) or the request was the caller's mistake; a refused key
 * ends a run anyway. Every other failure (unreachable, 5xx or 429s after retries, 402, unreadable answers,
 * a batch answer that left the host out) and every stop (budget, quota, interrupted) is a failure to refresh.
 */
export function mayStandIn(err: unknown): boolean {
  return !(err instanceof BadRequestError || err instanceof InvalidKeyError || err instanceof UsageError);
}

/** Why a lookup could not be refreshed, in words (the summary's stale line, a single lookup's warning). */
export function failureCause(err: unknown): string {
  if (err instanceof NetworkError) return err.code === 'timeout' ? 'the service did not answer in time' : 'the service could not be reached';
  if (err instanceof RateLimitedError) return 'the service kept refusing requests (429)';
  if (err instanceof AbortedError) return 'interrupted';
  if (err instanceof ProtocolError) return "the service's answers could not be read";
  if (err instanceof DomainIntelError && err.status !== undefined && err.status >= 500) return `the service kept failing (${err.status})`;
  if (err instanceof DomainIntelError && err.status === 402) return "the month's lookups are spent";
  return err instanceof Error ? err.message : String(err);
}

/** A run's use of stale answers: counts the rows given one and keeps the first cause. */
export class StaleUse {
  readonly #stats: RunStats;
  readonly #maxLookups: number | null;

  constructor(stats: RunStats, maxLookups: number | null) {
    this.#stats = stats;
    this.#maxLookups = maxLookups;
  }

  /**
   * Counts `rows` rows given an older answer, of `hosts` hosts not counted before (1 for a key's first rows, 0
   * for a repeat's). `err` is the failure of their lookup; undefined when none was sent or none came back
   * whole: the run stopped (its stop reason says why), or `fallback` (the rows' reason).
   */
  used(rows: number, hosts: 0 | 1, err: unknown, fallback: string | null): void {
    const stats = this.#stats;
    stats.stale += rows;
    stats.staleHosts += hosts;
    // The first cause stands, as the first stop reason does: it is what started the run's trouble.
    if (stats.staleCause !== null || rows === 0) return;
    if (err !== undefined) stats.staleCause = failureCause(err);
    else if (stats.stoppedBy !== null) stats.staleCause = stopCause(stats.stoppedBy, this.#maxLookups);
    else stats.staleCause = fallback === UNANSWERED ? "the service's batch answer left them out" : (fallback ?? 'the lookup failed');
  }
}
