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

/** Acquires a slot and reports it answered at once (a request with no latency); returns its start. */
async function go(limiter: RateLimiter, signal?: AbortSignal): Promise<number> {
  const t = await limiter.acquire(signal);
  limiter.settle(t, true);
  return t.startedAt;
}

describe('RateLimiter', () => {
  it('never lets more than the limit start in any window, wherever the window begins', async () => {
    const t = virtualTime();
    const limiter = new RateLimiter({ limit: 20, windowMs: 1000, marginMs: 10, ...t });
    const starts: number[] = [];
    for (let i = 0; i < 200; i++) starts.push(await go(limiter));
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
    await Promise.all(
      [0, 1, 2, 3, 4].map(async (i) => {
        await go(limiter);
        order.push(i);
      }),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('pauses every worker until a 429 reset', async () => {
    const t = virtualTime();
    const limiter = new RateLimiter({ limit: 100, windowMs: 1000, ...t });
    await go(limiter);
    const resumeAt = t.clock() + 5000;
    limiter.rateLimit(resumeAt);
    expect(await go(limiter)).toBeGreaterThanOrEqual(resumeAt);
    expect(limiter.pausedUntil).toBe(resumeAt);
  });

  it('learns an unknown limit from the first 429', async () => {
    const t = virtualTime(0);
    const learned: number[] = [];
    const limiter = new RateLimiter({ limit: null, windowMs: 1000, marginMs: 0, onLearn: (n) => learned.push(n), ...t });
    expect(limiter.limit).toBeNull();
    for (let i = 0; i < 7; i++) await go(limiter);
    const rejected = await limiter.acquire();
    limiter.settle(rejected, false);
    limiter.rateLimit(1000);
    expect(limiter.limit).toBe(7);
    expect(learned).toEqual([7]);
    // From then on it holds 7 per window.
    const starts: number[] = [];
    for (let i = 0; i < 30; i++) starts.push(await go(limiter));
    expect(maxInAnyFixedWindow(starts, 1000, 0)).toBeLessThanOrEqual(7);
  });

  it('holds a slot until one window after the answer, whenever the service counted it', async () => {
    const t = virtualTime(0);
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, marginMs: 0, ...t });
    const a = await limiter.acquire();
    const b = await limiter.acquire();
    // a's answer takes 300 ms: the service may have counted it at any time up to then.
    t.sleep(300);
    limiter.settle(a, true);
    limiter.settle(b, true);
    const c = await limiter.acquire();
    expect(c.startedAt).toBe(1300);
  });

  it('waits for an answer still in flight rather than guessing when it was counted', async () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, marginMs: 0, clock: () => now, sleep: async (ms) => void (now += ms) });
    const a = await limiter.acquire();
    let settled = false;
    const next = limiter.acquire().then((x) => {
      expect(settled).toBe(true);
      return x;
    });
    await new Promise((r) => setTimeout(r, 5));
    settled = true;
    limiter.settle(a, true);
    const b = await next;
    expect(b.startedAt).toBeGreaterThanOrEqual((a.answeredAt ?? 0) + 100);
  });

  it('stops waiting when aborted', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 60_000 });
    await go(limiter);
    const ac = new AbortController();
    const pending = limiter.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
