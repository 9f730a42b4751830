// An account's state in PostgreSQL, shared by every machine that uses the account: the quota memo (the
// lowest remaining of the current period: quota-memo.ts decides, inside a transaction that holds the row),
// the learned rate, and the limiter's slots (slots.ts).
import type { QuotaInfo } from '../../api/types.js';
import { exhaustedFigures, figuresOf, type MemoRow, mergeFigures, type QuotaFigures, rowToMemo } from '../quota-memo.js';
import { accountName, keyFingerprint } from '../account.js';
import type { AccountReads, AccountState, LearnedRate } from '../contract.js';
import type { Db, Query } from './pool.js';
import type { Presence } from './presence.js';
import { postgresSlots } from './slots.js';

const MEMO_COLUMNS = 'base_url, key_fp, quota_limit, remaining, reset, reset_raw, seen_at';

/** The rate confirmed, else the one a run kept unconfirmed (sql-bound-v4.ts). */
async function readRate(query: Query, s: string, account: string): Promise<LearnedRate | null> {
  const [r] = await query<{ requests: number; window_ms: number; unconfirmed: boolean }>(
    `SELECT requests, window_ms, false AS unconfirmed FROM ${s}.learned_rate WHERE account = $1
     UNION ALL SELECT requests, window_ms, true FROM ${s}.learned_bound WHERE account = $1 ORDER BY unconfirmed LIMIT 1`,
    [account],
  );
  return r === undefined ? null : { requests: r.requests, windowMs: r.window_ms, ...(r.unconfirmed ? { unconfirmed: true } : {}) };
}

/** What an account needs besides its pool: the schema, the clock (null: the server's), its presence, and closing. */
export interface AccountOptions {
  schema: string;
  baseUrl: string;
  key: string;
  clock: (() => number) | null;
  presence: Presence;
  close: () => Promise<void>;
}

/** The state of the account `o.baseUrl` + `o.key` in schema `o.schema` on `db`. */
export function postgresAccount(db: Db, o: AccountOptions): AccountState {
  const s = o.schema;
  const fp = keyFingerprint(o.key);
  const account = accountName(o.baseUrl, fp);
  // Read, merge and write in one transaction holding the row (or, before it exists, the account's lock): two
  // machines must not each keep their own figure over the other's lower one.
  const write = (change: (current: QuotaFigures | null) => QuotaFigures) =>
    db.tx(async (q) => {
      await q('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [`${s} quota`, account]);
      const [row] = await q<MemoRow>(`SELECT ${MEMO_COLUMNS} FROM ${s}.quota WHERE account = $1 FOR UPDATE`, [account]);
      const f = change(row === undefined ? null : rowToMemo(row));
      await q(
        `INSERT INTO ${s}.quota (account, ${MEMO_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (account) DO UPDATE SET quota_limit = excluded.quota_limit, remaining = excluded.remaining, reset = excluded.reset,
           reset_raw = excluded.reset_raw, seen_at = excluded.seen_at`,
        [account, o.baseUrl, fp, f.limit, f.remaining, f.reset, f.resetRaw, Math.round(f.seenAt)],
      );
    });
  // One write at a time per handle: the changes that come while one is in flight are applied together, in
  // order, by the next. A run notes the quota of every answer, and a transaction each, queued on the account's
  // lock, held a pooled connection apiece and starved the batches' statements (issue 25).
  let writing: Promise<void> | null = null;
  let pending: { changes: ((current: QuotaFigures | null) => QuotaFigures)[]; done: Promise<void> } | null = null;
  const update = (change: (current: QuotaFigures | null) => QuotaFigures): Promise<void> => {
    if (writing === null) {
      writing = write(change).finally(() => {
        writing = null;
      });
      return writing;
    }
    if (pending === null) {
      const next = { changes: [] as ((current: QuotaFigures | null) => QuotaFigures)[], done: Promise.resolve() };
      const after = writing.catch(() => undefined);
      next.done = after.then(() => {
        if (pending === next) pending = null;
        return update((current) => next.changes.reduce<QuotaFigures | null>((f, c) => c(f), current) as QuotaFigures);
      });
      pending = next;
    }
    pending.changes.push(change);
    return pending.done;
  };
  return {
    account,
    noteQuota: (q: QuotaInfo) => update((current) => mergeFigures(current, figuresOf(q))),
    noteExhausted: (seenAt) => update((current) => exhaustedFigures(current, seenAt)),
    async quota() {
      const [row] = await db.query<MemoRow>(`SELECT ${MEMO_COLUMNS} FROM ${s}.quota WHERE account = $1`, [account]);
      return row === undefined ? null : rowToMemo(row);
    },
    learnedRate: () => readRate(db.query, s, account),
    async saveLearnedRate(rate) {
      if (!(rate.requests > 0 && rate.windowMs > 0)) return; // nothing learned worth keeping
      // Confirmed: kept, and the unconfirmed one ends. Unconfirmed: kept unless a confirmed one is (another run's).
      const [into, before, unless] =
        rate.unconfirmed === true
          ? ['learned_bound', '', `WHERE NOT EXISTS (SELECT 1 FROM ${s}.learned_rate WHERE account = $1)`]
          : ['learned_rate', `WITH gone AS (DELETE FROM ${s}.learned_bound WHERE account = $1) `, ''];
      await db.query(
        `${before}INSERT INTO ${s}.${into} (account, requests, window_ms, learned_at)
         SELECT $1::text, $2::bigint, $3::bigint, COALESCE($4::bigint, ${s}.now_ms()) ${unless}
         ON CONFLICT (account) DO UPDATE SET requests = excluded.requests, window_ms = excluded.window_ms, learned_at = excluded.learned_at`,
        [account, Math.round(rate.requests), Math.round(rate.windowMs), o.clock === null ? null : o.clock()],
      );
    },
    slots: postgresSlots(db, s, account, o.presence, o.clock),
    async close() {
      try {
        await o.presence.gone();
      } finally {
        await o.close();
      }
    },
  };
}

/** The reads of every account in schema `s`, through `query`; `absent` answers when the store holds nothing yet. */
export function accountReadsOf(read: <T>(fn: (query: Query) => Promise<T>, absent: T) => Promise<T>, s: string): AccountReads {
  return {
    quotaMemos: () => read(async (query) => (await query<MemoRow>(`SELECT ${MEMO_COLUMNS} FROM ${s}.quota ORDER BY seen_at DESC`)).map(rowToMemo), []),
    learnedRate: (baseUrl, key) => read((query) => readRate(query, s, accountName(baseUrl, keyFingerprint(key))), null),
  };
}
