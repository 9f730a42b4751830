// The answer store: every paid answer, keyed by (endpoint, host), read back by age. Writes go through the
// journal (journal.ts) except a lone answer; reads see the journal's unmerged answers too.
import { exportRows } from './export.js';
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import type { AnswerPut, Store, StoredAnswer, StoreStats } from '../contract.js';
import { CacheUnavailableError, checkedForDamage, sqliteCode } from '../errors.js';
import { type Claims, openClaims } from './claims.js';
import { guarded, historyReads } from './history.js';
import { openJournal, type StoredRow as Row } from './journal.js';
import { cacheFiles } from './schema.js';

/**
 * The answer store over SQLite, as the contract has it (`maxAgeMs` = Infinity accepts answers of any age), with
 * upkeep and close. better-sqlite3 is synchronous: each method does its work at once and resolves.
 */
export type AnswerCache = Store;

// SQLite allows 32766 bound parameters, but a short IN list keeps each statement cheap to plan and reuse.
const HOSTS_PER_QUERY = 498; // plus endpoint and cutoff: 500

const NO_CLAIMS: Claims = { join: () => false, leave: () => {}, claim: () => [], release: () => {} };

/** A stored answer as SQLite gives it back (raw): host, status, body, fetched_at, prev_fetched_at. */
type RawRow = [string, StoredAnswer['status'], string | null, number, number | null];

/** The answer cache over an open database whose schema is in place; closing it closes `db`. */
export function answerCache(db: Database.Database, file: string, clock: () => number, throwaway = false): AnswerCache {
  // One prepared statement per IN-list length; in practice: full chunks and one remainder size per run. Rows
  // come back as arrays (raw): a warm re-run reads every host of the file, and an object per row was garbage.
  const inLists = new Map<number, Database.Statement<unknown[], RawRow>>();
  const inList = (n: number) => {
    let stmt = inLists.get(n);
    if (!stmt) {
      const marks = Array.from({ length: n }, () => '?').join(', ');
      stmt = db
        .prepare<unknown[], RawRow>(
          `SELECT host, status, body, fetched_at, prev_fetched_at FROM answers WHERE endpoint = ? AND fetched_at >= ? AND host IN (${marks})`,
        )
        .raw(true) as unknown as Database.Statement<unknown[], RawRow>;
      inLists.set(n, stmt);
    }
    return stmt;
  };
  /** The stored rows of `hosts` (any repeat is only asked twice), HOSTS_PER_QUERY at a time, each to `each`. */
  const selectEach = (endpoint: string, hosts: readonly string[], since: number, each: (row: RawRow) => void): void => {
    for (let i = 0; i < hosts.length; i += HOSTS_PER_QUERY) {
      const end = Math.min(hosts.length, i + HOSTS_PER_QUERY);
      const params: unknown[] = [endpoint, since];
      for (let j = i; j < end; j++) params.push(hosts[j]);
      for (const row of inList(end - i).all(params)) each(row);
    }
  };
  // data_version changes when another connection commits to the file: until one has, no other process can
  // have bought anything this connection does not already know of, and getFresh skips its query.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const openedAt = dataVersion.get();
  let othersWrote = false;
  // An upsert, not INSERT OR REPLACE: a replace deletes the old row and inserts, which fires no UPDATE trigger,
  // so the answer it replaced would not reach the history.
  const putOne = db.prepare<[string, string, StoredAnswer['status'], string | null, number]>(
    `INSERT INTO answers (endpoint, host, status, body, fetched_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (endpoint, host) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at, prev_fetched_at = answers.fetched_at`,
  );
  const putLone = db.transaction((e: AnswerPut, now: number, answered: () => void) => {
    putOne.run(e.endpoint, e.host, e.status, encode(e.body), now);
    answered();
  });
  const anyFor = db
    .prepare<[string, string], number>('SELECT 1 FROM answers WHERE endpoint = ? UNION ALL SELECT 1 FROM recent WHERE endpoint = ? LIMIT 1')
    .pluck();
  const past = historyReads(db);
  // Answers go with their history: clear forgets every past answer; prune drops the history of hosts whose
  // answer it removes, which is older still (a past answer's replaced_at is its successor's fetched_at).
  const removeAnswers = db.transaction((where: string, cutoff: number, historyCutoff: number): number => {
    const removed = db.prepare(`DELETE FROM answers${where}`).run(...(where === '' ? [] : [cutoff])).changes;
    past.prune(historyCutoff);
    return removed;
  });
  const journal = openJournal(db);
  // No other process opens a throwaway file: nothing to claim from, nor anyone to tell.
  const claims = throwaway ? NO_CLAIMS : openClaims(db, clock);
  const cutoff = (maxAgeMs: number): number => (Number.isFinite(maxAgeMs) ? clock() - maxAgeMs : Number.MIN_SAFE_INTEGER);
  const checked = <T>(fn: () => T): T => checkedForDamage(file, fn);
  // A read that fails (an I/O error, the file gone from under the run) is the cache's exit (9) with its way out,
  // not an unexpected failure; writes are left as SQLite reports them, for the run to survive (run/failsafe-store.ts).
  const reading = <T>(fn: () => T): T =>
    checked(() => {
      try {
        return fn();
      } catch (err) {
        if (sqliteCode(err) === '' || /^SQLITE_(CORRUPT|NOTADB)/.test(sqliteCode(err))) throw err;
        throw new CacheUnavailableError(file, `cannot read the cache file ${file}: ${(err as Error).message}`, { cause: err });
      }
    });

  /** Answers of `hosts` in `answers` or in `unmerged` (the later one per host), or this connection's unmerged ones. */
  const read = (endpoint: string, hosts: readonly string[], maxAgeMs: number, unmerged: Row[] = []): Map<string, StoredAnswer> => {
    const out = new Map<string, StoredAnswer>();
    const since = cutoff(maxAgeMs);
    // Nothing unmerged (a warm re-run, a lookup): each stored row is the answer, decoded as it comes.
    if (unmerged.length === 0 && journal.pending === 0) {
      selectEach(endpoint, hosts, since, (r) => {
        const entry = decode({ status: r[1], body: r[2], fetched_at: r[3], prev_fetched_at: r[4] });
        if (entry) out.set(r[0], entry);
      });
      return out;
    }
    readMerged(endpoint, hosts, since, unmerged, out);
    return out;
  };
  // One read transaction: `answers` and this connection's rows in `recent` from one snapshot, so another
  // process's merge in between (which moves them from the second into the first) cannot hide an answer.
  const readMerged = db.transaction((endpoint: string, hosts: readonly string[], since: number, unmerged: Row[], out: Map<string, StoredAnswer>) => {
    const found = new Map<string, Row>();
    const keep = (row: Row) => {
      const kept = found.get(row.host);
      if (kept === undefined || row.fetched_at > kept.fetched_at) found.set(row.host, row);
    };
    unmerged.forEach(keep);
    selectEach(endpoint, hosts, since, (r) => keep({ host: r[0], status: r[1], body: r[2], fetched_at: r[3], prev_fetched_at: r[4] }));
    for (const host of hosts) {
      const row = journal.latest(endpoint, host, found.get(host), since);
      const entry = row ? decode(row) : null;
      if (entry) out.set(host, entry);
    }
  });
  let joined = false;
  /** Says this connection is about to buy, and learns of another already here. */
  const join = (): boolean => {
    joined = true;
    const live = claims.join();
    othersWrote ||= live;
    return live;
  };
  const getFresh = (endpoint: string, hosts: readonly string[], maxAgeMs: number): Map<string, StoredAnswer> => {
    // A caller that did not join first: the first check before a run's first request says the run is here.
    if (!joined) join();
    othersWrote ||= dataVersion.get() !== openedAt;
    if (!othersWrote) return new Map();
    // `recent` before `answers`: a merge in between moves rows into what is read second, so none is missed.
    return read(endpoint, hosts, maxAgeMs, journal.othersUnmerged(endpoint, hosts, cutoff(maxAgeMs)));
  };

  const putMany = (entries: readonly AnswerPut[]): number => {
    const now = clock();
    if (entries.length === 0) return now;
    const only = entries[0] as AnswerPut;
    // Answered: their claims end in the same commit, so another process finds the answers once it finds the
    // claims gone (and a run pays one commit a batch, not two).
    const answered = () =>
      claims.release(
        only.endpoint,
        entries.map((e) => e.host),
      );
    if (entries.length === 1 && journal.pending === 0) {
      // A lone answer (a single lookup, a traffic or employees run) dirties a page or two either way: written
      // straight into `answers`, it leaves nothing to merge when the cache closes.
      putLone(only, now, answered);
    } else {
      const rows = entries.map((e) => ({ endpoint: e.endpoint, host: e.host, status: e.status, body: encode(e.body), fetched_at: now }));
      journal.append(rows, answered);
    }
    return now;
  };

  const leave = () => {
    if (joined) claims.leave();
    joined = false;
  };

  return {
    getMany: async (endpoint, hosts, maxAgeMs) => reading(() => read(endpoint, hosts, maxAgeMs)),
    getFresh: async (endpoint, hosts, maxAgeMs) => checked(() => getFresh(endpoint, hosts, maxAgeMs)),
    putMany: async (entries) => checked(() => putMany(entries)),
    // Claimed even while this connection believes itself alone: another may have joined after it looked.
    claim: async (endpoint, hosts) =>
      checked(() => {
        if (!joined) join();
        return claims.claim(endpoint, hosts);
      }),
    release: async (endpoint, hosts) => checked(() => claims.release(endpoint, hosts)),
    holdsAny: async (endpoint) => reading(() => anyFor.get(endpoint, endpoint) !== undefined),
    join: async () => checked(join),
    leave: async () => checked(leave),
    stats: async () =>
      checked(() => {
        journal.merge();
        return { ...stats(db, file), history: past.count() };
      }),
    clear: async () =>
      checked(() => {
        journal.merge();
        const removed = removeAnswers('', 0, Number.MAX_SAFE_INTEGER);
        try {
          // Give the space back and shrink the log.
          db.exec('VACUUM');
          db.pragma('wal_checkpoint(TRUNCATE)');
        } catch (err) {
          // The answers are gone either way; with another process on the file (or no room to rebuild it)
          // the space comes back on a later clear.
          if (!/^SQLITE_(BUSY|LOCKED|FULL)/.test(sqliteCode(err))) throw err;
        }
        return removed;
      }),
    prune: async (maxAgeMs) =>
      checked(() => {
        journal.merge();
        return removeAnswers(' WHERE fetched_at < ?', cutoff(maxAgeMs), Number.MIN_SAFE_INTEGER);
      }),
    pruneHistory: async (maxAgeMs) =>
      checked(() => {
        journal.merge();
        return past.prune(cutoff(maxAgeMs));
      }),
    exportAll: () => {
      checked(() => journal.merge());
      return exportRows(db);
    },
    past: guarded(past, reading),
    close: async () => {
      if (!db.open) return;
      try {
        leave();
        journal.merge();
      } catch (err) {
        // Nothing is lost: what cannot be merged now (the file busy or damaged) stays committed in `recent`
        // and is merged when the cache is next opened; a presence left behind is cleared by its pid.
        if (sqliteCode(err) === '') throw err;
      }
      db.close();
    },
  };
}

function encode(body: unknown): string | null {
  return body === null || body === undefined ? null : JSON.stringify(body);
}

function decode(row: { status: StoredAnswer['status']; body: string | null; fetched_at: number; prev_fetched_at?: number | null }): StoredAnswer | null {
  let body: unknown = null;
  if (row.body !== null) {
    try {
      body = JSON.parse(row.body);
    } catch (err) {
      // A body that no longer parses is no answer: the host is fetched again and the row overwritten.
      if (err instanceof SyntaxError) return null;
      throw err;
    }
  }
  return row.prev_fetched_at === undefined
    ? { status: row.status, body, fetchedAt: row.fetched_at }
    : { status: row.status, body, fetchedAt: row.fetched_at, previousAt: row.prev_fetched_at };
}

function stats(db: Database.Database, file: string): Omit<StoreStats, 'history'> {
  const totals = db
    .prepare(
      `SELECT COUNT(*) AS entries, COALESCE(SUM(status = 'found'), 0) AS found, COALESCE(SUM(status = 'missing'), 0) AS missing,
              MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest FROM answers`,
    )
    .get() as { entries: number; found: number; missing: number; oldest: number | null; newest: number | null };
  const byEndpoint: Record<string, number> = {};
  for (const r of db.prepare('SELECT endpoint, COUNT(*) AS n FROM answers GROUP BY endpoint ORDER BY endpoint').all() as {
    endpoint: string;
    n: number;
  }[]) {
    byEndpoint[r.endpoint] = r.n;
  }
  let bytes = 0;
  for (const f of cacheFiles(file)) {
    try {
      bytes += fs.statSync(f).size;
    } catch (err) {
      // SQLite removes its journal files when it no longer needs them: an absent one takes no space.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return { path: file, ...totals, byEndpoint, bytes };
}
