// Upkeep of the shared answers (`cache stats|clear|prune`): what they hold, and removing them with their
// history. Ages are on the server's clock, as reads are. Each removal is one transaction, so the answers and
// the history they leave are never seen apart.
import type { StoreMaintenance } from '../contract.js';
import type { Db, Query } from './pool.js';

// History of hosts no longer held: what a prune left without its answer (its history is older still).
const orphans = (s: string) => `DELETE FROM ${s}.history h WHERE NOT EXISTS (SELECT 1 FROM ${s}.answers a WHERE a.endpoint = h.endpoint AND a.host = h.host)`;

const counted = async (q: Query, text: string, values: unknown[] = []): Promise<number> =>
  (await q<{ n: number }>(`WITH gone AS (${text} RETURNING 1) SELECT COUNT(*) AS n FROM gone`, values))[0]?.n ?? 0;

/** An age limit as a parameter: null for Infinity (nothing is older), which makes the cutoff NULL. */
const ageOf = (maxAgeMs: number): number | null => (Number.isFinite(maxAgeMs) ? Math.round(maxAgeMs) : null);

/** The upkeep of the store in schema `s`; `now` is the caller's clock, or null for the server's. */
export function storeUpkeep(db: Db, s: string, now: () => number | null): StoreMaintenance {
  const cutoff = `COALESCE($2::bigint, ${s}.now_ms()) - $1::bigint`;
  return {
    async stats() {
      const [totals] = await db.query<{
        entries: number;
        found: number;
        missing: number;
        oldest: number | null;
        newest: number | null;
        history: number;
        bytes: number;
      }>(
        `SELECT COUNT(*) AS entries, COUNT(*) FILTER (WHERE status = 'found') AS found, COUNT(*) FILTER (WHERE status = 'missing') AS missing,
                MIN(fetched_at) AS oldest, MAX(fetched_at) AS newest,
                (SELECT COUNT(*) FROM ${s}.history) AS history,
                pg_total_relation_size('${s}.answers') + pg_total_relation_size('${s}.history') AS bytes
           FROM ${s}.answers`,
      );
      const byEndpoint: Record<string, number> = {};
      for (const r of await db.query<{ endpoint: string; n: number }>(`SELECT endpoint, COUNT(*) AS n FROM ${s}.answers GROUP BY endpoint ORDER BY endpoint`)) {
        byEndpoint[r.endpoint] = r.n;
      }
      const t = totals as NonNullable<typeof totals>;
      return {
        path: db.shown,
        entries: t.entries,
        byEndpoint,
        found: t.found,
        missing: t.missing,
        oldest: t.oldest,
        newest: t.newest,
        bytes: t.bytes,
        history: t.history,
      };
    },
    clear: () =>
      db.tx(async (q) => {
        const removed = await counted(q, `DELETE FROM ${s}.answers`);
        await q(`DELETE FROM ${s}.history`);
        return removed;
      }),
    prune: (maxAgeMs) =>
      db.tx(async (q) => {
        const removed = await counted(q, `DELETE FROM ${s}.answers WHERE fetched_at < ${cutoff}`, [ageOf(maxAgeMs), now()]);
        await q(orphans(s));
        return removed;
      }),
    pruneHistory: (maxAgeMs) =>
      db.tx(
        async (q) => (await counted(q, `DELETE FROM ${s}.history WHERE replaced_at < ${cutoff}`, [ageOf(maxAgeMs), now()])) + (await counted(q, orphans(s))),
      ),
  };
}
