// The rate limiter's slots kept in SQLite (the account state file, store/sqlite/state.ts), so every run of one
// account on this machine paces against the same window: two runs with the plan known split the rate and
// meet no 429, and when one ends its slots free as they would have in memory, so the other takes the full
// rate. Each step is one short transaction (BEGIN IMMEDIATE for those that read then write), so two
// processes never both take the last slot.
//
// A slot in flight in a process that died (kill -9) would be held for ever, so in-flight slots expire: when
// the process that took it is gone (process.kill(pid, 0): the file is on this machine) or, in case the pid
// was reused or the file is shared across machines, when it has been in flight for UNANSWERED_EXPIRY_MS (ten
// times the 30 s request timeout). An expired slot counts as answered at that moment: the service may have
// counted its request any time until then, so it stays held one more window, like any answer.
import type Database from 'better-sqlite3';
import { memorySlots, RESETS_KEPT } from '../memory-slots.js';
import { storageTrouble } from '../errors.js';
import { alive } from '../../config/paths.js';
import type { SlotStore, TakeResult } from '../contract.js';

/** free_at of a slot in flight: held until its answer. A number, not NULL, so that "held" is one index range. */
const IN_FLIGHT = Number.MAX_SAFE_INTEGER;

const FORGET_EVERY = 64;

/** How long a slot may stay in flight before it is taken for dead whatever its process. */
const UNANSWERED_EXPIRY_MS = 5 * 60_000;

/** Tables the shared slots need; store/sqlite/state.ts creates them with its own. */
export const SLOTS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS limiter_slots (
    id          INTEGER PRIMARY KEY,
    account     TEXT    NOT NULL,
    pid         INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    answered_at INTEGER,
    free_at     INTEGER NOT NULL,
    accepted    INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS limiter_slots_free ON limiter_slots (account, free_at);
  CREATE TABLE IF NOT EXISTS limiter_pause (
    account      TEXT    NOT NULL PRIMARY KEY,
    paused_until INTEGER NOT NULL,
    announced    INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS limiter_resets (
    account TEXT    NOT NULL,
    at      INTEGER NOT NULL,
    PRIMARY KEY (account, at)
  ) WITHOUT ROWID;
`;

/** The slots of `account` (base URL and key fingerprint) in `db`, shared with every process using the file. */
export function sqliteSlots(db: Database.Database, account: string, clock: () => number = Date.now): SlotStore {
  const q = {
    paused: db.prepare<[string], { paused_until: number; announced: number }>('SELECT paused_until, announced FROM limiter_pause WHERE account = ?'),
    forget: db.prepare<[string, number]>('DELETE FROM limiter_slots WHERE account = ? AND free_at < ?'),
    // Rows of every account: ids only grow, so this bounds the slots held, in O(log n) where counting is O(n).
    rows: db.prepare<[], { n: number | null }>('SELECT (SELECT MAX(id) FROM limiter_slots) - (SELECT MIN(id) FROM limiter_slots) + 1 AS n'),
    // Held by this run's window, not only the one that answered: a run paced per minute leaves its answers held a
    // minute, which a run told `--rate 1/1s` must not wait out (it stalled a whole minute). An answered slot
    // counts for the shorter of the two windows; one in flight counts until its answer.
    held: db.prepare<[string, number, number, number], { held: number }>(
      'SELECT COUNT(*) AS held FROM (SELECT 1 FROM limiter_slots WHERE account = ? AND free_at > ? AND (answered_at IS NULL OR answered_at > ?) LIMIT ?)',
    ),
    soonest: db.prepare<[number, string, number, number], { at: number | null }>(
      'SELECT MIN(CASE WHEN answered_at IS NULL THEN free_at ELSE MIN(free_at, answered_at + ?) END) AS at FROM limiter_slots WHERE account = ? AND free_at > ? AND (answered_at IS NULL OR answered_at > ?)',
    ),
    inFlight: db.prepare<[string, number], { id: number; pid: number; started_at: number }>(
      'SELECT id, pid, started_at FROM limiter_slots WHERE account = ? AND free_at = ?',
    ),
    expire: db.prepare<[number, number, number]>('UPDATE limiter_slots SET answered_at = ?, free_at = ? WHERE id = ? AND answered_at IS NULL'),
    insert: db.prepare<[string, number, number, number]>('INSERT INTO limiter_slots (account, pid, started_at, free_at) VALUES (?, ?, ?, ?)'),
    // Refused before an announced reset still to come: never counted, so free at it.
    answer: db.prepare<{ id: number; at: number; accepted: number; freeAt: number; account: string; sent: number | null }>(`
      UPDATE limiter_slots SET answered_at = :at, accepted = :accepted, started_at = COALESCE(:sent, started_at), free_at = COALESCE(
        (SELECT MIN(:freeAt, paused_until) FROM limiter_pause WHERE account = :account AND announced = 1 AND :at < paused_until AND :accepted = 0), :freeAt)
      WHERE id = :id`),
    release: db.prepare<[number]>('DELETE FROM limiter_slots WHERE id = ?'),
    pause: db.prepare<[string, number, number]>(`
      INSERT INTO limiter_pause (account, paused_until, announced) VALUES (?, ?, ?)
      ON CONFLICT (account) DO UPDATE SET paused_until = excluded.paused_until, announced = excluded.announced
      WHERE excluded.paused_until > limiter_pause.paused_until`),
    // What an announced reset frees (contract.ts): the refused slots, and the oldest accepted one held past it.
    refusedAtReset: db.prepare<{ account: string; until: number }>(
      'UPDATE limiter_slots SET free_at = :until WHERE account = :account AND accepted = 0 AND free_at > :until AND answered_at < :until',
    ),
    oldestAtReset: db.prepare<{ account: string; until: number; hold: number }>(`
      UPDATE limiter_slots SET free_at = :until WHERE id = (
        SELECT id FROM limiter_slots WHERE account = :account AND accepted = 1 AND answered_at < :until
          AND MIN(free_at, answered_at + :hold) > :until ORDER BY started_at, id LIMIT 1)`),
    recent: db.prepare<[string, number, number], { started_at: number }>(
      'SELECT started_at FROM limiter_slots WHERE account = ? AND accepted = 1 AND started_at < ? ORDER BY started_at DESC LIMIT 1 OFFSET ?',
    ),
    accepted: db.prepare<[string, number, number], { count: number; first: number | null }>(
      'SELECT COUNT(*) AS count, MIN(started_at) AS first FROM limiter_slots WHERE account = ? AND accepted = 1 AND started_at >= ? AND started_at < ?',
    ),
    noteReset: db.prepare<[string, number]>('INSERT OR IGNORE INTO limiter_resets (account, at) VALUES (?, ?)'),
    trimResets: db.prepare<[string, string, number]>(
      'DELETE FROM limiter_resets WHERE account = ? AND at NOT IN (SELECT at FROM limiter_resets WHERE account = ? ORDER BY at DESC LIMIT ?)',
    ),
    resets: db.prepare<[string], { at: number }>('SELECT at FROM limiter_resets WHERE account = ? ORDER BY at'),
  };

  /** In-flight slots of dead processes, or in flight too long, count as answered now. */
  const expireDead = (now: number, holdMs: number): boolean => {
    const stale = clock() - UNANSWERED_EXPIRY_MS;
    let expired = false;
    for (const s of q.inFlight.all(account, IN_FLIGHT)) {
      if ((s.pid !== process.pid && !alive(s.pid)) || s.started_at < stale) {
        q.expire.run(now, now + holdMs, s.id);
        expired = true;
      }
    }
    return expired;
  };

  let takes = 0;
  const take = db.transaction((now: number, limit: number | null, holdMs: number): TakeResult => {
    const pausedUntil = q.paused.get(account)?.paused_until ?? 0;
    if (now < pausedUntil) return { retryAt: pausedUntil, paused: true };
    // Forgetting is housekeeping: every FORGET_EVERY takes is enough, and each take stays one small write.
    if (++takes % FORGET_EVERY === 0) q.forget.run(account, now - 2 * holdMs);
    if (limit !== null && (q.rows.get()?.n ?? 0) >= limit) {
      const full = () => (q.held.get(account, now, now - holdMs, limit)?.held ?? 0) >= limit;
      if (full() && (!expireDead(now, holdMs) || full())) {
        const soonest = q.soonest.get(holdMs, account, now, now - holdMs)?.at ?? IN_FLIGHT;
        return { retryAt: soonest === IN_FLIGHT ? null : soonest, paused: false };
      }
    }
    return { id: Number(q.insert.run(account, process.pid, now, IN_FLIGHT).lastInsertRowid) };
  });

  const pause = db.transaction((until: number, announced: boolean, now: number, hold: number) => {
    const opens = now >= (q.paused.get(account)?.paused_until ?? 0);
    q.pause.run(account, until, announced ? 1 : 0);
    if (!announced) return;
    q.refusedAtReset.run({ account, until });
    if (opens) q.oldestAtReset.run({ account, until, hold });
  });

  const noteReset = db.transaction((at: number): number[] => {
    q.noteReset.run(account, at);
    q.trimResets.run(account, account, RESETS_KEPT);
    return q.resets.all(account).map((r) => r.at);
  });

  // Each step is done at once (better-sqlite3 is synchronous) and resolves; a failure is a rejection.
  return {
    shared: true,
    take: async (now, limit, holdMs) => take.immediate(now, limit, holdMs),
    async answer(id, at, accepted, freeAt, sentAt) {
      q.answer.run({ id, at, accepted: accepted ? 1 : 0, freeAt, account, sent: sentAt ?? null });
    },
    async release(id) {
      q.release.run(id);
    },
    pause: async (until, announced, now, holdMs) => pause.immediate(until, announced, now, holdMs),
    pausedUntil: async () => q.paused.get(account)?.paused_until ?? 0,
    acceptedBetween: async (from, to) => q.accepted.get(account, from, to) ?? { count: 0, first: null },
    recentAccepted: async (before, n) => q.recent.get(account, before, Math.max(0, n - 1))?.started_at ?? null,
    noteReset: async (at) => noteReset.immediate(at),
  };
}

/**
 * `shared`, until a step fails for the storage's sake (disk full, read-only, locked past the busy timeout):
 * from then on the slots of this process only, in memory, and `onTrouble` is told once why. The limiter
 * goes on pacing this run; only the pacing shared with other runs of the account is lost. A slot taken from
 * the file before the failure is left there, in flight: it expires with this process (see above).
 */
export function failoverSlots(shared: SlotStore, onTrouble: (trouble: string) => void): SlotStore {
  let local: SlotStore | null = null;
  // Ids the memory slots handed out: a ticket from the file must not answer a memory slot of the same number.
  const localIds = new Set<number>();
  const step = async <T>(onShared: (s: SlotStore) => Promise<T>, onLocal: (s: SlotStore) => Promise<T>): Promise<T> => {
    if (local !== null) return onLocal(local);
    try {
      return await onShared(shared);
    } catch (err) {
      const trouble = storageTrouble(err);
      if (trouble === null) throw err;
      // Said once, by the first step to fail (another may have failed meanwhile).
      if (local === null) {
        local = memorySlots();
        onTrouble(trouble);
      }
      return onLocal(local);
    }
  };
  const both = <T>(fn: (s: SlotStore) => Promise<T>): Promise<T> => step(fn, fn);
  const mine = (id: number, fn: (s: SlotStore) => Promise<void>) =>
    step(fn, async (s) => {
      if (localIds.delete(id)) await fn(s);
    });
  return {
    get shared() {
      return local === null;
    },
    take: (now, limit, holdMs) =>
      both(async (s) => {
        const got = await s.take(now, limit, holdMs);
        if (s === local && 'id' in got) localIds.add(got.id);
        return got;
      }),
    answer: (id, at, accepted, freeAt, sentAt) => mine(id, (s) => s.answer(id, at, accepted, freeAt, sentAt)),
    release: (id) => mine(id, (s) => s.release(id)),
    pause: (until, announced, now, holdMs) => both((s) => s.pause(until, announced, now, holdMs)),
    pausedUntil: () => both((s) => s.pausedUntil()),
    acceptedBetween: (from, to) => both((s) => s.acceptedBetween(from, to)),
    recentAccepted: (before, n) => both((s) => s.recentAccepted(before, n)),
    noteReset: (at) => both((s) => s.noteReset(at)),
  };
}
