// The append journal. Every answer is committed as it arrives (a kill -9 loses nothing paid for), but a
// batch written straight into the keyed `answers` table dirties a page per host, each written to the log at
// commit; appended to the plain `recent` table it dirties a page or two (BENCHMARKS.md, "Cache design
// measurements"). SQLite moves `recent` into `answers` in one transaction every MERGE_EVERY answers, when
// asked (close, stats, prune, clear) and on the next open, which is how a killed run's answers get there.
// Until then this connection finds its own answers in memory (the overlay). Another process, once it has seen
// this one write, finds them too (`othersUnmerged`) just before it sends a batch, so it does not buy again a
// host this run has just bought. It reads `recent` by rowid, only the rows appended since it last looked: an
// index on (endpoint, host) would find them in one probe, but dirties a page per answer appended, which is
// what `recent` exists to avoid (measured: appends 8-10x slower, 1,000,000-row run ~30% slower). A merge
// empties `recent`, after which rowids start again at 1, so each merge bumps a generation in `meta` and a
// reader that sees it move starts again from the first row (the merged answers are in `answers` by then).
import type Database from 'better-sqlite3';
import { sqliteCode } from '../errors.js';

/** An answer as stored: the body as JSON text (null for 'missing'), fetched_at in epoch ms. */
interface StoredAnswer {
  endpoint: string;
  host: string;
  status: 'found' | 'missing';
  body: string | null;
  fetched_at: number;
}

/**
 * A row of `answers`, which keys it by endpoint. `prev_fetched_at`: when the host was fetched before this
 * answer (null: never; absent: not known, as for an answer still in the journal).
 */
export type StoredRow = Omit<StoredAnswer, 'endpoint'> & { prev_fetched_at?: number | null };

/** Answers appended before they are moved into `answers`; bounds the overlay's memory too. */
export const MERGE_EVERY = 10_000;
// One statement appends up to this many answers, five bound parameters each: SQLite allows 32766, but a
// short statement is cheap to plan, and a batch (100 hosts) needs one call into SQLite, not one per answer.
const ROWS_PER_APPEND = 100;

interface Journal {
  /** How many of this connection's answers are not merged yet. */
  readonly pending: number;
  /** Appends answers in one transaction, with `also` (ending their claims); merges once MERGE_EVERY are pending. */
  append(answers: StoredAnswer[], also?: () => void): void;
  /** `stored`, or this connection's unmerged answer for the host if that is later and fetched at or after `since`. */
  latest(endpoint: string, host: string, stored: StoredRow | undefined, since: number): StoredRow | undefined;
  /** Moves every appended answer (this connection's, and any a killed run left) into `answers`. */
  merge(): void;
  /** Unmerged answers of `hosts` fetched at or after `since`, whichever connection appended them. */
  othersUnmerged(endpoint: string, hosts: readonly string[], since: number): StoredRow[];
}

/** The journal over `db`'s `recent` table; merges what a killed run left there at once. */
export function openJournal(db: Database.Database): Journal {
  const appends = new Map<number, Database.Statement<unknown[]>>();
  const appendStatement = (n: number) => {
    let stmt = appends.get(n);
    if (!stmt) {
      const values = Array.from({ length: n }, () => '(?, ?, ?, ?, ?)').join(', ');
      stmt = db.prepare<unknown[]>(`INSERT INTO recent (endpoint, host, status, body, fetched_at) VALUES ${values}`);
      appends.set(n, stmt);
    }
    return stmt;
  };
  // The later answer wins, whichever process stored it: an older unmerged answer never replaces a newer one.
  // ("WHERE true" lets SQLite parse an upsert after a SELECT.)
  const moveRecent = db.prepare(
    `INSERT INTO answers (endpoint, host, status, body, fetched_at) SELECT endpoint, host, status, body, fetched_at FROM recent WHERE true ORDER BY rowid
     ON CONFLICT (endpoint, host) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at,
       prev_fetched_at = answers.fetched_at
     WHERE excluded.fetched_at >= answers.fetched_at`,
  );
  const emptyRecent = db.prepare('DELETE FROM recent');
  const anyRecent = db.prepare<[], number>('SELECT 1 FROM recent LIMIT 1').pluck();
  const GENERATION = "'recent_generation'";
  const bumpGeneration = db.prepare(
    `INSERT INTO meta (key, value) VALUES (${GENERATION}, '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  );
  const generationNow = db.prepare<[], string>(`SELECT value FROM meta WHERE key = ${GENERATION}`).pluck();
  const lastRowid = db.prepare<[], number | null>('SELECT max(rowid) FROM recent').pluck();
  const rowsAfter = db.prepare<[number], { id: number; endpoint: string; host: string }>(
    'SELECT rowid AS id, endpoint, host FROM recent WHERE rowid > ? ORDER BY rowid',
  );
  const rowById = db.prepare<[number], StoredAnswer>('SELECT endpoint, host, status, body, fetched_at FROM recent WHERE rowid = ?');
  /** Every connection's rows in `recent` as of the last look, by `${endpoint}\n${host}`, and up to which rowid. */
  const seenRows = new Map<string, number>();
  let seenUpTo = 0;
  let seenGeneration: string | undefined;
  /** Pending answers at which append next merges (moved on when a merge fails; see append). */
  let mergeAt = MERGE_EVERY;
  /** This connection's unmerged answers, by `${endpoint}\n${host}`. */
  const unmerged = new Map<string, StoredAnswer>();

  const appendAll = db.transaction((answers: StoredAnswer[], also?: () => void) => {
    for (let at = 0; at < answers.length; at += ROWS_PER_APPEND) {
      const n = Math.min(ROWS_PER_APPEND, answers.length - at);
      const params: unknown[] = [];
      for (const a of answers.slice(at, at + n)) params.push(a.endpoint, a.host, a.status, a.body, a.fetched_at);
      appendStatement(n).run(...params);
    }
    also?.();
  });
  const mergeAll = db.transaction(() => {
    moveRecent.run();
    emptyRecent.run();
    bumpGeneration.run();
  });
  // One read transaction: a consistent snapshot, however other connections merge meanwhile.
  const readOthers = db.transaction((endpoint: string, hosts: readonly string[], since: number): StoredRow[] => {
    const generation = generationNow.get();
    // A merge by a build that keeps no generation shows only as a table that shrank.
    if (generation !== seenGeneration || (lastRowid.get() ?? 0) < seenUpTo) {
      seenRows.clear();
      seenUpTo = 0;
      seenGeneration = generation;
    }
    for (const r of rowsAfter.all(seenUpTo)) {
      seenRows.set(`${r.endpoint}\n${r.host}`, r.id);
      seenUpTo = r.id;
    }
    const out: StoredRow[] = [];
    for (const host of hosts) {
      const id = seenRows.get(`${endpoint}\n${host}`);
      const row = id === undefined ? undefined : rowById.get(id);
      if (row !== undefined && row.fetched_at >= since) out.push({ host: row.host, status: row.status, body: row.body, fetched_at: row.fetched_at });
    }
    return out;
  });
  const merge = (): void => {
    if (unmerged.size === 0 && anyRecent.get() === undefined) return;
    mergeAll();
    unmerged.clear();
  };
  merge();

  return {
    get pending() {
      return unmerged.size;
    },
    append(answers, also) {
      appendAll(answers, also);
      for (const a of answers) unmerged.set(`${a.endpoint}\n${a.host}`, a);
      if (unmerged.size < mergeAt) return;
      try {
        merge();
        mergeAt = MERGE_EVERY;
      } catch (err) {
        // The answers are committed in `recent` already: a merge that fails (no room for it, the file locked
        // past the busy timeout) loses nothing and must not fail their write. It is tried again after another
        // MERGE_EVERY answers (the overlay grows meanwhile), on close, and on the next open.
        if (sqliteCode(err) === '') throw err;
        mergeAt = unmerged.size + MERGE_EVERY;
      }
    },
    latest(endpoint, host, stored, since) {
      if (unmerged.size === 0) return stored;
      const kept = unmerged.get(`${endpoint}\n${host}`);
      if (kept === undefined || kept.fetched_at < since) return stored;
      // Another process may have stored a later answer since this one was kept.
      return stored === undefined || kept.fetched_at > stored.fetched_at ? kept : stored;
    },
    merge,
    othersUnmerged: (endpoint, hosts, since) => readOthers(endpoint, hosts, since),
  };
}
