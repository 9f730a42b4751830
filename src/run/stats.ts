// What a run counts, for progress lines, the summary and --dry-run.
import type { QuotaInfo } from '../api/types.js';

/** Counters of one run; filled in as it goes. */
export interface RunStats {
  rows: number;
  valid: number;
  invalid: number;
  /** Valid rows whose host (apex for employees) appeared earlier in the input. */
  duplicates: number;
  /** Distinct hosts answered from the local cache, at no cost. */
  cacheHits: number;
  /** Distinct hosts that need the network (the dry-run figure). */
  lookupsNeeded: number;
  requestsNeeded: number;
  /** Lookups the service charged: the answers recorded in the store (the ledger), not the hosts sent (§8.6). */
  lookupsSpent: number;
  /** Hosts a batch answer left out of both `data` and `missing`: not recorded (maybe not charged), fetched by a re-run. */
  unanswered: number;
  /** Lookups sent in requests that got no usable answer but may have been served and charged (timeouts, cut connections). */
  unconfirmed: number;
  found: number;
  missing: number;
  errors: number;
  /** Rows among `errors` a stop settled before their lookup was tried (Ctrl-C, the quota, the budget): not failures. */
  notLookedUp: number;
  requests: number;
  rateLimited: number;
  retries: number;
  inFlight: number;
  startedAt: number;
  elapsedMs: number;
  /** The lowest remaining seen in the current quota period (same limit and reset), not the last to arrive. */
  quota: QuotaInfo | null;
  /** How far X-Quota-Remaining fell over the run (ledger.ts), to check against lookupsSpent; null without the headers. */
  quotaDrop: number | null;
  /**
   * Rows given a cached answer older than --max-age because a fresh one could not be had (the service
   * unreachable or failing, the quota spent, the budget reached), and why; see EnrichOptions.stale.
   */
  stale: number;
  staleCause: string | null;
  /** Distinct hosts (keys) among those rows: the summary's hosts line counts hosts, never rows. */
  staleHosts: number;
  /** What the first row in error says (its reason): the summary names the cause of rows in error with it. */
  errorCause: string | null;
  /** Paid answers the store could not keep (disk full, read-only): in the output, but a re-run pays again; and why. */
  notKept: number;
  notKeptCause: string | null;
  /** Why the run stopped sending before the end, if it did. */
  stoppedBy: StopReason | null;
  /** Live, for progress: distinct hosts queued or in flight (planned for a lookup, not yet settled). */
  lookupsWaiting: number;
  /** Live, for progress: every input row has been read and planned, so lookupsNeeded is the run's whole need. */
  inputDone: boolean;
  /**
   * Live, for progress: characters of the rows planned so far (cells, separators, line ends), near enough
   * their bytes to say how much of a file the run has got through (the file's own stream reads far ahead).
   */
  inputChars: number;
}

/**
 * Every reason a run stops sending before its input ends: the monthly quota (402), --max-lookups, the
 * caller's signal, the consumer leaving (output closed), a refused key (401), an error reading or planning,
 * the caller's quota gate saying what is left cannot cover the run (EnrichOptions.quotaGate).
 * Set in one place (Dispatcher.stop); what rows say of it, in one place too (stopText).
 */
export type StopReason = 'quota' | 'budget' | 'aborted' | 'closed' | 'key' | 'error' | 'short' | 'unreachable';

const STOP_CAUSE: { readonly [R in StopReason]: (maxLookups: number | null) => string } = {
  // Said whether a 402 came or the last answer reported 0 left (the run then sends nothing to be refused).
  quota: () => "the month's lookups are spent",
  budget: (maxLookups) => `--max-lookups ${maxLookups} reached`,
  aborted: () => 'interrupted',
  closed: () => 'the output was closed',
  key: () => 'no usable API key (missing, malformed or refused)',
  error: () => 'an error ended the run',
  short: () => 'the quota left cannot cover this run',
  // Connection refused, no such name, a certificate not trusted (api/retry.ts isUnreachable).
  unreachable: () => 'the service could not be reached',
};

/** Stops that are a decision not to look the rest up (the others cut the run short). */
const DECIDED: ReadonlySet<StopReason> = new Set(['quota', 'budget', 'key', 'short', 'unreachable']);

/** Why a run stopped, in words (the summary's "stopped:" line). */
export function stopCause(reason: StopReason, maxLookups: number | null): string {
  return STOP_CAUSE[reason](maxLookups);
}

/** What the rows a stopped run did not look up say (their `reason`). */
export function stopText(reason: StopReason, maxLookups: number | null): string {
  const cause = stopCause(reason, maxLookups);
  return DECIDED.has(reason) ? `not looked up: ${cause}` : cause;
}

/** What rows settled by a stop say when it is not a decision (stopText gives those no "not looked up:"). */
const UNTRIED: ReadonlySet<string> = new Set((['aborted', 'closed', 'error'] as const).map((r) => STOP_CAUSE[r](null)));

/** Whether a row in error with this reason was settled by a stop, its lookup never tried (stopText's words). */
export function neverTried(reason: string | null): boolean {
  return reason !== null && (reason.startsWith('not looked up: ') || UNTRIED.has(reason));
}

/** Stops that cut a run short: rows after them were never read, or the run was refused or failed. */
const CUT_SHORT: ReadonlySet<StopReason> = new Set(['aborted', 'closed', 'error', 'key', 'short']);

/**
 * Whether a run's output is whole, so it may replace -o FILE: no row in error, and not cut short. The quota
 * and --max-lookups settle every row they stop (in error, unless an answer fills it), so they are judged by
 * their rows.
 */
export function isComplete(s: Pick<RunStats, 'errors' | 'stoppedBy'>): boolean {
  return s.errors === 0 && (s.stoppedBy === null || !CUT_SHORT.has(s.stoppedBy));
}

export type RunEvent =
  | { type: 'rate-limited'; resumeAt: number }
  | { type: 'retry'; keys: number; attempt: number; delayMs: number; error: string }
  | { type: 'quota-exhausted' }
  /** A paid answer could not be stored (run/failsafe-store.ts): said once, at the first; `count` answers in that write. */
  | { type: 'not-kept'; cause: string; count: number }
  /** Sharing the store with other processes failed (run/failsafe-store.ts): the run goes on alone; said once. */
  | { type: 'not-shared'; cause: string };

/** A zeroed RunStats. */
export function emptyStats(now: number): RunStats {
  return {
    rows: 0,
    valid: 0,
    invalid: 0,
    duplicates: 0,
    cacheHits: 0,
    lookupsNeeded: 0,
    requestsNeeded: 0,
    lookupsSpent: 0,
    unanswered: 0,
    unconfirmed: 0,
    found: 0,
    missing: 0,
    errors: 0,
    notLookedUp: 0,
    requests: 0,
    rateLimited: 0,
    retries: 0,
    inFlight: 0,
    startedAt: now,
    elapsedMs: 0,
    quota: null,
    quotaDrop: null,
    stale: 0,
    staleCause: null,
    staleHosts: 0,
    errorCause: null,
    notKept: 0,
    notKeptCause: null,
    stoppedBy: null,
    lookupsWaiting: 0,
    inputDone: false,
    inputChars: 0,
  };
}

/** What a row says when a batch answer left its host out of both lists. */
export const UNANSWERED = "not answered: the service's batch answer left this host out (not recorded as spent; a re-run fetches it)";
