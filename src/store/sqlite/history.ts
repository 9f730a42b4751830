// History in the cache (issue 17): when a refreshed answer differs from the one held, the one held is kept in
// `history` with when it was fetched and when it was replaced. A trigger on `answers` does it, so every write
// path keeps it (the journal's merge, a lone answer) and a run killed with -9 loses none: its answers wait in
// `recent` and the merge at the next open fires the trigger then. Only a change adds a row: the same answer
// fetched again moves `fetched_at` on and nothing else. Bodies compare as text, which is canonical because
// api/validate.ts builds every object in one key order and the service lists technologies alphabetically
// (spec §2.1), so two fetches of the same data give the same text.
import type Database from 'better-sqlite3';
import type { HeldAnswer, HistoryReads, PastAnswer } from '../contract.js';

/**
 * A profile's `age_days` is left out of the comparison: "days since registration" (spec §2.1) grows by one a
 * day at a service that counts to the day it answers, so every nightly refresh would otherwise keep every
 * host's answer (~570 bytes each) and report a change that is only the calendar. A registration that truly
 * changed moves other fields too (registrar, technologies). The trigger before this rule (`answers_history`,
 * from the first build with history) is replaced when the file is opened; the new one is created first, so a
 * write in between is never missed (at worst kept twice).
 *
 * `replaced_at` is the `fetched_at` of the answer that replaced it (not when it was merged: a killed run's
 * answers are merged at the next open, maybe days later). No unique key: three answers for one host within
 * the same millisecond could repeat one, and a failed insert would fail the whole merge. The index serves a
 * host's history, newest first.
 */
export const HISTORY_SCHEMA = `
    CREATE TABLE IF NOT EXISTS history (
      endpoint    TEXT    NOT NULL,
      host        TEXT    NOT NULL,
      status      TEXT    NOT NULL,
      body        TEXT,
      fetched_at  INTEGER NOT NULL,
      replaced_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS history_by_host ON history (endpoint, host, replaced_at);
    CREATE TRIGGER IF NOT EXISTS answers_history_2 AFTER UPDATE OF status, body ON answers
    WHEN old.status IS NOT new.status OR json_remove(old.body, '$.age_days') IS NOT json_remove(new.body, '$.age_days')
    BEGIN
      INSERT INTO history (endpoint, host, status, body, fetched_at, replaced_at)
      VALUES (old.endpoint, old.host, old.status, old.body, old.fetched_at, new.fetched_at);
    END;
    DROP TRIGGER IF EXISTS answers_history;`;

/**
 * The history reads over one connection, synchronous as better-sqlite3 is; the store hands them out as the
 * contract's asynchronous HistoryReads (`guarded`). Besides the contract's reads: prune and count, for upkeep.
 */
export interface HistoryRows extends Sync<HistoryReads> {
  /** Removes history replaced before `cutoff` (epoch ms), and history of hosts no longer held; returns how many rows. */
  prune(cutoff: number): number;
  /** How many past answers are kept. */
  count(): number;
}

/** The synchronous twin of an asynchronous interface. */
type Sync<T> = { [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K] };

interface Row {
  status: 'found' | 'missing';
  body: string | null;
  fetched_at: number;
  replaced_at: number | null;
}

/**
 * Reads of the history over `db`. They see merged answers only: a connection's own unmerged answers (the
 * journal's overlay) have not replaced anything yet, which a run that refreshes a host knows already (it
 * holds the answer it replaces); another command sees them once merged, which opening the cache does.
 */
export function historyReads(db: Database.Database): HistoryRows {
  const all = db.prepare<[string, string], Row>(
    'SELECT status, body, fetched_at, replaced_at FROM history WHERE endpoint = ? AND host = ? ORDER BY replaced_at DESC, rowid DESC',
  );
  // The oldest past answer still held at `at`: the first replaced after it.
  const heldAt = db.prepare<[string, string, number], Row>(
    'SELECT status, body, fetched_at, replaced_at FROM history WHERE endpoint = ? AND host = ? AND replaced_at > ? ORDER BY replaced_at, rowid LIMIT 1',
  );
  const current = db.prepare<[string, string], Row>('SELECT status, body, fetched_at, NULL AS replaced_at FROM answers WHERE endpoint = ? AND host = ?');
  const pruneOld = db.prepare<[number]>('DELETE FROM history WHERE replaced_at < ?');
  // What `cache prune` left without its answer (its history is older still), or `cache clear`, or an older
  // build's prune, which knows nothing of history.
  const pruneOrphans = db.prepare(
    'DELETE FROM history WHERE NOT EXISTS (SELECT 1 FROM answers a WHERE a.endpoint = history.endpoint AND a.host = history.host)',
  );
  const count = db.prepare<[], number>('SELECT COUNT(*) FROM history').pluck();
  const held = (r: Row): HeldAnswer => ({ status: r.status, body: parse(r.body), fetchedAt: r.fetched_at, replacedAt: r.replaced_at });
  const pruneBoth = db.transaction((cutoff: number) => pruneOld.run(cutoff).changes + pruneOrphans.run().changes);

  return {
    ...feedReads(db),
    ...rowChangeReads(db),
    history: (endpoint, host) => all.all(endpoint, host).map((r) => held(r) as PastAnswer),
    previous(endpoint, host, at) {
      if (at === undefined) {
        const r = all.get(endpoint, host);
        return r === undefined ? null : held(r);
      }
      const r = heldAt.get(endpoint, host, at) ?? current.get(endpoint, host);
      return r === undefined ? null : held(r);
    },
    prune: (cutoff) => pruneBoth(cutoff),
    count: () => count.get() ?? 0,
  };
}

function parse(body: string | null): unknown {
  if (body === null) return null;
  try {
    return JSON.parse(body);
  } catch (err) {
    // A past body that no longer parses tells nothing: read as no body, like a missing answer's.
    if (err instanceof SyntaxError) return null;
    throw err;
  }
}

/** `reads` as the contract's asynchronous reads, each call passed through `wrap` (the store's translation of SQLite's errors). */
export function guarded(reads: HistoryRows, wrap: <T>(fn: () => T) => T): HistoryReads {
  return {
    replacedByMany: async (endpoint, asks) => wrap(() => reads.replacedByMany(endpoint, asks)),
    latest: async (endpoint, host) => wrap(() => reads.latest(endpoint, host)),
    pastAmong: async (endpoint, hosts) => wrap(() => reads.pastAmong(endpoint, hosts)),
    hostsWithHistory: async (endpoint, after, limit) => wrap(() => reads.hostsWithHistory(endpoint, after, limit)),
    history: async (endpoint, host) => wrap(() => reads.history(endpoint, host)),
    previous: async (endpoint, host, at) => wrap(() => reads.previous(endpoint, host, at)),
  };
}

// The change feed's reads (`domain-intel changes`, src/changes/).

/**
 * What `domain-intel changes` reads besides a host's history. `latest` is not `getMany`: that sees this
 * connection's unmerged answers too, and the feed must compare the latest with the history it replaced, both
 * merged. `pastAmong` is one query for many hosts, where most have no past and need nothing more (over 200,000
 * hosts: 0.7 s, against 1.9 s for two calls a host; measured). `hostsWithHistory` pages `--all`, so every host
 * is visited without all of them held in memory.
 */
type FeedReads = Pick<HistoryRows, 'latest' | 'pastAmong' | 'hostsWithHistory'>;

/** Hosts per `pastAmong` query: as answers.ts reads by IN list, short enough to plan cheaply. */
const FEED_HOSTS_PER_QUERY = 499;

function feedReads(db: Database.Database): FeedReads {
  const latest = db.prepare<[string, string], Row>('SELECT status, body, fetched_at, NULL AS replaced_at FROM answers WHERE endpoint = ? AND host = ?');
  const among = new Map<number, Database.Statement<unknown[], { host: string; past: number }>>();
  const amongOf = (n: number) => {
    let stmt = among.get(n);
    if (!stmt) {
      const marks = Array.from({ length: n }, () => '?').join(', ');
      stmt = db.prepare<unknown[], { host: string; past: number }>(
        `SELECT a.host, EXISTS (SELECT 1 FROM history h WHERE h.endpoint = a.endpoint AND h.host = a.host) AS past
         FROM answers a WHERE a.endpoint = ? AND a.host IN (${marks})`,
      );
      among.set(n, stmt);
    }
    return stmt;
  };
  // DISTINCT over the (endpoint, host, replaced_at) index: a walk of the index, one step per host.
  const page = db.prepare<[string, string, number], string>('SELECT DISTINCT host FROM history WHERE endpoint = ? AND host > ? ORDER BY host LIMIT ?').pluck();
  return {
    latest(endpoint, host) {
      const r = latest.get(endpoint, host);
      return r === undefined ? null : { status: r.status, body: parse(r.body), fetchedAt: r.fetched_at, replacedAt: null };
    },
    pastAmong(endpoint, hosts) {
      const out = new Map<string, boolean>();
      for (let i = 0; i < hosts.length; i += FEED_HOSTS_PER_QUERY) {
        const chunk = hosts.slice(i, i + FEED_HOSTS_PER_QUERY);
        for (const r of amongOf(chunk.length).all(endpoint, ...chunk)) out.set(r.host, r.past === 1);
      }
      return out;
    },
    // '' sorts before every host name.
    hostsWithHistory: (endpoint, after, limit) => page.all(endpoint, after ?? '', limit),
  };
}

// batch --changes (issue 17, part B): the history rule for a row answered from the cache.

/** The read batch --changes makes of the history: what a fetch replaced, for many cached rows at once. */
type RowChangeReads = Pick<HistoryRows, 'replacedByMany'>;

function rowChangeReads(db: Database.Database): RowChangeReads {
  // A second, not the millisecond: a row's fetched_at is shown to the second, and the repeat of a host the
  // service does not hold knows its time only to the second (run/seen-keys.ts). Two changes of one host
  // within one second are not told apart: the later one is taken.
  const within = db.prepare<[string, string, number, number], Row>(
    `SELECT status, body, fetched_at, replaced_at FROM history
     WHERE endpoint = ? AND host = ? AND replaced_at >= ? AND replaced_at < ? ORDER BY replaced_at DESC, rowid DESC LIMIT 1`,
  );
  // The answer that a fetch at `at` replaced, when that fetch changed it: the past answer whose `replaced_at`
  // falls in the same second as `at`; null when the fetch changed nothing the cache kept.
  const replacedBy = (endpoint: string, host: string, at: number): PastAnswer | null => {
    const second = Math.floor(at / 1000) * 1000;
    const r = within.get(endpoint, host, second, second + 1000);
    return r === undefined ? null : { status: r.status, body: parse(r.body), fetchedAt: r.fetched_at, replacedAt: r.replaced_at as number };
  };
  // One indexed probe per ask, in one call: in-process SQLite answers each in microseconds.
  return { replacedByMany: (endpoint, asks) => asks.map((a) => replacedBy(endpoint, a.host, a.at)) };
}
