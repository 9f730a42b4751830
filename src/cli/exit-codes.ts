// Exit codes a cron job can act on; the README's table is written from this one. The one map to them: from
// an error that ended a command (exitCodeFor), and from how a run ended (runExit).
import { CommanderError } from 'commander';
import {
  AbortedError,
  BadRequestError,
  DomainIntelError,
  EmptyInputError,
  InputError,
  InvalidKeyError,
  NotFoundError,
  OutputError,
  QuotaExhaustedError,
  UsageError,
} from '../api/errors.js';
import { type RunStats, stopCause } from '../run/stats.js';
import { CacheCorruptError, CacheUnavailableError, StoreUnavailableError } from '../store/errors.js';
import { formatReset, groupedNumber } from './output/format.js';
import { staleAnswers } from './output/summary.js';

export const EXIT = {
  /** Everything done. */
  OK: 0,
  /** Unexpected failure (a bug): run with --debug and report it. */
  FAILURE: 1,
  /** Bad option, bad input file, bad configuration. */
  USAGE: 2,
  /** Finished, but some rows are invalid (only with --strict). */
  INVALID_ROWS: 3,
  /**
   * Finished, but some rows are in error (retries ran out, --max-lookups reached), or hold answers older than
   * --max-age that could not be refreshed: re-run to fetch only those.
   */
  INCOMPLETE: 4,
  /** Stopped by the monthly quota (402), or the quota left cannot cover a file run (refused; --allow-partial runs anyway). */
  QUOTA: 5,
  /** The API key is missing, malformed or revoked (401). */
  INVALID_KEY: 6,
  /** The service could not be reached, or kept failing. */
  NETWORK: 7,
  /** The host or technology is not held (single-host commands). */
  NOT_FOUND: 8,
  /** The cache file is damaged or cannot be used here: `cache clear`, `--no-cache` or another cache dir. */
  CACHE: 9,
  /** The output could not be written (disk full, read-only, permission); an existing -o FILE is untouched. */
  OUTPUT: 10,
  /** The output is written, but paid answers could not be kept in the cache (disk full, read-only): a re-run pays for them again. */
  NOT_KEPT: 11,
  /** The input held no rows (empty, or a header alone): nothing looked up or written, an existing -o FILE untouched (--allow-empty runs anyway). */
  EMPTY_INPUT: 12,
  /**
   * The shared store (--store, a PostgreSQL URL) cannot be used: unreachable, the login refused, a newer
   * schema, another service's answers; or it was lost mid-run, which then stopped buying (paid answers are in
   * the output or FILE.partial). Never replaced by a store of the run's own.
   */
  STORE: 13,
  /** Interrupted (Ctrl-C): answers so far are cached, re-run to resume. */
  INTERRUPTED: 130,
  /** The reader of stdout went away (e.g. `| head`); nothing was sent after that. */
  PIPE: 141,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for an error that ended a command. */
export function exitCodeFor(err: unknown): ExitCode {
  // commander's own: --help and --version end with 0; a usage error it finds gets ours, not its 1.
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  if (err instanceof EmptyInputError) return EXIT.EMPTY_INPUT;
  if (err instanceof UsageError || err instanceof InputError) return EXIT.USAGE;
  if (err instanceof InvalidKeyError) return EXIT.INVALID_KEY;
  if (err instanceof QuotaExhaustedError) return EXIT.QUOTA;
  if (err instanceof NotFoundError) return EXIT.NOT_FOUND;
  if (err instanceof BadRequestError) return EXIT.USAGE;
  if (err instanceof AbortedError) return EXIT.INTERRUPTED;
  if (err instanceof OutputError) return EXIT.OUTPUT;
  if (err instanceof CacheCorruptError || err instanceof CacheUnavailableError) return EXIT.CACHE;
  // A URL refused for its form (a schema name it cannot use) is the user's to fix, as any bad option is.
  if (err instanceof StoreUnavailableError) return err.code === 'bad_store' ? EXIT.USAGE : EXIT.STORE;
  if (err instanceof DomainIntelError) return EXIT.NETWORK; // network, protocol, 5xx after retries
  return EXIT.FAILURE;
}

/** A run the quota left cannot cover. */
export interface QuotaShort {
  needed: number;
  remaining: number;
}

/** What a run's end needs beyond its counters to choose its code and say why. */
export interface RunEndFacts {
  /** false under --no-cache: nothing bought was kept for a re-run. */
  cache: boolean;
  /** --max-lookups, which names a budget stop. */
  maxLookups: number | null;
  /** --max-age and --refresh, which name the answers given older than asked for. */
  maxAgeMs: number;
  refresh: boolean;
  strict: boolean;
  /** What the quota check found short, when it refused the run. */
  short: QuotaShort | null;
  /** Where the partial output went, when the quota stopped the run. */
  partial: string | null;
  /** Where the base URL came from, said when the service could not be reached. */
  baseUrlHint: () => string | null;
}

/** A run's exit code, and what is said with it when it did not end cleanly: the JSON error's code and the line. */
export interface RunEnd {
  exit: ExitCode;
  said: { code: string; message: string } | null;
}

/**
 * How running again finishes what a run left (`to`: what it does then): the same command, except that under
 * --refresh (which buys every answer again, this run's included: a trial's resumed refresh paid 300 twice) it
 * takes --max-age of the time since this run began in its place, and that past --max-lookups each run buys
 * only up to it (a trial was told the same command would finish, and it stopped at the budget again).
 */
export function againWords(s: Readonly<RunStats>, f: { refresh: boolean; maxLookups: number | null }, to: string): string {
  if (f.refresh) {
    const minutes = Math.ceil((s.elapsedMs + 60_000) / 60_000);
    return `to ${to} without buying this run's answers again, run the same command with --max-age ${minutes}m (the time since it began) in place of --refresh`;
  }
  if (s.stoppedBy === 'budget' && f.maxLookups !== null)
    return `the same command buys up to ${groupedNumber(f.maxLookups)} more of them; raise --max-lookups for all`;
  return `run the same command again to ${to}`;
}

/** The exit code of a run that ended (its stop reason and counters), with the words that go with it. */
export function runExit(s: Readonly<RunStats>, f: RunEndFacts): RunEnd {
  const n = groupedNumber;
  const said = (exit: ExitCode, code: string, message: string): RunEnd => ({ exit, said: { code, message } });
  if (s.stoppedBy === 'closed') return { exit: EXIT.PIPE, said: null };
  if (s.stoppedBy === 'short') {
    const what = f.short ? `this run needs ${n(f.short.needed)} lookups but only ${n(f.short.remaining)} are left` : 'the quota left cannot cover this run';
    return said(EXIT.QUOTA, 'over_quota', `${what}; add --allow-partial to run until the quota is spent, or add a pack and run it again`);
  }
  if (s.stoppedBy === 'aborted') {
    // Under --no-cache nothing was kept: a re-run pays again for what this one bought.
    const kept = f.cache
      ? `answers so far are cached; ${againWords(s, f, 'resume')}`
      : 'answers so far are not kept (--no-cache); a re-run pays for them again';
    return said(EXIT.INTERRUPTED, 'interrupted', `interrupted: ${kept}`);
  }
  if (s.stoppedBy === 'quota') {
    const when = s.quota?.reset || s.quota?.resetRaw ? `it renews ${formatReset(s.quota)}, or add a pack` : 'add a pack or wait for the month to roll over';
    // What the rows the quota stopped became: not looked up, or given an answer older than --max-age.
    const failed = s.errors - s.notLookedUp;
    const rest = [
      s.notLookedUp > 0 ? `${n(s.notLookedUp)} rows not looked up` : '',
      failed > 0 ? `${n(failed)} rows in error` : '',
      s.stale > 0 ? `${n(s.stale)} rows given older answers` : '',
    ].filter(Boolean);
    const kept = s.errors > 0 && s.found + s.missing > 0 ? `; ${f.partial ?? 'the output'} holds the rest` : '';
    return said(EXIT.QUOTA, 'quota_exhausted', `stopped by the monthly quota${rest.length > 0 ? `: ${rest.join(', ')}` : ''}${kept}; ${when}`);
  }
  if (s.errors > 0) {
    const unreachable = s.lookupsSpent === 0 && s.found + s.missing === s.cacheHits + s.stale;
    const code = unreachable && (s.stoppedBy === null || s.stoppedBy === 'unreachable') ? EXIT.NETWORK : EXIT.INCOMPLETE;
    // The first failed row's reason names the trouble (an outage says what the connection met); rows may
    // differ after it. Rows a stop left untried are not failures: said apart, with the stop.
    const failed = s.errors - s.notLookedUp;
    const why = s.errorCause ? ` (the first: ${s.errorCause})` : '';
    const untried = s.stoppedBy === null ? '' : ` (${stopCause(s.stoppedBy, f.maxLookups)})`;
    const what = [failed > 0 ? `${n(failed)} rows in error${why}` : '', s.notLookedUp > 0 ? `${n(s.notLookedUp)} rows not looked up${untried}` : ''];
    const where = s.stoppedBy === 'unreachable' ? f.baseUrlHint() : null;
    const message = `${what.filter(Boolean).join(', ')}; ${where ? `${where}; ` : ''}${againWords(s, f, 'fetch only those')}`;
    return said(code, s.stoppedBy === 'budget' ? 'budget' : 'incomplete', message);
  }
  if (s.stale > 0) {
    // Every row has an answer, but some are older than asked for: not complete, and a re-run refreshes them.
    // Why, in the line --quiet leaves: a night that replaced FILE with older answers names the outage.
    const why = s.staleCause ? `: ${s.staleCause}` : '';
    const what = staleAnswers(f.maxAgeMs, f.refresh);
    return said(EXIT.INCOMPLETE, 'stale', `${n(s.stale)} rows from ${what}${why}; run the same command again to refresh them`);
  }
  if (s.notKept > 0) {
    const cause = s.notKeptCause ?? 'the cache is not writable';
    const message = `${n(s.notKept)} paid answers are in the output but not in the cache: ${cause}; a re-run will pay for them again (free the cache's disk, or set DOMAIN_INTEL_CACHE_DIR to another directory)`;
    return said(EXIT.NOT_KEPT, 'not_kept', message);
  }
  if (s.invalid > 0 && f.strict) return said(EXIT.INVALID_ROWS, 'invalid_rows', `${n(s.invalid)} invalid rows (--strict)`);
  return { exit: EXIT.OK, said: null };
}

/** Rows of the README's exit-code table. */
export const EXIT_TABLE: [number, string][] = [
  [EXIT.OK, 'complete'],
  [EXIT.FAILURE, 'unexpected failure (a bug; run with --debug)'],
  [EXIT.USAGE, 'usage or input error: bad option, unreadable input, ambiguous column, an -o in a directory that does not exist'],
  [EXIT.INVALID_ROWS, 'complete, but some rows were invalid (only with --strict)'],
  [
    EXIT.INCOMPLETE,
    'finished with rows in error (retries ran out or --max-lookups reached), or with answers older than --max-age that could not be refreshed; re-run to fetch only those',
  ],
  [EXIT.QUOTA, 'stopped by the monthly quota (a 402, or 0 left), partial output kept; or the quota left cannot cover the file (add --allow-partial)'],
  [EXIT.INVALID_KEY, 'API key missing, malformed or revoked (401)'],
  [EXIT.NETWORK, 'service unreachable or failing'],
  [EXIT.NOT_FOUND, 'host or technology not held (single lookups)'],
  [EXIT.CACHE, 'cache file damaged (run domain-intel cache clear) or unusable (use --no-cache or DOMAIN_INTEL_CACHE_DIR)'],
  [EXIT.OUTPUT, 'the output could not be written (disk full, read-only, permission); an existing -o FILE is untouched'],
  [EXIT.NOT_KEPT, 'output written, but paid answers could not be kept in the cache (disk full, read-only): a re-run pays for them again'],
  [
    EXIT.EMPTY_INPUT,
    'the input held no rows (empty, or a header alone): nothing looked up or written, an existing -o FILE untouched; --allow-empty runs anyway',
  ],
  [
    EXIT.STORE,
    'the shared store (--store) cannot be used: unreachable, login refused, a newer schema; lost mid-run, the run stopped buying and kept paid answers in the output or FILE.partial',
  ],
  [EXIT.INTERRUPTED, 'interrupted; answers so far are cached (not under --no-cache), re-run to resume (under --refresh, as the message says)'],
  [EXIT.PIPE, 'stdout closed early (e.g. | head); nothing was sent after that (answers already on their way are cached)'],
];
