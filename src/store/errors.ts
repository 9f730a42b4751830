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

/** The cache file cannot be created or used here (permissions, a file in the way, a newer format). */
export class CacheUnavailableError extends DomainIntelError {
  constructor(
    readonly path: string,
    reason: string,
    options: { code?: string; cause?: unknown } = {},
  ) {
    super(`${reason}; run with --no-cache, or set DOMAIN_INTEL_CACHE_DIR to another directory`, {
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
