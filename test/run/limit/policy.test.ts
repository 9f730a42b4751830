// The limiter's policy (run/limit/policy.ts), the library's own: a rate given is kept, else the account's
// learned rate, else learned; the slots are the account's; what is learned is kept only when nothing was said.
// And enrich() builds it itself from a rate and an account, so a library caller gets both.
import { afterEach, describe, expect, it } from 'vitest';
import { enrich } from '../../../src/run/enrich.js';
import { givenRate, pacedLimiter } from '../../../src/run/limit/policy.js';
import { memoryAccount } from '../../../src/store/account.js';
import { harness, type Harness } from '../../helpers/run.js';

const A = 'https://api.example/api/v1';
const KEY = `di_live_${'0123456789abcdef'.repeat(3)}`;

/** A virtual clock: sleeping advances time at once. */
function virtualTime(start = 0) {
  let now = start;
  return {
    clock: () => now,
    sleep: async (ms: number) => {
      now += Math.max(0, ms);
    },
  };
}

describe('the pacing policy', () => {
  it("a rate given is kept, never learned over nor stored; the account's slots hold its requests", async () => {
    const account = memoryAccount(A, KEY);
    await account.saveLearnedRate({ requests: 50, windowMs: 60_000 });
    const learned: unknown[] = [];
    const t = virtualTime();
    const limiter = await pacedLimiter({ rate: { requests: 3, windowMs: 1000 }, account, onLearn: (r) => learned.push(r), ...t });
    expect([limiter.limit, limiter.windowMs]).toEqual([3, 1000]);
    const ticket = await limiter.acquire();
    await limiter.settle(ticket, true);
    expect(await account.slots.acceptedBetween(0, 1)).toEqual({ count: 1, first: 0 });
    await limiter.rateLimit(1000);
    expect(limiter.limit).toBe(3);
    expect(learned).toEqual([]);
    expect(await account.learnedRate()).toEqual({ requests: 50, windowMs: 60_000 });
  });

  it("nothing said: the account's learned rate stands until the service says otherwise, and the new one is kept", async () => {
    const account = memoryAccount(A, KEY);
    await account.saveLearnedRate({ requests: 7, windowMs: 1000 });
    const learned: unknown[] = [];
    const t = virtualTime();
    const limiter = await pacedLimiter({ account, windowMs: 60_000, onLearn: (r) => learned.push(r), ...t });
    expect([limiter.limit, limiter.windowMs]).toEqual([7, 1000]);
    // The service counted 4 in the window that ends at its reset: fewer than learned, another client shares it.
    for (let i = 0; i < 4; i++) await limiter.settle(await limiter.acquire(), true);
    await limiter.rateLimit(1000);
    expect(limiter.limit).toBe(4);
    expect(learned).toEqual([{ requests: 4, windowMs: 1000 }]);
    expect(await account.learnedRate()).toEqual({ requests: 4, windowMs: 1000 });
  });

  it('a run stopped after one reset keeps what it learned, unconfirmed; the next starts from it and confirms it', async () => {
    const account = memoryAccount(A, KEY);
    const learned: unknown[] = [];
    const t = virtualTime();
    const first = await pacedLimiter({ account, windowMs: 60_000, onLearn: (r) => learned.push(r), ...t });
    for (let i = 0; i < 3; i++) await first.settle(await first.acquire(), true);
    await first.rateLimit(1000); // one reset: 3 requests, in a window of at least 1000 ms
    expect(learned).toEqual([]); // not announced: the window is only bounded
    expect(await account.learnedRate()).toEqual({ requests: 3, windowMs: 1000, unconfirmed: true });
    // The next run (the first stopped here) paces at it from its first request, and a second reset a window
    // after the first confirms it: only then is it announced, and kept as confirmed.
    const next = await pacedLimiter({ account, windowMs: 60_000, onLearn: (r) => learned.push(r), ...t });
    expect([next.limit, next.windowMs]).toEqual([3, 1000]);
    expect(next.measured).toEqual({ requests: 3, windowMs: 1000, confirmed: false });
    for (let i = 0; i < 3; i++) await next.settle(await next.acquire(), true);
    expect(t.clock()).toBeGreaterThanOrEqual(1000); // the first run's pause and slots held it
    await next.rateLimit(2000);
    expect(learned).toEqual([{ requests: 3, windowMs: 1000 }]);
    expect(await account.learnedRate()).toEqual({ requests: 3, windowMs: 1000 });
  });

  it('pacing turned off (--rpm 0): no limit, and the learned rate neither used nor kept', async () => {
    const account = memoryAccount(A, KEY);
    await account.saveLearnedRate({ requests: 7, windowMs: 1000 });
    const learned: unknown[] = [];
    const limiter = await pacedLimiter({ rate: null, account, windowMs: 60_000, onLearn: (r) => learned.push(r), ...virtualTime() });
    expect(limiter.limit).toBeNull();
    // Two resets a window apart measure the window, each after 3 requests: learned, for this run only.
    for (let i = 0; i < 3; i++) await limiter.settle(await limiter.acquire(), true);
    await limiter.rateLimit(1000);
    for (let i = 0; i < 3; i++) await limiter.settle(await limiter.acquire(), true);
    await limiter.rateLimit(2000);
    expect(learned).toEqual([{ requests: 3, windowMs: 1000 }]);
    expect(await account.learnedRate()).toEqual({ requests: 7, windowMs: 1000 });
  });

  it('reads the rate given from the resolved configuration: a plan or rate, pacing off, or nothing said', () => {
    expect(givenRate({ rpm: 300, windowMs: 60_000, sources: { rate: 'plan' } } as never)).toEqual({ requests: 300, windowMs: 60_000 });
    expect(givenRate({ rpm: null, windowMs: 60_000, sources: { rate: 'flag' } } as never)).toBeNull();
    expect(givenRate({ rpm: null, windowMs: 60_000, sources: { rate: 'default' } } as never)).toBeUndefined();
  });
});

describe('enrich paces by its own policy', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("given a rate and an account and no limiter, sends every request through the account's slots", async () => {
    h = await harness({ rpm: 0 });
    const account = memoryAccount(h.sb.baseUrl, h.sb.key);
    const from = Date.now();
    const run = enrich(h.sb.hostList().slice(0, 250), { kind: 'profile', client: h.client, store: h.cache, account, rate: { requests: 100, windowMs: 1000 } });
    for await (const _ of run.batches());
    expect(h.sb.requests()).toHaveLength(3);
    expect((await account.slots.acceptedBetween(from, Date.now() + 1)).count).toBe(3);
  });
});
