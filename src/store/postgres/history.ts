// The history reads over PostgreSQL: what `changes` and `batch --changes` ask of the answers a differing
// refresh replaced (the trigger of sql-answers.ts keeps them). Reads of many hosts are one statement each,
// the hosts passed as one array, so a chunk of cached rows costs one round trip, not one per row.
import type { HeldAnswer, HistoryReads, PastAnswer } from '../contract.js';
import type { Query } from './pool.js';

interface Row {
  status: 'found' | 'missing';
  body: string | null;
  fetched_at: number;
  replaced_at: number | null;
}

/** Hosts per statement: one array parameter, kept to a size the server plans and sends quickly. */
const HOSTS_PER_QUERY = 10_000;

/** A body as kept (JSON text), parsed; one that no longer parses reads as no body, as SQLite's. */
export function parseBody(body: string | null): { ok: boolean; body: unknown } {
  if (body === null) return { ok: true, body: null };
  try {
    return { ok: true, body: JSON.parse(body) };
  } catch (err) {
    if (err instanceof SyntaxError) return { ok: false, body: null };
    throw err;
  }
}

const held = (r: Row): HeldAnswer => ({ status: r.status, body: parseBody(r.body).body, fetchedAt: r.fetched_at, replacedAt: r.replaced_at });

/** Splits `items` into runs of at most `size`. */
export function chunks<T>(items: readonly T[], size = HOSTS_PER_QUERY): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The history reads of the store in `s`. */
export function historyReads(query: Query, s: string): HistoryReads {
  const current = `SELECT status, body, fetched_at, NULL::bigint AS replaced_at FROM ${s}.answers WHERE endpoint = $1 AND host = $2`;
  const one = async (text: string, values: unknown[]): Promise<HeldAnswer | null> => {
    const r = (await query<Row>(text, values))[0];
    return r === undefined ? null : held(r);
  };
  return {
    async replacedByMany(endpoint, asks) {
      const out: (PastAnswer | null)[] = asks.map(() => null);
      // Within the second of `at`, not the millisecond: a row's fetched_at is shown to the second (as SQLite).
      // The latest change of that second per ask, asks numbered so that repeats of a host each get theirs.
      for (const [n, part] of chunks(asks).entries()) {
        const rows = await query<Row & { i: number }>(
          `SELECT DISTINCT ON (q.i) q.i, h.status, h.body, h.fetched_at, h.replaced_at
             FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS q(host, second, i)
             JOIN ${s}.history h ON h.endpoint = $1 AND h.host = q.host AND h.replaced_at >= q.second AND h.replaced_at < q.second + 1000
            ORDER BY q.i, h.replaced_at DESC, h.id DESC`,
          [endpoint, part.map((a) => a.host), part.map((a) => Math.floor(a.at / 1000) * 1000)],
        );
        for (const r of rows) out[n * HOSTS_PER_QUERY + r.i - 1] = held(r) as PastAnswer;
      }
      return out;
    },
    latest: (endpoint, host) => one(current, [endpoint, host]),
    async pastAmong(endpoint, hosts) {
      const out = new Map<string, boolean>();
      for (const part of chunks(hosts)) {
        const rows = await query<{ host: string; past: boolean }>(
          `SELECT a.host, EXISTS (SELECT 1 FROM ${s}.history h WHERE h.endpoint = a.endpoint AND h.host = a.host) AS past
             FROM ${s}.answers a WHERE a.endpoint = $1 AND a.host = ANY($2::text[])`,
          [endpoint, part],
        );
        for (const r of rows) out.set(r.host, r.past);
      }
      return out;
    },
    async hostsWithHistory(endpoint, after, limit) {
      // '' sorts before every host name.
      const rows = await query<{ host: string }>(`SELECT DISTINCT host FROM ${s}.history WHERE endpoint = $1 AND host > $2 ORDER BY host LIMIT $3`, [
        endpoint,
        after ?? '',
        limit,
      ]);
      return rows.map((r) => r.host);
    },
    async history(endpoint, host) {
      const rows = await query<Row>(
        `SELECT status, body, fetched_at, replaced_at FROM ${s}.history WHERE endpoint = $1 AND host = $2 ORDER BY replaced_at DESC, id DESC`,
        [endpoint, host],
      );
      return rows.map((r) => held(r) as PastAnswer);
    },
    previous(endpoint, host, at) {
      if (at === undefined) {
        return one(
          `SELECT status, body, fetched_at, replaced_at FROM ${s}.history WHERE endpoint = $1 AND host = $2 ORDER BY replaced_at DESC, id DESC LIMIT 1`,
          [endpoint, host],
        );
      }
      // The oldest past answer still held at `at` (the first replaced after it), else the current one.
      return one(
        `SELECT status, body, fetched_at, replaced_at FROM (
           (SELECT 0 AS k, status, body, fetched_at, replaced_at FROM ${s}.history
             WHERE endpoint = $1 AND host = $2 AND replaced_at > $3 ORDER BY replaced_at, id LIMIT 1)
           UNION ALL
           SELECT 1, status, body, fetched_at, NULL FROM ${s}.answers WHERE endpoint = $1 AND host = $2) held
         ORDER BY k LIMIT 1`,
        [endpoint, host, at],
      );
    },
  };
}
