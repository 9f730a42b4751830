// The answer store: every paid answer, keyed by (endpoint, host), read back by age. Writes go through the
// journal (journal.ts) except a lone answer; reads see the journal's unmerged answers too.
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { CacheUnavailableError, checkedForDamage, sqliteCode } from '../errors.js';
import { openClaims } from './claims.js';
import { guarded, type HistoryReads, historyReads } from './history.js';
import { openJournal, type StoredRow as Row } from './journal.js';
import { cacheFiles } from './schema.js';

/** 'missing': the service does not hold the host (a 404), which is an answer worth keeping too. */
type CacheStatus = 'found' | 'missing';

/** A cached answer: the body (null for 'missing') and when it was fetched (epoch ms). */
interface CacheEntry {
  status: CacheStatus;
  body: unknown;
  fetchedAt: number;
  /** When the host was fetched before this answer: null, never; absent, not known (an unmerged answer). */
  previousAt?: number | null;
}

/** One answer to store. */
interface CachePut {
  endpoint: string;
  host: string;
  status: CacheStatus;
  body: unknown;
}

interface CacheStats {
  path: string;
  entries: number;
  byEndpoint: Record<string, number>;
  found: number;
  missing: number;
  /** Epoch ms of the oldest and newest answers; null when empty. */
  oldest: number | null;
  newest: number | null;
  /** Bytes on disk, write-ahead log included. */
  bytes: number;
  /** Past answers kept in the history. */
  history: number;
}

/**
 * The answer cache; pass `maxAgeMs` = Infinity to accept answers of any age. Endpoint names: 'domain' holds
 * profiles from single and batch lookups alike (a batch profile equals a single profile, spec §4 rule 2),
 * 'traffic' is keyed by host, 'employees' by apex, 'catalog' by ''.
 */
export interface AnswerCache {
  /** The cached answer for one host, if fetched within `maxAgeMs`. */
  get(endpoint: string, host: string, maxAgeMs: number): CacheEntry | null;
  /** Cached answers fetched within `maxAgeMs`, by host; hosts without one are absent from the map. */
  getMany(endpoint: string, hosts: string[], maxAgeMs: number): Map<string, CacheEntry>;
  /**
   * As getMany, but also sees answers other connections committed and have not merged yet (their `recent`
   * rows); answers nothing, at no cost, until another connection has written to the file since it was opened.
   */
  getFresh(endpoint: string, hosts: string[], maxAgeMs: number): Map<string, CacheEntry>;
  /**
   * Claims hosts about to be bought, once another connection is known to share the file (claims.ts); returns
   * those another live process is buying now. A claim ends when the host's answer is stored, or on release.
   */
  claim(endpoint: string, hosts: string[]): string[];
  /** Ends the claims on hosts whose lookup gave up. */
  release(endpoint: string, hosts: string[]): void;
  /**
   * Stores (or replaces) answers, stamped with the clock's now; each is committed before this returns.
   * Returns that now: the rows showing these answers say the same fetched_at as the store.
   */
  putMany(entries: readonly CachePut[]): number;
  /** Whether any answer (of any age) is held for `endpoint`. */
  holdsAny(endpoint: string): boolean;
  stats(): CacheStats;
  /** Removes every answer; returns how many. */
  clear(): number;
  /** Removes answers older than `maxAgeMs`, and the history of those hosts (older still); returns how many answers. */
  prune(maxAgeMs: number): number;
  /** Removes past answers replaced more than `maxAgeMs` ago; returns how many. */
  pruneHistory(maxAgeMs: number): number;
  /** Reads of the answers held before the current ones (history.ts; merged answers only). */
  readonly past: HistoryReads;
  close(): void;
}

// SQLite allows 32766 bound parameters, but a short IN list keeps each statement cheap to plan and reuse.
const HOSTS_PER_QUERY = 498; // plus endpoint and cutoff: 500

/** The answer cache over an open database whose schema is in place; closing it closes `db`. */
export function answerCache(db: Database.Database, file: string, clock: () => number): AnswerCache {
  // One prepared statement per IN-list length; in practice: full chunks and one remainder size per run.
  const inLists = new Map<number, Database.Statement<unknown[], Row>>();
  const inList = (n: number) => {
    let stmt = inLists.get(n);
    if (!stmt) {
      const marks = Array.from({ length: n }, () => '?').join(', ');
      stmt = db.prepare<unknown[], Row>(
        `SELECT host, status, body, fetched_at, prev_fetched_at FROM answers WHERE endpoint = ? AND fetched_at >= ? AND host IN (${marks})`,
      );
      inLists.set(n, stmt);
    }
    return stmt;
  };
  // data_version changes when another connection commits to the file: until one has, no other process can
  // have bought anything this connection does not already know of, and getFresh skips its query.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const openedAt = dataVersion.get();
  let othersWrote = false;
  // An upsert, not INSERT OR REPLACE: a replace deletes the old row and inserts, which fires no UPDATE trigger,
  // so the answer it replaced would not reach the history.
  const putOne = db.prepare<[string, string, CacheStatus, string | null, number]>(
    `INSERT INTO answers (endpoint, host, status, body, fetched_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (endpoint, host) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at, prev_fetched_at = answers.fetched_at`,
  );
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
  const claims = openClaims(db, clock);
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
  const read = (endpoint: string, hosts: string[], maxAgeMs: number, unmerged: Row[] = []): Map<string, CacheEntry> => {
    const out = new Map<string, CacheEntry>();
    const unique = [...new Set(hosts)];
    const since = cutoff(maxAgeMs);
    const found = new Map<string, Row>();
    const keep = (row: Row) => {
      const kept = found.get(row.host);
      if (kept === undefined || row.fetched_at > kept.fetched_at) found.set(row.host, row);
    };
    unmerged.forEach(keep);
    for (let i = 0; i < unique.length; i += HOSTS_PER_QUERY) {
      const chunk = unique.slice(i, i + HOSTS_PER_QUERY);
      for (const row of inList(chunk.length).all(endpoint, since, ...chunk)) keep(row);
    }
    for (const host of unique) {
      const row = journal.latest(endpoint, host, found.get(host), since);
      const entry = row ? decode(row) : null;
      if (entry) out.set(host, entry);
    }
    return out;
  };
  const getMany = (endpoint: string, hosts: string[], maxAgeMs: number) => read(endpoint, hosts, maxAgeMs);
  let joined = false;
  const getFresh = (endpoint: string, hosts: string[], maxAgeMs: number): Map<string, CacheEntry> => {
    // The first check before a run's first request also says the run is here, and learns of one already here.
    if (!joined) {
      joined = true;
      othersWrote ||= claims.join();
    }
    othersWrote ||= dataVersion.get() !== openedAt;
    if (!othersWrote) return new Map();
    // `recent` before `answers`: a merge in between moves rows into what is read second, so none is missed.
    return read(endpoint, hosts, maxAgeMs, journal.othersUnmerged(endpoint, hosts, cutoff(maxAgeMs)));
  };

  const putMany = (entries: readonly CachePut[]): number => {
    const now = clock();
    if (entries.length === 0) return now;
    const only = entries[0] as CachePut;
    if (entries.length === 1 && journal.pending === 0) {
      // A lone answer (a single lookup, a traffic or employees run) dirties a page or two either way: written
      // straight into `answers`, it leaves nothing to merge when the cache closes.
      putOne.run(only.endpoint, only.host, only.status, encode(only.body), now);
    } else {
      journal.append(entries.map((e) => ({ endpoint: e.endpoint, host: e.host, status: e.status, body: encode(e.body), fetched_at: now })));
    }
    // Answered: another process may look these hosts up from the cache now, rather than wait for the claims.
    try {
      claims.release(
        only.endpoint,
        entries.map((e) => e.host),
      );
    } catch (err) {
      // The answers are stored: a claim left behind (the file locked or full just now) costs nothing, since
      // another process finds the stored answer before it looks at claims, and the claim expires with its run.
      if (sqliteCode(err) === '') throw err;
    }
    return now;
  };

  return {
    get: (endpoint, host, maxAgeMs) => reading(() => getMany(endpoint, [host], maxAgeMs).get(host) ?? null),
    getMany: (endpoint, hosts, maxAgeMs) => reading(() => getMany(endpoint, hosts, maxAgeMs)),
    getFresh: (endpoint, hosts, maxAgeMs) => checked(() => getFresh(endpoint, hosts, maxAgeMs)),
    putMany: (entries) => checked(() => putMany(entries)),
    claim: (endpoint, hosts) => (othersWrote ? checked(() => claims.claim(endpoint, hosts)) : []),
    release: (endpoint, hosts) => checked(() => claims.release(endpoint, hosts)),
    holdsAny: (endpoint) => reading(() => anyFor.get(endpoint, endpoint) !== undefined),
    stats: () =>
      checked(() => {
        journal.merge();
        return { ...stats(db, file), history: past.count() };
      }),
    clear: () =>
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
    prune: (maxAgeMs) =>
      checked(() => {
        journal.merge();
        return removeAnswers(' WHERE fetched_at < ?', cutoff(maxAgeMs), Number.MIN_SAFE_INTEGER);
      }),
    pruneHistory: (maxAgeMs) =>
      checked(() => {
        journal.merge();
        return past.prune(cutoff(maxAgeMs));
      }),
    past: guarded(past, reading),
    close: () => {
      if (!db.open) return;
      try {
        if (joined) claims.leave();
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

function decode(row: { status: CacheStatus; body: string | null; fetched_at: number; prev_fetched_at?: number | null }): CacheEntry | null {
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

function stats(db: Database.Database, file: string): Omit<CacheStats, 'history'> {
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
