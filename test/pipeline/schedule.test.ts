import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/pipeline/schedule.js';

/** A virtual clock: sleeping advances time instantly, so a minute of limiting runs in microseconds. */
function virtualTime(start = 1_000_000) {
  let now = start;
  return {
    clock: () => now,
    sleep: async (ms: number) => {
      now += Math.max(0, ms);
    },
  };
}

function maxInAnyFixedWindow(starts: number[], windowMs: number, offset: number): number {
  const counts = new Map<number, number>();
  for (const t of starts) {
    const w = Math.floor((t - offset) / windowMs);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return Math.max(...counts.values());
}

describe('RateLimiter', () => {
  it('never lets more than the limit start in any window, wherever the window begins', async () => {
    const t = virtualTime();
    const limiter = new RateLimiter({ limit: 20, windowMs: 1000, marginMs: 10, ...t });
    const starts: number[] = [];
    for (let i = 0; i < 200; i++) starts.push(await limiter.acquire());
    for (const offset of [0, 1, 250, 500, 999]) expect(maxInAnyFixedWindow(starts, 1000, offset)).toBeLessThanOrEqual(20);
    // and uses the limit to the full: 200 requests at 20 per ~1.01 s take about 9 windows
    const span = (starts.at(-1) ?? 0) - (starts[0] ?? 0);
    expect(span).toBeLessThan(9 * 1010 + 1);
    expect(span).toBeGreaterThanOrEqual(9 * 1000);
  });

  it('serves concurrent waiters in arrival order', async () => {
    const t = virtualTime();
    const limiter = new RateLimiter({ limit: 2, windowMs: 100, marginMs: 0, ...t });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3, 4].map(async (i) => {
      await limiter.acquire();
      order.push(i);
    }));
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('pauses every worker until a 429 reset', async () => {
    const t = virtualTime();
    const limiter = new RateLimiter({ limit: 100, windowMs: 1000, ...t });
    await limiter.acquire();
    const resumeAt = t.clock() + 5000;
    limiter.rateLimit(resumeAt);
    expect(await limiter.acquire()).toBeGreaterThanOrEqual(resumeAt);
    expect(limiter.rateLimited).toBe(1);
  });

  it('learns an unknown limit from the first 429', async () => {
    const t = virtualTime(0);
    const learned: number[] = [];
    const limiter = new RateLimiter({ limit: null, windowMs: 1000, marginMs: 0, onLearn: (n) => learned.push(n), ...t });
    expect(limiter.limit).toBeNull();
    for (let i = 0; i < 7; i++) limiter.settle(await limiter.acquire(), true);
    const rejected = await limiter.acquire();
    limiter.settle(rejected, false);
    limiter.rateLimit(1000);
    expect(limiter.limit).toBe(7);
    expect(learned).toEqual([7]);
    // From then on it holds 7 per window.
    const starts: number[] = [];
    for (let i = 0; i < 30; i++) starts.push(await limiter.acquire());
    expect(maxInAnyFixedWindow(starts, 1000, 0)).toBeLessThanOrEqual(7);
  });

  it('stops waiting when aborted', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 60_000 });
    await limiter.acquire();
    const ac = new AbortController();
    const pending = limiter.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
