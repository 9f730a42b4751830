// The local answer cache: every paid answer is stored as it arrives, so a re-run, a duplicate row or a run
// cut short never pays for the same lookup twice. One SQLite file (schema.ts) holding the answers
// (answers.ts, journal.ts); the quota and the limiter are the account state's (state.ts), in a file of their own.
import { type AnswerCache, answerCache } from './answers.js';
import { CacheUnavailableError, checkedForDamage, sqliteCode } from './errors.js';
import { type CacheLocation, openDatabase } from './schema.js';

export type { AnswerCache };

interface OpenCacheOptions extends CacheLocation {
  /** Epoch-ms clock, injectable so tests can age answers without waiting. */
  clock?: () => number;
}

/** Opens (creating if needed) the cache in `dir`, which is created with mode 0700. */
export async function openCache(options: OpenCacheOptions): Promise<AnswerCache> {
  const { db, file } = await openDatabase(options);
  try {
    // Preparing the statements and merging what a killed run left read the file: damage can show here too.
    return checkedForDamage(file, () => answerCache(db, file, options.clock ?? Date.now));
  } catch (err) {
    db.close();
    // The merge of what a killed run left needs room and the write lock: without them the cache cannot be used.
    if (sqliteCode(err) !== '') throw new CacheUnavailableError(file, `cannot open the cache file ${file}: ${(err as Error).message}`, { cause: err });
    throw err;
  }
}
