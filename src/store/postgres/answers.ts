// The answer store over PostgreSQL, shared by every machine of a team: answers read by age on the server's
// clock, stored with one upsert per batch (the trigger keeps what a differing refresh replaced), claims that
// keep two runs anywhere from buying one host at once, and the runs' presence. Each contract method is one
// statement, so one round trip, whatever the number of hosts (they travel as one array parameter).
import type { AnswerPut, ClaimedFresh, Store, StoredAnswer } from '../contract.js';
import { chunks, historyReads, parseBody } from './history.js';
import type { Presence } from './presence.js';
import { type Db, LEASE } from './pool.js';
import { storeUpkeep } from './upkeep.js';
import { importInto } from './import.js';

/**
 * Longest a live run's claim holds: a request's timeout (30 s) and its retries' backoff, with room (as the
 * SQLite claims). A dead run's claims go sooner: with its heartbeat, after the lease.
 */
const CLAIM_MAX_MS = 2 * 60_000;

interface Row {
  host: string;
  status: 'found' | 'missing';
  body: string | null;
  fetched_at: number;
  prev_fetched_at: number | null;
}

/** What the store needs besides its pool: the schema, the clock (null: the server's), and its presence. */
export interface AnswersOptions {
  schema: string;
  /** A clock of the caller's (tests): stamps answers and ages them instead of the server's clock. */
  clock: (() => number) | null;
  presence: Presence;
  /** Closes what the store holds besides its presence (the pool). */
  close: () => Promise<void>;
}

/** Puts the answer of row `r` into `out`, unless its body no longer parses. */
function keep(out: Map<string, StoredAnswer>, r: Row): void {
  const { ok, body } = parseBody(r.body);
  // A body that no longer parses is no answer: the host is fetched again and the row overwritten.
  if (ok) out.set(r.host, { status: r.status, body, fetchedAt: r.fetched_at, previousAt: r.prev_fetched_at });
}

/** The answer store of the schema `o.schema` on `db`. */
export function postgresAnswers(db: Db, o: AnswersOptions): Store {
  const s = o.schema;
  const { presence } = o;
  const now = () => (o.clock === null ? null : o.clock());
  const read = async (endpoint: string, hosts: readonly string[], maxAgeMs: number): Promise<Map<string, StoredAnswer>> => {
    const out = new Map<string, StoredAnswer>();
    const maxAge = ageOf(maxAgeMs);
    for (const part of chunks([...new Set(hosts)])) {
      const rows = await db.query<Row>(
        `SELECT host, status, body, fetched_at, prev_fetched_at FROM ${s}.answers
          WHERE endpoint = $1 AND host = ANY($2::text[])
            AND ($3::bigint IS NULL OR fetched_at >= COALESCE($4::bigint, ${s}.now_ms()) - $3::bigint)`,
        [endpoint, part, maxAge, now()],
      );
      for (const r of rows) keep(out, r);
    }
    return out;
  };
  const ageOf = (maxAgeMs: number) => (Number.isFinite(maxAgeMs) ? Math.max(0, Math.round(maxAgeMs)) : null);

  const putMany = async (entries: readonly AnswerPut[]): Promise<number> => {
    // One row per key, the last given winning (an upsert may not touch a row twice), in key order, so two
    // machines storing overlapping batches take their row locks in one order and never deadlock.
    const byKey = new Map<string, AnswerPut>();
    for (const e of entries) byKey.set(`${e.endpoint}\n${e.host}`, e);
    const rows = [...byKey.values()].sort((a, b) =>
      a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : a.host < b.host ? -1 : a.host > b.host ? 1 : 0,
    );
    const at = await db.query<{ at: number }>(
      `WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(endpoint, host, status, body, n)),
            stamp AS MATERIALIZED (SELECT COALESCE($5::bigint, ${s}.now_ms()) AS at),
            put AS (
              INSERT INTO ${s}.answers AS a (endpoint, host, status, body, fetched_at)
              SELECT t.endpoint, t.host, t.status, t.body, stamp.at FROM t, stamp ORDER BY t.n
              ON CONFLICT (endpoint, host) DO UPDATE SET status = excluded.status, body = excluded.body,
                fetched_at = excluded.fetched_at, prev_fetched_at = a.fetched_at
              -- The later answer wins, whichever run stored it (one stamped earlier may commit later).
              WHERE excluded.fetched_at >= a.fetched_at),
            answered AS (DELETE FROM ${s}.claims c USING t WHERE c.endpoint = t.endpoint AND c.host = t.host AND c.owner = $6)
       SELECT at FROM stamp`,
      [
        rows.map((e) => e.endpoint),
        rows.map((e) => e.host),
        rows.map((e) => e.status),
        rows.map((e) => (e.body === null || e.body === undefined ? null : JSON.stringify(e.body))),
        now(),
        presence.id,
      ],
    );
    return (at[0] as { at: number }).at;
  };

  return {
    getMany: read,
    // Every answer is in the table once its statement commits: nothing waits in a journal to be merged.
    getFresh: read,
    putMany,
    async claim(endpoint, hosts) {
      const wanted = [...new Set(hosts)].sort();
      if (wanted.length === 0) return [];
      await presence.ensure();
      // Taken when free, already this run's, or held by a run that is gone (no heartbeat for a lease) or
      // that has held it too long; the hosts returned are this run's now.
      const got = await db.query<{ host: string }>(
        `INSERT INTO ${s}.claims AS c (endpoint, host, owner, taken_at)
         SELECT $1, h, $2, ${s}.now_ms() FROM unnest($3::text[]) WITH ORDINALITY AS u(h, n) ORDER BY n
         ON CONFLICT (endpoint, host) DO UPDATE SET owner = excluded.owner, taken_at = excluded.taken_at
         WHERE c.owner = excluded.owner OR c.taken_at < excluded.taken_at - $4
            OR NOT EXISTS (SELECT 1 FROM ${s}.runs r WHERE r.id = c.owner AND r.last_seen >= excluded.taken_at - $5)
         RETURNING host`,
        [endpoint, presence.id, wanted, CLAIM_MAX_MS, presence.leaseMs],
      );
      const mine = new Set(got.map((r) => r.host));
      return wanted.filter((h) => !mine.has(h));
    },
    // One round trip: the function (sql-claim-v3.ts) claims, then looks with a fresh snapshot, then ends the
    // claims of what it found.
    async claimFresh(endpoint, hosts, maxAgeMs): Promise<ClaimedFresh> {
      const wanted = [...new Set(hosts)].sort();
      const out: ClaimedFresh = { busy: [], held: new Map() };
      if (wanted.length === 0) return out;
      await presence.ensure();
      const rows = await db.query<Row & { busy: boolean }>(`SELECT cf.* FROM ${LEASE}, ${s}.claim_fresh($1, $2, $3, $4, $5, $6, $7) AS cf`, [
        endpoint,
        presence.id,
        wanted,
        CLAIM_MAX_MS,
        presence.leaseMs,
        ageOf(maxAgeMs),
        now(),
      ]);
      for (const r of rows) {
        if (r.busy) out.busy.push(r.host);
        else keep(out.held, r);
      }
      return out;
    },
    async release(endpoint, hosts) {
      if (hosts.length === 0) return;
      await db.query(`DELETE FROM ${s}.claims WHERE owner = $1 AND endpoint = $2 AND host = ANY($3::text[])`, [presence.id, endpoint, [...hosts]]);
    },
    async holdsAny(endpoint) {
      const rows = await db.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${s}.answers WHERE endpoint = $1) AS any`, [endpoint]);
      return rows[0]?.any === true;
    },
    join: () => presence.buying(true),
    leave: async () => void (await presence.buying(false)),
    past: historyReads(db.query, s),
    ...storeUpkeep(db, s, now),
    importAll: (chunks) => importInto(db, s, chunks),
    async close() {
      try {
        await presence.gone();
      } finally {
        await o.close();
      }
    },
  };
}
