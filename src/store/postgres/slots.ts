// The limiter's slots of one account in PostgreSQL, shared by every machine of the account: each step one
// call of a function of sql-account.ts (one round trip, one short transaction under the account's advisory
// lock), timed by the server's clock and translated to and from the limiter's by the offset each step
// measures (see there). Unlike the SQLite slots, a failure is never met by pacing alone: the rate is the
// account's, several machines spend it, and a run that cannot reach the store stops rather than guess.
import type { SlotStore, TakeResult } from '../contract.js';
import { type Db, LEASE } from './pool.js';
import type { Presence } from './presence.js';

/** Forgetting old slots is housekeeping: every FORGET_EVERY takes is enough, and each take stays small. */
const FORGET_EVERY = 64;

/**
 * The slots of `account` in schema `s`. `clock`: a clock of the caller's (tests) that stands for the server's
 * (the steps then use the limiter's times as they are, as SQLite does); null: the server's clock.
 */
export function postgresSlots(db: Db, s: string, account: string, presence: Presence, clock: (() => number) | null): SlotStore {
  const fixed = clock !== null;
  // The limiter's time now, for the steps that are given none (pause, reads): the last time a step was given,
  // moved on by the time passed since. Only the offset it yields matters, and that is measured against it.
  let last: { at: number; real: number } | null = null;
  const given = (at: number): number => {
    last = { at, real: performance.now() };
    return Math.round(at);
  };
  const limiterNow = (): number => {
    if (clock !== null) return clock();
    return last === null ? Date.now() : Math.round(last.at + (performance.now() - last.real));
  };
  // Each step commits without waiting for its WAL to reach the disk (LEASE, pool.ts): a slot is a lease of
  // the rate, not a paid answer.
  const call = <R>(fn: string, args: unknown[]) =>
    db.query<R>(`SELECT ${fn}.* FROM ${LEASE}, ${s}.${fn}(${args.map((_, i) => `$${i + 1}`).join(', ')}) AS ${fn}`, args);
  let takes = 0;

  return {
    shared: true,
    async take(now, limit, holdMs): Promise<TakeResult> {
      await presence.ensure();
      const [r] = await call<{ slot_id: number | null; retry_at: number | null; paused: boolean | null }>('slot_take', [
        account,
        presence.id,
        given(now),
        fixed,
        limit,
        Math.round(holdMs),
        ++takes % FORGET_EVERY === 0,
        presence.leaseMs,
      ]);
      if (r?.slot_id !== null && r?.slot_id !== undefined) return { id: r.slot_id };
      return { retryAt: r?.retry_at ?? null, paused: r?.paused === true };
    },
    async answer(id, at, accepted, freeAt, sentAt) {
      const sent = sentAt === undefined ? null : Math.round(sentAt);
      await call('slot_answer', [account, id, given(at), fixed, accepted, Math.round(freeAt - at), sent === null ? null : sent - Math.round(at)]);
    },
    async release(id) {
      await call('slot_release', [account, id]);
    },
    async pause(until, announced, now, holdMs) {
      await call('slot_pause', [account, given(now), fixed, Math.round(until), announced, Math.round(holdMs)]);
    },
    async pausedUntil() {
      const [r] = await call<{ slot_paused_until: number }>('slot_paused_until', [account, limiterNow(), fixed]);
      return r?.slot_paused_until ?? 0;
    },
    async acceptedBetween(from, to) {
      const [r] = await call<{ count: number; first: number | null }>('slot_accepted', [account, limiterNow(), fixed, Math.round(from), Math.round(to)]);
      return { count: r?.count ?? 0, first: r?.first ?? null };
    },
    async recentAccepted(before, n) {
      const [r] = await call<{ slot_recent_accepted: number | null }>('slot_recent_accepted', [account, limiterNow(), fixed, Math.round(before), n]);
      return r?.slot_recent_accepted ?? null;
    },
    async noteReset(at) {
      const rows = await call<{ slot_note_reset: number }>('slot_note_reset', [account, limiterNow(), fixed, Math.round(at)]);
      return rows.map((r) => r.slot_note_reset);
    },
  };
}
