// The two ways the cache file can fail a command, each naming the file and the way out. Neither is a usage
// error: the command was right, the file is not, and a script can tell them apart by exit code.
import { DomainIntelError } from '../api/errors.js';

/** The cache file is not readable as SQLite (damaged, or not a database): clearing it is the way out. */
export class CacheCorruptError extends DomainIntelError {
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`the cache file ${path} is damaged (${detail}); run \`domain-intel cache clear\` to start a fresh one`, { code: 'cache_corrupt' });
  }
}

/**
 * The way out of a cache that cannot be used: --no-cache where the command takes it (the enriching commands),
 * and in any case another directory.
 */
export function cacheWayOut(noCacheOffered: boolean): string {
  return `${noCacheOffered ? 'run with --no-cache, or set' : 'set'} DOMAIN_INTEL_CACHE_DIR to another directory`;
}

/** The cache file cannot be created or used here (permissions, a file in the way, a newer format). */
export class CacheUnavailableError extends DomainIntelError {
  constructor(
    readonly path: string,
    /** What is wrong, without the way out (the message adds it; a command without --no-cache words its own). */
    readonly reason: string,
    options: { code?: string; cause?: unknown } = {},
  ) {
    super(`${reason}; ${cacheWayOut(true)}`, {
      code: options.code ?? 'cache_unavailable',
      cause: options.cause,
    });
  }
}

/** SQLite's error code ('SQLITE_BUSY', ...), or '' for an error that did not come from SQLite. */
export const sqliteCode = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : '';
};

/** Whether SQLite found the file damaged or not a database at all. */
const isCorruption = (err: unknown): boolean => /^SQLITE_(NOTADB|CORRUPT)/.test(sqliteCode(err));

/** Runs `fn`; damage SQLite finds in `file` on the way (at open or mid-run) becomes a CacheCorruptError. */
export function checkedForDamage<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isCorruption(err)) throw new CacheCorruptError(file, (err as Error).message);
    throw err;
  }
}

// SQLite's codes first (its extended codes start with these), then the system's. ENOSPC/EDQUOT arrive as
// SQLITE_FULL from SQLite, and as themselves from plain file writes.
const TROUBLE: [RegExp, string][] = [
  [/^(SQLITE_FULL|ENOSPC)/, 'disk full'],
  [/^EDQUOT/, 'disk quota exceeded'],
  [/^(SQLITE_READONLY|EROFS)/, 'read-only'],
  [/^(SQLITE_PERM|SQLITE_AUTH|SQLITE_CANTOPEN|EACCES|EPERM)/, 'permission denied'],
  [/^(SQLITE_BUSY|SQLITE_LOCKED)/, 'locked by another process for too long'],
  [/^(SQLITE_IOERR|EIO)/, 'I/O error'],
  [/^(SQLITE_CORRUPT|SQLITE_NOTADB)/, 'damaged'],
];

/**
 * Why a write to the cache or the account state failed, in a few words ('disk full', 'read-only', ...), when
 * the failure is the storage's; null for anything else (a bug must still surface as one, not as a warning).
 */
export function storageTrouble(err: unknown): string | null {
  if (err instanceof CacheCorruptError) return 'damaged';
  if (err instanceof CacheUnavailableError) return storageTrouble(err.cause) ?? 'unusable';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  for (const [pattern, words] of TROUBLE) if (pattern.test(code)) return words;
  return code.startsWith('SQLITE_') ? (err as Error).message : null;
}

/**
 * A store shared over the network (a PostgreSQL URL) cannot be used: unreachable, refusing the login, written
 * by a newer domain-intel, or holding another service's answers. `where` is its URL with the password masked;
 * the message names it and says what is wrong in one line. A run never falls back to a store of its own.
 */
export class StoreUnavailableError extends DomainIntelError {
  constructor(
    readonly where: string,
    reason: string,
    options: { code?: string; cause?: unknown } = {},
  ) {
    super(reason, { code: options.code ?? 'store_unavailable', cause: options.cause });
  }
}
