// The local answer cache: every paid answer is stored as it arrives, so a re-run, a duplicate row or a run
// cut short never pays for the same lookup twice. One SQLite file (schema.ts) holding the answers
// (answers.ts, journal.ts); the quota and the limiter are the account state's (state.ts), in a file of their own.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { type AnswerCache, answerCache } from './answers.js';
import { CacheUnavailableError, checkedForDamage, sqliteCode } from '../errors.js';
import { type CacheLocation, openDatabase } from './schema.js';

export type { AnswerCache };

interface OpenCacheOptions extends CacheLocation {
  /** Epoch-ms clock, injectable so tests can age answers without waiting. */
  clock?: () => number;
  /**
   * The service the answers come from (its base URL). An answer is only as true as the service that gave it:
   * a cache filled from the sandbox (or a staging service) must never answer for the real one, which it did
   * when a user pasted the sandbox's exports, then pointed at the real service (a tryout found it). The
   * default file belongs to the first service that opens it; any other gets a file of its own, named by a
   * hash of its base URL. Undefined: the file as named, whoever filled it (tests, a run's throwaway cache).
   */
  service?: string;
}

/** Opens (creating if needed) the cache in `dir`, which is created with mode 0700. */
export async function openCache(options: OpenCacheOptions): Promise<AnswerCache> {
  const { db, file } = await openServiceDatabase(options);
  try {
    // Preparing the statements and merging what a killed run left read the file: damage can show here too.
    return checkedForDamage(file, () => answerCache(db, file, options.clock ?? Date.now, options.throwaway === true));
  } catch (err) {
    db.close();
    // The merge of what a killed run left needs room and the write lock: without them the cache cannot be used.
    if (sqliteCode(err) !== '') throw new CacheUnavailableError(file, `cannot open the cache file ${file}: ${(err as Error).message}`, { cause: err });
    throw err;
  }
}

/** The cache file of `options.service`: the default file if it is that service's (or no one's yet), else its own. */
async function openServiceDatabase(options: OpenCacheOptions): Promise<{ db: Database.Database; file: string }> {
  const opened = await openDatabase(options);
  if (options.service === undefined) return opened;
  const owner = checkedForDamage(opened.file, () => claimFor(opened.db, options.service as string));
  if (owner === options.service || options.file !== undefined) return opened;
  opened.db.close();
  const own = await openDatabase({ dir: options.dir, file: serviceCacheFile(options.service) });
  checkedForDamage(own.file, () => claimFor(own.db, options.service as string));
  return own;
}

/** The service a cache file holds the answers of, made `service` when it held no one's yet. */
function claimFor(db: Database.Database, service: string): string {
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('service', ?)").run(service);
  return (db.prepare("SELECT value FROM meta WHERE key = 'service'").get() as { value: string }).value;
}

/** The cache file of a service other than the default file's: cache-<12 hex of its base URL's SHA-256>.sqlite. */
export function serviceCacheFile(service: string): string {
  return `cache-${createHash('sha256').update(service).digest('hex').slice(0, 12)}.sqlite`;
}
