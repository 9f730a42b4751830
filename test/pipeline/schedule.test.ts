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
    const limiter = new RateLimiter({ limit: 20, windowMs: 1000, given: true, marginMs: 10, ...t });
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
    const limiter = new RateLimiter({ limit: 2, windowMs: 100, given: true, marginMs: 0, ...t });
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
    const limiter = new RateLimiter({ limit: 100, windowMs: 1000, given: true, ...t });
    await go(limiter);
    const resumeAt = t.clock() + 5000;
    limiter.rateLimit(resumeAt);
    expect(await go(limiter)).toBeGreaterThanOrEqual(resumeAt);
    expect(limiter.pausedUntil).toBe(resumeAt);
  });

  // Changed on purpose (issue 13): the limit used to be learned from the first 429 against the configured
  // window; a configured window with no limit known is only a default, so the window is measured from two
  // resets first, and the limit then learned against it.
  it('learns an unknown limit once two resets have measured the window', async () => {
    const t = virtualTime(0);
    const learned: { requests: number; windowMs: number }[] = [];
    const limiter = new RateLimiter({ limit: null, windowMs: 60_000, given: false, marginMs: 0, onLearn: (r) => learned.push(r), ...t });
    expect(limiter.limit).toBeNull();
    for (const reset of [1000, 2000]) {
      for (let i = 0; i < 7; i++) await go(limiter);
      const rejected = await limiter.acquire();
      limiter.settle(rejected, false);
      limiter.rateLimit(reset);
    }
    expect(limiter.limit).toBe(7);
    expect(limiter.windowMs).toBe(1000);
    expect(learned).toEqual([{ requests: 7, windowMs: 1000 }]);
    // From then on it holds 7 per window (until, after two whole windows at the cap, it probes upward).
    const starts: number[] = [];
    for (let i = 0; i < 14; i++) starts.push(await go(limiter));
    expect(maxInAnyFixedWindow(starts, 1000, 0)).toBeLessThanOrEqual(7);
  });

  it('learns from the first 429 when it names no reset, pausing to the next boundary of the window', async () => {
    const t = virtualTime(0);
    const learned: { requests: number; windowMs: number }[] = [];
    const limiter = new RateLimiter({ limit: null, windowMs: 1000, given: false, marginMs: 0, onLearn: (r) => learned.push(r), ...t });
    await t.sleep(300);
    for (let i = 0; i < 7; i++) await go(limiter);
    limiter.rateLimit(null);
    expect(limiter.pausedUntil).toBe(1000);
    expect(limiter.limit).toBe(7);
    expect(learned).toEqual([{ requests: 7, windowMs: 1000 }]);
  });

  it('resumes at an announced reset, not a window after the last answer', async () => {
    const t = virtualTime(0);
    const limiter = new RateLimiter({ limit: 5, windowMs: 60_000, given: true, ...t });
    for (let i = 0; i < 5; i++) await go(limiter);
    limiter.rateLimit(2000);
    // The slots answered before the reset were counted in the window that ends there: free at it.
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) starts.push(await go(limiter));
    expect(starts).toEqual([2000, 2000, 2000, 2000, 2000]);
    // Those answered after the reset are held a whole window again.
    expect(await go(limiter)).toBeGreaterThanOrEqual(62_000);
  });

  it('never changes a limit the user gave, whatever a 429 shows', async () => {
    const t = virtualTime(0);
    const learned: unknown[] = [];
    const limiter = new RateLimiter({ limit: 10, windowMs: 1000, given: true, marginMs: 0, onLearn: (r) => learned.push(r), ...t });
    for (const reset of [1000, 2000, 3000]) {
      for (let i = 0; i < 3; i++) await go(limiter);
      limiter.rateLimit(reset);
      await t.sleep(reset - t.clock());
    }
    expect(limiter.limit).toBe(10);
    expect(limiter.windowMs).toBe(1000);
    expect(learned).toEqual([]);
  });

  it('lowers and raises a learned limit: a 429 re-measures it, whole windows at the cap probe upward', async () => {
    const t = virtualTime(0);
    const learned: number[] = [];
    const limiter = new RateLimiter({ limit: 4, windowMs: 1000, given: false, marginMs: 0, onLearn: (r) => learned.push(r.requests), ...t });
    // Demand waits at the cap for two whole windows with no 429: the limit is raised by a quarter.
    for (let i = 0; i < 20 && limiter.limit === 4; i++) await go(limiter);
    expect(limiter.limit).toBe(5);
    expect(t.clock()).toBeGreaterThanOrEqual(2000);
    // A 429 measures what the service accepted in the window ending at its reset: 3 (another client took the rest).
    await t.sleep(5000);
    for (let i = 0; i < 3; i++) await go(limiter);
    limiter.rateLimit(t.clock() + 1000);
    expect(limiter.limit).toBe(3);
    for (let i = 0; i < 30; i++) await go(limiter);
    expect(limiter.limit).toBeGreaterThan(3);
    expect(learned.slice(0, 2)).toEqual([5, 3]);
  });

  it('gives a released slot to the next waiter at once', async () => {
    const now = 0;
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, given: true, clock: () => now, sleep: async () => {} });
    const a = await limiter.acquire();
    const next = limiter.acquire();
    await new Promise((r) => setTimeout(r, 5));
    limiter.release(a);
    const b = await next;
    expect(b.startedAt).toBe(0);
    expect(now).toBe(0);
  });

  it('holds a slot until one window after the answer, whenever the service counted it', async () => {
    const t = virtualTime(0);
    const limiter = new RateLimiter({ limit: 2, windowMs: 1000, given: true, marginMs: 0, ...t });
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
    const limiter = new RateLimiter({ limit: 1, windowMs: 100, given: true, marginMs: 0, clock: () => now, sleep: async (ms) => void (now += ms) });
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
    const limiter = new RateLimiter({ limit: 1, windowMs: 60_000, given: true });
    await go(limiter);
    const ac = new AbortController();
    const pending = limiter.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
