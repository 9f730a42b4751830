// The account state file, state.sqlite in the cache directory: per account (base URL and key fingerprint,
// never the key) the quota memo, the learned rate and the limiter's shared slots. Apart from cache.sqlite so
// `cache clear` does not forget the quota or the limiter, and the answers' big merges never hold up a
// limiter that every process of the account consults before each request.
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { accountName, keyFingerprint } from '../account.js';
import type { AccountReads, AccountState, LearnedRate, SlotStore } from '../contract.js';
import { CacheCorruptError, CacheUnavailableError, checkedForDamage } from '../errors.js';
import { exhaustedFigures, figuresOf, type MemoRow, mergeFigures, type QuotaFigures, type QuotaMemo, rowToMemo } from '../quota-memo.js';
import type { CacheLocation } from './schema.js';
import { openSqlite } from './schema.js';
import { failoverSlots, SLOTS_SCHEMA, sqliteSlots } from './slots.js';

const STATE_FILE = 'state.sqlite';
const STATE_VERSION = 1;

/** The full path of the account state file (always state.sqlite in the cache directory). */
export const stateFile = (where: CacheLocation): string => path.join(where.dir, STATE_FILE);

// The rate confirmed, else the one a run kept unconfirmed (learned_bound: contract.ts LearnedRate).
const READ_RATE = `SELECT requests, window_ms, 0 AS unconfirmed FROM learned_rate WHERE account = ?
  UNION ALL SELECT requests, window_ms, 1 FROM learned_bound WHERE account = ? ORDER BY unconfirmed LIMIT 1`;
type RateRow = { requests: number; window_ms: number; unconfirmed: number };
const rateOf = (row: RateRow | undefined): LearnedRate | null =>
  row ? { requests: row.requests, windowMs: row.window_ms, ...(row.unconfirmed === 1 ? { unconfirmed: true } : {}) } : null;

// The rates kept unconfirmed, added to a file of an older build in place, with no new version: an older build
// reads and writes its own tables as before, and never reads these (it starts from nothing, as it did).
const BOUND_SCHEMA = `
  CREATE TABLE IF NOT EXISTS learned_bound (
    account    TEXT    NOT NULL PRIMARY KEY,
    requests   INTEGER NOT NULL CHECK (requests > 0),
    window_ms  INTEGER NOT NULL CHECK (window_ms > 0),
    learned_at INTEGER NOT NULL
  ) WITHOUT ROWID;`;

function prepareState(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > STATE_VERSION) {
    throw new CacheUnavailableError(file, `the account state file ${file} was written by a newer domain-intel; upgrade to use it`, { code: 'cache_version' });
  }
  // In place already: no write (setting user_version is one) on every open, which each lookup pays.
  if (version === STATE_VERSION) {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'learned_bound'").get() === undefined) db.exec(BOUND_SCHEMA);
    return;
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS quota (
      account     TEXT    NOT NULL PRIMARY KEY,
      base_url    TEXT    NOT NULL,
      key_fp      TEXT    NOT NULL,
      quota_limit INTEGER,
      remaining   INTEGER,
      reset       TEXT,
      reset_raw   TEXT,
      seen_at     INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS learned_rate (
      account    TEXT    NOT NULL PRIMARY KEY,
      requests   INTEGER NOT NULL CHECK (requests > 0),
      window_ms  INTEGER NOT NULL CHECK (window_ms > 0),
      learned_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    ${BOUND_SCHEMA}
    ${SLOTS_SCHEMA}
    PRAGMA user_version = ${STATE_VERSION};
  `);
}

// The state holds nothing that cannot be learned again, so damage is met with that way out rather than
// `cache clear` (which leaves this file alone); either way an unusable file is the cache's exit (9).
function damaged(file: string, err: CacheCorruptError): CacheUnavailableError {
  const what = `the account state file ${file} is damaged (${err.message})`;
  return new CacheUnavailableError(file, `${what}; delete it: it holds only the quota last seen, the learned rate and the limiter's window`, { cause: err });
}

/** Runs `fn` on the state file, damage found on the way becoming the state file's error. */
function guarded<T>(file: string, fn: () => T): T {
  try {
    return checkedForDamage(file, fn);
  } catch (err) {
    throw err instanceof CacheCorruptError ? damaged(file, err) : err;
  }
}

async function openStateDb(where: CacheLocation): Promise<{ db: Database.Database; file: string }> {
  const file = stateFile(where);
  try {
    return await openSqlite(where.dir, file, prepareState, 'account state file');
  } catch (err) {
    throw err instanceof CacheCorruptError ? damaged(file, err) : err;
  }
}

/**
 * Opens (creating if needed) the state of the account `baseUrl` + `key` in the cache directory `where.dir`.
 * `onTrouble` is told (once) when the limiter's shared slots can no longer be written mid-run and the run
 * goes on with slots of its own (failoverSlots); the other writes throw, for their callers to survive.
 */
export async function openAccountState(
  where: CacheLocation,
  baseUrl: string,
  key: string,
  clock: () => number = Date.now,
  onTrouble: (message: string) => void = () => {},
): Promise<AccountState> {
  const { db, file } = await openStateDb(where);
  const fp = keyFingerprint(key);
  const account = accountName(baseUrl, fp);
  const damage = <T>(fn: () => T): T => guarded(file, fn);
  try {
    return damage(() => {
      const readMemo = db.prepare<[string], MemoRow>('SELECT * FROM quota WHERE account = ?');
      const writeMemo = db.prepare<[string, string, string, number | null, number | null, string | null, string | null, number]>(
        'INSERT OR REPLACE INTO quota VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const readRate = db.prepare<[string, string], RateRow>(READ_RATE);
      const writeRate = db.prepare<[string, number, number, number]>(
        'INSERT OR REPLACE INTO learned_rate (account, requests, window_ms, learned_at) VALUES (?, ?, ?, ?)',
      );
      const dropBound = db.prepare<[string]>('DELETE FROM learned_bound WHERE account = ?');
      // Never over a confirmed rate (another run's).
      const writeBound = db.prepare<[string, number, number, number, string]>(
        `INSERT OR REPLACE INTO learned_bound (account, requests, window_ms, learned_at)
         SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM learned_rate WHERE account = ?)`,
      );
      const confirmRate = db.transaction((requests: number, windowMs: number, at: number) => {
        writeRate.run(account, requests, windowMs, at);
        dropBound.run(account);
      });
      const memo = (): QuotaMemo | null => {
        const row = readMemo.get(account);
        return row ? rowToMemo(row) : null;
      };
      // Read and write in one immediate transaction: two processes of the account must not both keep their
      // own figure over the other's lower one.
      const transaction = db.transaction((change: (current: QuotaFigures | null) => QuotaFigures) => {
        const f = change(memo());
        writeMemo.run(account, baseUrl, fp, f.limit, f.remaining, f.reset, f.resetRaw, f.seenAt);
      });
      const update = (change: (current: QuotaFigures | null) => QuotaFigures) => transaction.immediate(change);
      let slots: SlotStore | undefined;
      // Each step is done at once (better-sqlite3 is synchronous) and resolves; a failure is a rejection.
      return {
        account,
        noteQuota: async (q) => damage(() => update((current) => mergeFigures(current, figuresOf(q)))),
        noteExhausted: async (seenAt) => damage(() => update((current) => exhaustedFigures(current, seenAt))),
        quota: async () => damage(memo),
        learnedRate: async () => damage(() => rateOf(readRate.get(account, account))),
        saveLearnedRate: async (rate) => {
          if (!(rate.requests > 0 && rate.windowMs > 0)) return; // nothing learned worth keeping
          const [requests, windowMs] = [Math.round(rate.requests), Math.round(rate.windowMs)];
          if (rate.unconfirmed === true) damage(() => writeBound.run(account, requests, windowMs, clock(), account));
          else damage(() => confirmRate.immediate(requests, windowMs, clock()));
        },
        get slots() {
          slots ??= failoverSlots(sqliteSlots(db, account, clock), (trouble) =>
            onTrouble(`the account state file ${file} cannot be written (${trouble}): going on with this run's own rate limit, not shared with other runs`),
          );
          return slots;
        },
        close: async () => {
          db.close();
        },
      };
    });
  } catch (err) {
    db.close();
    throw err;
  }
}

/** The reads of every account in the state file (`quota`, `config show`); none when there is no file (none is created). */
export function stateReads(where: CacheLocation): AccountReads {
  return {
    quotaMemos: () => withState(where, [], (db) => db.prepare<[], MemoRow>('SELECT * FROM quota ORDER BY seen_at DESC').all().map(rowToMemo)),
    learnedRate: (baseUrl, key) =>
      withState(where, null, (db) => {
        const account = accountName(baseUrl, keyFingerprint(key));
        return rateOf(db.prepare<[string, string], RateRow>(READ_RATE).get(account, account));
      }),
  };
}

/** Runs a read on the state file, or answers `none` when it does not exist yet. */
async function withState<T>(where: CacheLocation, none: T, read: (db: Database.Database) => T): Promise<T> {
  if (!fs.existsSync(stateFile(where))) return none;
  const { db, file } = await openStateDb(where);
  try {
    return guarded(file, () => read(db));
  } finally {
    db.close();
  }
}
