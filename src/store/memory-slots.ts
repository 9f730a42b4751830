// The rate limiter's slots (run/limit/limiter.ts) for one run, in memory: the default for library callers. The
// SQLite store (sqlite/slots.ts) keeps the same slots in a file that every process of an account shares, and
// PostgreSQL (postgres/sql-account*.ts) in a database every machine shares: the three follow one rule for what
// a pause frees (contract.ts; why: run/limit/window-bounds.ts).
import type { SlotStore, TakeResult } from './contract.js';

interface Slot {
  id: number;
  startedAt: number;
  /** Null while in flight. */
  freeAt: number | null;
  answeredAt: number | null;
  accepted: boolean;
}

/** How many announced resets are kept for reading the window length. */
export const RESETS_KEPT = 16;

/** Slots held in memory, for one run. */
export function memorySlots(): SlotStore {
  // Oldest first; answered slots stay a while after they free, for learning what the service accepted.
  const slots: Slot[] = [];
  const byId = new Map<number, Slot>();
  let nextId = 1;
  let pausedUntil = 0;
  let announced = false;
  const resets: number[] = [];

  // From the front only, so a take stays O(1) with no limit; one slow answer delays forgetting a little.
  const forget = (before: number) => {
    let drop = 0;
    for (const s of slots) {
      if (s.freeAt === null || s.freeAt >= before) break;
      byId.delete(s.id);
      drop++;
    }
    if (drop > 0) slots.splice(0, drop);
  };

  return {
    shared: false,
    async take(now: number, limit: number | null, holdMs: number): Promise<TakeResult> {
      if (now < pausedUntil) return { retryAt: pausedUntil, paused: true };
      forget(now - 2 * holdMs);
      // Fewer slots than the limit, held or not: no need to count them.
      if (limit !== null && slots.length >= limit) {
        let held = 0;
        let soonest: number | null = null;
        for (const s of slots) {
          // Answered slots are held by the taker's window too, as in sqlite/slots.ts: whichever frees first.
          const freeAt = s.freeAt === null || s.answeredAt === null ? s.freeAt : Math.min(s.freeAt, s.answeredAt + holdMs);
          if (freeAt !== null && freeAt <= now) continue;
          if (freeAt !== null) soonest = soonest === null ? freeAt : Math.min(soonest, freeAt);
          held++;
        }
        if (held >= limit) return { retryAt: soonest, paused: false };
      }
      const slot: Slot = { id: nextId++, startedAt: now, freeAt: null, answeredAt: null, accepted: false };
      slots.push(slot);
      byId.set(slot.id, slot);
      return { id: slot.id };
    },
    async answer(id, at, accepted, freeAt, sentAt) {
      const slot = byId.get(id);
      if (!slot) return;
      if (sentAt !== undefined) slot.startedAt = sentAt;
      slot.answeredAt = at;
      slot.accepted = accepted;
      slot.freeAt = !accepted && announced && at < pausedUntil ? Math.min(freeAt, pausedUntil) : freeAt;
    },
    async release(id) {
      const slot = byId.get(id);
      if (!slot) return;
      byId.delete(id);
      slots.splice(slots.indexOf(slot), 1);
    },
    async pause(until, isAnnounced, now, holdMs) {
      const opens = now >= pausedUntil;
      if (until > pausedUntil) [pausedUntil, announced] = [until, isAnnounced];
      if (!isAnnounced) return;
      let oldest: Slot | null = null;
      for (const s of slots) {
        if (s.freeAt === null || s.answeredAt === null || s.answeredAt >= until || Math.min(s.freeAt, s.answeredAt + holdMs) <= until) continue;
        if (!s.accepted) s.freeAt = until;
        else if (opens && (oldest === null || s.startedAt < oldest.startedAt)) oldest = s;
      }
      if (oldest !== null) oldest.freeAt = until;
    },
    pausedUntil: async () => pausedUntil,
    async acceptedBetween(from, to) {
      let count = 0;
      let first: number | null = null;
      for (const s of slots) {
        if (!s.accepted || s.startedAt < from || s.startedAt >= to) continue;
        count++;
        first = first === null ? s.startedAt : Math.min(first, s.startedAt);
      }
      return { count, first };
    },
    async recentAccepted(before, n) {
      const starts = slots.filter((s) => s.accepted && s.startedAt < before).map((s) => s.startedAt);
      return starts.sort((a, b) => b - a)[n - 1] ?? null;
    },
    async noteReset(at) {
      if (resets.includes(at)) return [...resets];
      resets.push(at);
      if (resets.length > RESETS_KEPT) resets.shift();
      return [...resets];
    },
  };
}
