// The append journal. Every answer is committed as it arrives (a kill -9 loses nothing paid for), but a
// batch written straight into the keyed `answers` table dirties a page per host, each written to the log at
// commit; appended to the plain `recent` table it dirties a page or two (BENCHMARKS.md, "Cache design
// measurements"). SQLite moves `recent` into `answers` in one transaction once it holds MERGE_EVERY answers
// or more (growing with the table: see there), when asked (close, stats, prune, clear) and on the next open,
// which is how a killed run's answers get there. Until then this connection finds its own answers through the
// overlay: where in `recent` each one is (its rowid, a number in memory rather than the answer), read back in
// the reader's snapshot. Another process, once it has seen this one write, finds them too (`othersUnmerged`)
// just before it sends a batch, so it does not buy again a host this run has just bought. It reads `recent` by rowid, only the rows appended since it last looked: an
// index on (endpoint, host) would find them in one probe, but dirties a page per answer appended, which is
// what `recent` exists to avoid (measured: appends 8-10x slower, 1,000,000-row run ~30% slower). A merge
// empties `recent`, after which rowids start again at 1, so each merge bumps a generation in `meta` and a
// reader that sees it move starts again from the first row (the merged answers are in `answers` by then).
import type Database from 'better-sqlite3';
import { sqliteCode } from '../errors.js';
import { RowidIndex } from './overlay.js';

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

/**
 * Answers appended before they are moved into `answers`, at least; bounds the overlay's memory too. A merge
 * rewrites the pages of `answers` it touches, and the hosts of a run are spread over all of them, so its cost
 * grows with the table rather than with the answers it moves: a fresh 1,000,000-row run (500,000 answers)
 * spent 5.6 s of its 23 s merging every 10,000. So the journal is let grow with the table, to a quarter of
 * the answers merged so far, up to MERGE_AT_MOST (the overlay holds a rowid per answer: about 1 MB then).
 */
export const MERGE_EVERY = 10_000;
const MERGE_AT_MOST = 50_000;
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
  // Moved in key order (rowid order within a host, which the rule and the history need): `answers` is keyed by
  // host, and rows taken in the order they came touched its pages at random (a merge of 10,000 into 500,000
  // answers: up to 520 ms in arrival order, 59 ms in key order, measured in an earlier build).
  // ("WHERE true" lets SQLite parse an upsert after a SELECT.)
  const moveRecent = db.prepare(
    `INSERT INTO answers (endpoint, host, status, body, fetched_at) SELECT endpoint, host, status, body, fetched_at FROM recent WHERE true ORDER BY endpoint, host, rowid
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
  // Counted only as far as it matters (past 4 x MERGE_AT_MOST the journal is at its largest anyway): a count
  // walks every page, and a cache of millions of answers would make a small run's first write wait for it.
  const answerCount = db.prepare<[], number>(`SELECT count(*) FROM (SELECT 1 FROM answers LIMIT ${4 * MERGE_AT_MOST})`).pluck();
  /** Every connection's rows in `recent` as of the last look, by `${endpoint}\n${host}`, and up to which rowid. */
  const seenRows = new Map<string, number>();
  let seenUpTo = 0;
  let seenGeneration: string | undefined;
  /** Pending answers at which append next merges (grows with the table; moved on when a merge fails: see append). */
  let mergeAt: number | undefined;
  // The table's size, counted once (a count walks every page) and then grown by what each merge moved (an
  // upsert of a host already held counts again: the estimate only ever errs towards merging less often).
  let answersHeld: number | undefined;
  const nextMergeAt = (moved: number): number => {
    answersHeld = (answersHeld ?? answerCount.get() ?? 0) + moved;
    return Math.min(MERGE_AT_MOST, Math.max(MERGE_EVERY, Math.floor(answersHeld / 4)));
  };
  /** Where this connection's unmerged answers are in `recent` (rowid), by endpoint and host. */
  const unmerged = new RowidIndex();

  /** Appends in one transaction; returns the first rowid of each ROWS_PER_APPEND answers. */
  const appendAll = db.transaction((answers: StoredAnswer[], also?: () => void): number[] => {
    const firsts: number[] = [];
    for (let at = 0; at < answers.length; at += ROWS_PER_APPEND) {
      const n = Math.min(ROWS_PER_APPEND, answers.length - at);
      const params: unknown[] = [];
      for (let i = at; i < at + n; i++) {
        const a = answers[i] as StoredAnswer;
        params.push(a.endpoint, a.host, a.status, a.body, a.fetched_at);
      }
      // `recent` has no AUTOINCREMENT, so each new row takes one more than the largest rowid (SQLite's rowid
      // rule), and one statement's rows, under the write lock, take consecutive ones ending at the last.
      firsts.push(Number(appendStatement(n).run(...params).lastInsertRowid) - n + 1);
    }
    also?.();
    return firsts;
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
      // Told the overlay once committed: a rolled-back append has no rows to point at.
      const firsts = appendAll(answers, also);
      for (let i = 0; i < answers.length; i++) {
        const a = answers[i] as StoredAnswer;
        unmerged.add(a.endpoint, a.host, (firsts[Math.floor(i / ROWS_PER_APPEND)] as number) + (i % ROWS_PER_APPEND));
      }
      mergeAt ??= nextMergeAt(0);
      if (unmerged.size < mergeAt) return;
      try {
        const moved = unmerged.size;
        merge();
        mergeAt = nextMergeAt(moved);
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
      // Another connection may have merged it (it is in `answers` then, read in the same snapshot), and rows
      // appended since may have taken its rowid: a row of another host is not this one's answer.
      const kept = unmerged.find(endpoint, host, (id) => {
        const row = rowById.get(id);
        return row !== undefined && row.endpoint === endpoint && row.host === host ? row : undefined;
      });
      if (kept === undefined || kept.fetched_at < since) return stored;
      // Another process may have stored a later answer since this one was kept.
      return stored === undefined || kept.fetched_at > stored.fetched_at ? kept : stored;
    },
    merge,
    othersUnmerged: (endpoint, hosts, since) => readOthers(endpoint, hosts, since),
  };
}
