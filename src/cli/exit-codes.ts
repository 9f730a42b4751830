// Exit codes a cron job can act on; the README's table is written from this one.
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
import { CacheCorruptError, CacheUnavailableError } from '../store/errors.js';

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
  if (err instanceof DomainIntelError) return EXIT.NETWORK; // network, protocol, 5xx after retries
  return EXIT.FAILURE;
}

/** Rows of the README's exit-code table. */
export const EXIT_TABLE: [number, string][] = [
  [EXIT.OK, 'complete'],
  [EXIT.FAILURE, 'unexpected failure (a bug; run with --debug)'],
  [EXIT.USAGE, 'usage or input error: bad option, unreadable input, ambiguous column'],
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
  [EXIT.INTERRUPTED, 'interrupted; answers so far are cached (not under --no-cache), re-run to resume'],
  [EXIT.PIPE, 'stdout closed early (e.g. | head); nothing was sent after that (answers already on their way are cached)'],
];
