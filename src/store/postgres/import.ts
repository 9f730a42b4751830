// Answers and history copied in from another store (`store import`: a machine's local SQLite cache into the
// team's store), one transaction per chunk. What is held already is not added again, so an import run twice
// (or cut short and run again) adds nothing the second time:
// - an answer newer than the one held replaces it, and the trigger keeps the one replaced as history, as a
//   refresh would; an answer not held is added;
// - an answer older than the one held is a past answer (when it differs, as the trigger judges), unless that
//   one is held already;
// - a past answer is added unless one of the host with the same fetched and replaced times is held.
import type { ImportCounts, KeptAnswer } from '../contract.js';
import type { Db, Query } from './pool.js';

/** The chunk as the columns unnest() reads: endpoint, host, status, body, fetched_at, replaced_at. */
const columns = (rows: readonly KeptAnswer[]): unknown[] => [
  rows.map((r) => r.endpoint),
  rows.map((r) => r.host),
  rows.map((r) => r.status),
  rows.map((r) => r.body),
  rows.map((r) => Math.round(r.fetchedAt)),
  rows.map((r) => (r.replacedAt === null ? null : Math.round(r.replacedAt))),
];

const ROWS = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS t(endpoint, host, status, body, fetched_at, replaced_at)`;

const count = async (q: Query, text: string, values: unknown[]): Promise<number> =>
  (await q<{ n: number }>(`WITH done AS (${text} RETURNING 1) SELECT COUNT(*) AS n FROM done`, values))[0]?.n ?? 0;

/** Current answers: the newer wins (a new key is added); an older one becomes a past answer. */
async function importAnswers(q: Query, s: string, rows: readonly KeptAnswer[]): Promise<ImportCounts> {
  // In key order, as putMany takes its row locks, so an import beside a run never deadlocks with it.
  const sorted = [...rows].sort((a, b) => (a.endpoint === b.endpoint ? (a.host < b.host ? -1 : 1) : a.endpoint < b.endpoint ? -1 : 1));
  const values = columns(sorted);
  const answers = await count(
    q,
    `INSERT INTO ${s}.answers AS a (endpoint, host, status, body, fetched_at)
     SELECT t.endpoint, t.host, t.status, t.body, t.fetched_at FROM ${ROWS}
     ON CONFLICT (endpoint, host) DO UPDATE SET status = excluded.status, body = excluded.body,
       fetched_at = excluded.fetched_at, prev_fetched_at = a.fetched_at
     WHERE excluded.fetched_at > a.fetched_at`,
    values,
  );
  const history = await count(
    q,
    `INSERT INTO ${s}.history (endpoint, host, status, body, fetched_at, replaced_at)
     SELECT t.endpoint, t.host, t.status, t.body, t.fetched_at, a.fetched_at
       FROM ${ROWS} JOIN ${s}.answers a ON a.endpoint = t.endpoint AND a.host = t.host
      WHERE t.fetched_at < a.fetched_at
        AND (a.status IS DISTINCT FROM t.status OR ${s}.comparable(a.body) IS DISTINCT FROM ${s}.comparable(t.body))
        AND NOT EXISTS (SELECT 1 FROM ${s}.history h WHERE h.host = t.host AND h.endpoint = t.endpoint AND h.fetched_at = t.fetched_at)`,
    values,
  );
  return { answers, history };
}

/** Past answers, each added once. */
async function importHistory(q: Query, s: string, rows: readonly KeptAnswer[]): Promise<number> {
  return count(
    q,
    `INSERT INTO ${s}.history (endpoint, host, status, body, fetched_at, replaced_at)
     SELECT t.endpoint, t.host, t.status, t.body, t.fetched_at, t.replaced_at FROM ${ROWS}
      WHERE NOT EXISTS (SELECT 1 FROM ${s}.history h WHERE h.host = t.host AND h.endpoint = t.endpoint
                          AND h.fetched_at = t.fetched_at AND h.replaced_at = t.replaced_at)`,
    columns(rows),
  );
}

/** Copies `chunks` into the store in schema `s`; resolves to what was added. */
export async function importInto(db: Db, s: string, chunks: AsyncIterable<KeptAnswer[]>): Promise<ImportCounts> {
  const added: ImportCounts = { answers: 0, history: 0 };
  for await (const chunk of chunks) {
    const current = chunk.filter((r) => r.replacedAt === null);
    const past = chunk.filter((r) => r.replacedAt !== null);
    await db.tx(async (q) => {
      if (current.length > 0) {
        const got = await importAnswers(q, s, current);
        added.answers += got.answers;
        added.history += got.history;
      }
      if (past.length > 0) added.history += await importHistory(q, s, past);
    });
  }
  return added;
}
