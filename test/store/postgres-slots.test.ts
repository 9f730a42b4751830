// The limiter's slots in PostgreSQL: the semantics of the SQLite slots (test/store/slots.test.ts) on a clock
// the test moves, each handle standing for a machine; then on the server's clock, with machines whose own
// clocks disagree by hours, and many machines taking at the same instant.
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/run/limit/limiter.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { AccountState, SlotStore } from '../../src/store/contract.js';
import { openPostgresAccount } from '../../src/store/postgres/backend.js';
import { LEASE_MS } from '../../src/store/postgres/url.js';
import { drive, requestsByTime } from '../helpers/limiter.js';
import { freshSchema, PG_URL, roundTrips, sql, urlOf } from './postgres-helpers.js';

const BASE = 'http://127.0.0.1/api/v1';
const KEY = 'k-one';

const opened: AccountState[] = [];
/** The slots of an account, as a machine opens them; `clock` stands for the server's (null: the server's own). */
async function slotsOf(schema: string, clock: (() => number) | null = () => 0, key = KEY): Promise<SlotStore> {
  const account = await openPostgresAccount(urlOf(schema), { baseUrl: BASE, key, ...(clock === null ? {} : { clock }) });
  opened.push(account);
  return account.slots;
}
const closeAll = () => Promise.all(opened.splice(0).map((a) => a.close()));
const idOf = (got: { id: number } | { retryAt: number | null }): number => {
  if (!('id' in got)) throw new Error(`refused: ${JSON.stringify(got)}`);
  return got.id;
};

describe.skipIf(PG_URL === null)('PostgreSQL slots, on a clock the test moves', () => {
  it('holds at most `limit` slots until each frees, and none during a pause', async () => {
    const s = await slotsOf(freshSchema());
    expect(s.shared).toBe(true);
    const a = idOf(await s.take(0, 2, 1000));
    const b = idOf(await s.take(0, 2, 1000));
    expect(await s.take(0, 2, 1000)).toEqual({ retryAt: null, paused: false });
    await s.answer(a, 100, true, 1100);
    await s.answer(b, 200, true, 1200);
    expect(await s.take(500, 2, 1000)).toEqual({ retryAt: 1100, paused: false });
    idOf(await s.take(1100, 2, 1000));
    await s.pause(3000, false, 1100, 1000);
    expect(await s.pausedUntil()).toBe(3000);
    expect(await s.take(2000, null, 1000)).toEqual({ retryAt: 3000, paused: true });
    expect(await s.acceptedBetween(0, 1000)).toEqual({ count: 2, first: 0 });
    expect(await s.acceptedBetween(1, 1000)).toEqual({ count: 0, first: null });
    await closeAll();
  });

  it('gives a released slot back at once, and keeps announced resets each once, oldest first', async () => {
    const s = await slotsOf(freshSchema());
    const a = idOf(await s.take(0, 1, 1000));
    expect(await s.take(0, 1, 1000)).toEqual({ retryAt: null, paused: false });
    await s.release(a);
    idOf(await s.take(0, 1, 1000));
    await s.noteReset(4000);
    await s.noteReset(2000);
    expect(await s.noteReset(2000)).toEqual([2000, 4000]);
    for (let i = 0; i < 20; i++) await s.noteReset(10_000 + i * 1000);
    const kept = await s.noteReset(40_000);
    expect(kept).toHaveLength(16);
    expect(kept.at(-1)).toBe(40_000);
    await closeAll();
  });

  it("counts another machine's answers for this machine's window, not a longer one it held them for", async () => {
    const schema = freshSchema();
    const a = await slotsOf(schema);
    const x = idOf(await a.take(0, 60, 60_000));
    const y = idOf(await a.take(100, 60, 60_000));
    await a.answer(x, 50, true, 60_050);
    await a.answer(y, 150, true, 60_150);
    const b = await slotsOf(schema, () => 1_200);
    idOf(await b.take(1_200, 1, 1_000));
    const c = await slotsOf(schema, () => 1_200);
    expect(await c.take(1_300, 2, 60_000)).toEqual({ retryAt: 60_050, paused: false });
    // An answer within the taker's window is waited for until it is a window old (the shorter hold).
    const other = freshSchema();
    const d = await slotsOf(other);
    await d.answer(idOf(await d.take(0, 60, 60_000)), 500, true, 60_500);
    expect(await (await slotsOf(other, () => 900)).take(900, 1, 1_000)).toEqual({ retryAt: 1_500, paused: false });
    await closeAll();
  });

  it('shares slots, pauses and resets between machines of one account, and not with another account', async () => {
    const schema = freshSchema();
    const [one, two, stranger] = [await slotsOf(schema), await slotsOf(schema), await slotsOf(schema, () => 0, 'k-other')];
    idOf(await one.take(0, 1, 1000));
    expect(await two.take(0, 1, 1000)).toEqual({ retryAt: null, paused: false });
    idOf(await stranger.take(0, 1, 1000));
    await two.pause(5000, true, 0, 1000);
    expect(await one.pausedUntil()).toBe(5000);
    expect(await stranger.pausedUntil()).toBe(0);
    await one.noteReset(5000);
    expect(await two.noteReset(7000)).toEqual([5000, 7000]);
    await closeAll();
  });

  it('counts a slot in flight as answered when its machine is silent for a lease, or when in flight too long', async () => {
    const schema = freshSchema();
    const dead = await slotsOf(schema);
    idOf(await dead.take(0, 1, 1000));
    const other = await slotsOf(schema, () => 50);
    // Its machine still beats: held until its answer.
    expect(await other.take(50, 1, 1000)).toEqual({ retryAt: null, paused: false });
    await sql(`UPDATE ${schema}.runs SET last_seen = last_seen - $1 WHERE id = (SELECT run_id FROM ${schema}.limiter_slots LIMIT 1)`, [LEASE_MS + 1]);
    // Counted as answered when found dead: held one more window, then free.
    expect(await other.take(50, 1, 1000)).toEqual({ retryAt: 1050, paused: false });
    idOf(await other.take(1050, 1, 1000));
    // A live machine's slot in flight for more than five minutes is taken for dead too.
    expect(await other.take(6 * 60_000, 1, 1000)).toEqual({ retryAt: 6 * 60_000 + 1000, paused: false });
    await closeAll();
  });
});

describe.skipIf(PG_URL === null)("PostgreSQL slots, on the server's clock", () => {
  it('agrees across machines whose clocks are hours apart: each is told times on its own clock', async () => {
    const schema = freshSchema();
    const HOUR = 3_600_000;
    const ahead = () => Date.now() + HOUR;
    const behind = () => Date.now() - 2 * HOUR;
    const [a, b] = [await slotsOf(schema, null), await slotsOf(schema, null)];
    const slot = idOf(await a.take(ahead(), 1, 400));
    expect(await b.take(behind(), 1, 400)).toEqual({ retryAt: null, paused: false });
    const answeredAt = ahead();
    await a.answer(slot, answeredAt, true, answeredAt + 400);
    const asked = behind();
    const refused = await b.take(asked, 1, 400);
    if (!('retryAt' in refused) || refused.retryAt === null) throw new Error(`expected a time: ${JSON.stringify(refused)}`);
    // Free 400 ms after the answer, said on b's clock: within the time the steps took.
    expect(refused.retryAt - asked).toBeGreaterThan(300);
    expect(refused.retryAt - asked).toBeLessThanOrEqual(400);
    // A pause one machine sets ends, on the other's clock, at the same instant.
    await a.pause(ahead() + 2000, true, ahead(), 400);
    const until = await b.pausedUntil();
    expect(Math.abs(until - (behind() + 2000))).toBeLessThan(100);
    expect((await b.acceptedBetween(behind() - 5000, behind() + 1)).count).toBe(1);
    await closeAll();
  });

  it('gives exactly `limit` slots to many machines taking at the same instant, in one round trip a take', async () => {
    const schema = freshSchema();
    const machines = await Promise.all(Array.from({ length: 8 }, () => slotsOf(schema, null)));
    const now = Date.now();
    const got = await Promise.all(machines.flatMap((m) => [m.take(now, 10, 60_000), m.take(now, 10, 60_000), m.take(now, 10, 60_000)]));
    expect(got.filter((g) => 'id' in g)).toHaveLength(10);
    expect(got.filter((g) => 'retryAt' in g && g.retryAt === null && !g.paused)).toHaveLength(14);
    const one = machines[0] as SlotStore;
    const { n } = await roundTrips(() => one.take(Date.now(), null, 60_000));
    expect(n).toBe(1);
    await closeAll();
  });

  it('paces two machines of one account together: no 429, the rate split, then all of it for the one left', async () => {
    // Half-second windows: real time (three shared, three alone), and a statement is a few ms beside either.
    const W = 500;
    const rpm = 10;
    const sb = await startSandbox({ rpm, windowMs: W });
    const schema = freshSchema();
    try {
      // Each limiter with a pool of its own, as on two machines; the slots on the server's clock.
      const limiter = async (machine: number) => {
        const account = await openPostgresAccount(urlOf(schema, machine), { baseUrl: BASE, key: KEY });
        opened.push(account);
        return new RateLimiter({ limit: rpm, windowMs: W, given: true, slots: account.slots });
      };
      const [one, two] = [await limiter(1), await limiter(2)];
      const start = Date.now();
      const firstEnd = start + 3 * W;
      const secondEnd = start + 7 * W;
      const [a, b] = await Promise.all([drive(sb, one, { until: firstEnd, key: sb.key }), drive(sb, two, { until: secondEnd, key: sb.newKey() })]);
      const log = requestsByTime(sb);
      expect(log.filter((r) => r.status === 429)).toEqual([]);
      expect(a.limited + b.limited).toBe(0);
      const aKey = `Bearer ${sb.key}`;
      const shared = log.filter((r) => r.time < firstEnd);
      const aShare = shared.filter((r) => r.authorization === aKey).length / shared.length;
      expect(aShare).toBeGreaterThan(0.2);
      expect(aShare).toBeLessThan(0.8);
      const alone = log.filter((r) => r.time >= firstEnd + W && r.time < secondEnd);
      expect(alone.every((r) => r.authorization !== aKey)).toBe(true);
      expect(alone.length).toBeGreaterThanOrEqual(2 * rpm);
    } finally {
      await closeAll();
      await sb.close();
    }
  });
});
