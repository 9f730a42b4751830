// The progress line's figures, the ETA above all, against a known pace with a fake clock: the ETA must be the
// time the limiter will actually take, not the run's own pace so far (a burst of a window's requests at the
// start made that read "ETA 4s" at 4 s into a 70-s run).
import { describe, expect, it } from 'vitest';
import { etaMs, liveFigures, type Pace, progressFigures } from '../../../src/cli/report/progress-figures.js';
import { emptyStats } from '../../../src/run/stats.js';

const WINDOW = 60_000;
const pace = (over: Partial<Pace> = {}): Pace => ({ limit: 60, windowMs: WINDOW, batchSize: 100, held: 0, oldestHeldAt: null, pausedUntil: 0, ...over });

describe('etaMs', () => {
  it('at the start of a run the rate limit sets: a window of requests now, the rest a window later', () => {
    // 6,845 hosts: 69 requests at 60 a minute: 60 go now, 9 when the first slots free, a minute on.
    expect(etaMs({ now: 0, hostsLeft: 6_845, requestsSent: 0, startedAt: 0, pace: pace() })).toBe(60_000);
  });

  it('right after the first burst it waits out the window, however fast the burst went', () => {
    // 60 requests (6,000 hosts) answered within a second: the run's own pace says 845 more take 0.14 s.
    const eta = etaMs({ now: 1_000, hostsLeft: 845, requestsSent: 60, startedAt: 0, pace: pace({ held: 60, oldestHeldAt: 0 }) });
    expect(eta).toBe(59_000);
  });

  it('follows a whole run at a known pace: at every second, the time the limiter will take', () => {
    // 10 requests per 10 s, 100 hosts each, 3,500 hosts: requests go at 0, 10, 20 and 30 s (5 then); the last
    // answer (no latency) comes at 30 s.
    const limit = 10;
    const windowMs = 10_000;
    const sentAt: number[] = [];
    for (let t = 0; t <= 30_000; t += 1_000) {
      // The limiter's schedule: a request whenever fewer than `limit` were sent in the last window.
      while (sentAt.length < 35 && sentAt.filter((s) => s > t - windowMs).length < limit) sentAt.push(t);
      const held = sentAt.filter((s) => s > t - windowMs);
      const done = sentAt.length * 100;
      const left = 3_500 - done;
      const eta = etaMs({
        now: t,
        hostsLeft: left,
        requestsSent: sentAt.length,
        startedAt: 0,
        pace: { limit, windowMs, batchSize: 100, held: held.length, oldestHeldAt: held[0] ?? null, pausedUntil: 0 },
      });
      expect({ t, eta }).toEqual({ t, eta: left === 0 ? 0 : 30_000 - t });
    }
  });

  it('when latency, not the limit, sets the pace, the pace the run has managed', () => {
    // 10 requests in 10 s with room to spare under the limit: 40 more take 40 s.
    const eta = etaMs({ now: 10_000, hostsLeft: 4_000, requestsSent: 10, startedAt: 0, pace: pace({ limit: 10_000, held: 10, oldestHeldAt: 1_000 }) });
    expect(eta).toBe(40_000);
  });

  it('with no limit known, the managed pace alone; before any answer, none', () => {
    expect(etaMs({ now: 10_000, hostsLeft: 4_000, requestsSent: 10, startedAt: 0, pace: pace({ limit: null }) })).toBe(40_000);
    expect(etaMs({ now: 10_000, hostsLeft: 4_000, requestsSent: 0, startedAt: 0, pace: pace({ limit: null }) })).toBeNull();
  });

  it('a 429 pause: nothing goes before it ends, then every slot is free', () => {
    expect(etaMs({ now: 0, hostsLeft: 100, requestsSent: 0, startedAt: 0, pace: pace({ held: 60, oldestHeldAt: 0, pausedUntil: 43_000 }) })).toBe(43_000);
    // 61 requests: 60 at the reset, the last a window after it.
    expect(etaMs({ now: 0, hostsLeft: 6_100, requestsSent: 0, startedAt: 0, pace: pace({ pausedUntil: 43_000 }) })).toBe(103_000);
  });

  it('nothing left: 0', () => {
    expect(etaMs({ now: 5, hostsLeft: 0, requestsSent: 10, startedAt: 0, pace: pace() })).toBe(0);
  });
});

describe('progressFigures', () => {
  const stats = () => ({ ...emptyStats(0), rows: 30_000, valid: 28_000, duplicates: 20_376, cacheHits: 100 });

  it('hosts are distinct hosts, not rows; lookups done are those planned that no longer wait', () => {
    // 30 requests sent in 30 s.
    const s = { ...stats(), lookupsNeeded: 7_624, lookupsWaiting: 4_624, inputDone: true, requests: 30 };
    const f = progressFigures(s, { total: 1_000 }, pace({ limit: null }), 30_000);
    expect(f).toMatchObject({ rows: 30_000, hosts: 7_624, cached: 100, lookupsDone: 3_000, lookupsNeeded: 7_624, readShare: null, etaEstimated: false });
    // 4,624 hosts left: 47 requests at one a second.
    expect(f.etaMs).toBe(47_000);
  });

  it('while the input is still read: no total yet, the share of the file read, and the need estimated from it', () => {
    const s = { ...stats(), lookupsNeeded: 1_000, lookupsWaiting: 200, inputDone: false, requests: 8, inputChars: 250 };
    const f = progressFigures(s, { total: 1_000 }, pace({ limit: null }), 8_000);
    expect(f).toMatchObject({ lookupsDone: 800, lookupsNeeded: null, readShare: 0.25, etaEstimated: true });
    // About 4,000 needed in all (a quarter read needed 1,000): 3,200 more, 32 requests at one a second.
    expect(f.etaMs).toBe(32_000);
  });

  it('stdin (no size): no share, and no ETA until the need is known', () => {
    const s = { ...stats(), lookupsNeeded: 1_000, lookupsWaiting: 200, inputDone: false };
    const f = progressFigures(s, null, pace({ limit: null }), 8_000);
    expect(f).toMatchObject({ readShare: null, etaMs: null, lookupsNeeded: null });
  });

  it('no rate given nor learned, none met yet: no ETA from the pace so far, and said to be learning; once known, the ETA from it', () => {
    // 30 requests in 3 s: the pace so far says 47 requests left take 4.7 s, when the service's limit may
    // allow a few a minute.
    const s = { ...stats(), lookupsNeeded: 7_624, lookupsWaiting: 4_624, inputDone: true, requests: 30 };
    const learning = progressFigures(s, null, pace({ limit: null, learning: true }), 3_000);
    expect(learning).toMatchObject({ etaMs: null, etaLearning: true });
    // Learned (or given): 60 a minute, 47 requests left, none held: all within the window, at the run's pace.
    const known = progressFigures(s, null, pace({ limit: 60 }), 3_000);
    expect(known.etaLearning).toBeUndefined();
    expect(known.etaMs).toBe(4_700);
    const slow = progressFigures(s, null, pace({ limit: 10 }), 3_000);
    expect(slow.etaMs).toBe(4 * WINDOW);
  });

  it('live: learning while the limiter has no limit and none was given; not with --rpm 0 (pacing off) or once it has one', async () => {
    const s = { ...emptyStats(0), lookupsNeeded: 400, lookupsWaiting: 300, inputDone: true, requests: 1 };
    const slots = { acceptedBetween: async () => ({ count: 0, first: null }) };
    const open = { limit: null, windowMs: 60_000, pausedUntil: 0 };
    type Limiter = Parameters<typeof liveFigures>[0]['limiter'];
    const figures = (limiter: Limiter, rateUnsaid: boolean) =>
      liveFigures({ stats: () => s, limiter, slots, batchSize: 100, meter: null, clock: () => 1_000, rateUnsaid })();
    expect(figures(open, true)).toMatchObject({ etaMs: null, etaLearning: true });
    expect(figures(open, false)?.etaLearning).toBeUndefined();
    expect(figures(open, false)?.etaMs).toBe(3_000);
    expect(figures({ limit: 2, windowMs: 1_000, pausedUntil: 0 }, true)?.etaLearning).toBeUndefined();
    // A limit whose window one reset only bounds below is still being learned: an ETA from it was 3x too low.
    const bounded = { limit: 2, windowMs: 300, pausedUntil: 0, measured: { requests: 2, windowMs: 300, confirmed: false } };
    expect(figures(bounded, true)).toMatchObject({ etaMs: null, etaLearning: true });
    expect(figures({ ...bounded, measured: { ...bounded.measured, confirmed: true } }, true)?.etaLearning).toBeUndefined();
  });

  it('a 429 pause is passed on with its end', () => {
    const s = { ...stats(), lookupsNeeded: 10, lookupsWaiting: 10, inputDone: true };
    expect(progressFigures(s, null, pace({ pausedUntil: 9_000 }), 1_000).waitingUntil).toBe(9_000);
    expect(progressFigures(s, null, pace({ pausedUntil: 500 }), 1_000).waitingUntil).toBeNull();
  });
});

describe('liveFigures', () => {
  const limiter = { limit: 2, windowMs: 2_000, pausedUntil: 0 };
  const slots = (count: number, first: number | null) => ({ acceptedBetween: async () => ({ count, first }) });
  /** Figures as a redraw shows them once the slots were read (a redraw reads them in the background, for the next). */
  const settled = async (read: ReturnType<typeof liveFigures>) => {
    read();
    await new Promise((r) => setImmediate(r));
    return read();
  };

  it('reads nothing before the run reported', () => {
    expect(liveFigures({ stats: () => null, limiter, slots: slots(0, null), batchSize: 100, meter: null, clock: () => 0 })()).toBeNull();
  });

  it('reads the slots held from the limiter: the rest waits for the first of them to free', async () => {
    // 2 answered in the window (the first at 0) and 1 more waiting for a slot: 199 hosts left are 2 requests,
    // which go when the slots free at 2 s, 1.5 s from now.
    const s = { ...emptyStats(0), lookupsNeeded: 400, lookupsWaiting: 199, inputDone: true, requests: 2, inFlight: 1 };
    const f = await settled(liveFigures({ stats: () => s, limiter, slots: slots(2, 0), batchSize: 100, meter: null, clock: () => 500 }));
    expect(f?.etaMs).toBe(1_500);
    expect(f?.lookupsDone).toBe(201);
    // Every slot held and hosts left: the next frees a window after the oldest was sent.
    expect(f?.nextSlotAt).toBe(2_000);
    const free = await settled(
      liveFigures({ stats: () => ({ ...s, inFlight: 0 }), limiter, slots: slots(1, 0), batchSize: 100, meter: null, clock: () => 500 }),
    );
    expect(free?.nextSlotAt).toBeNull();
  });

  it('while the file is read, projects the need from what the last tenth of it added, not from the whole', async () => {
    // A list whose repeats grow as it goes on: half the file brought 1,000 hosts to look up, the next tenth 100.
    // Scaling by the share read says 1,100 / 0.6 = 1,833 in all; the last tenth's pace says 1,100 + 0.4 x 1,000.
    const s = { ...emptyStats(0), lookupsNeeded: 0, lookupsWaiting: 0, inputDone: false, requests: 10, inputChars: 0 };
    const read = liveFigures({
      stats: () => s,
      limiter: { limit: null, windowMs: 60_000, pausedUntil: 0 },
      slots: slots(0, null),
      batchSize: 100,
      meter: { total: 10_000 },
      clock: () => 10_000,
    });
    for (const [chars, need] of [
      [1_000, 300],
      [3_000, 700],
      [5_000, 1_000],
      [5_500, 1_050],
      [6_000, 1_100],
    ] as const) {
      Object.assign(s, { inputChars: chars, lookupsNeeded: need, lookupsWaiting: need });
      read();
    }
    // 1,500 hosts in all, none answered yet: 15 requests at the pace the run kept (10 in 10 s).
    expect(read()?.etaMs).toBe(15_000);
    // Before a tenth of the file is read there is no stretch to measure: the share read scales the need.
    const early = { ...s, inputChars: 500, lookupsNeeded: 200, lookupsWaiting: 200 };
    const first = liveFigures({
      stats: () => early,
      limiter: { limit: null, windowMs: 60_000, pausedUntil: 0 },
      slots: slots(0, null),
      batchSize: 100,
      meter: { total: 10_000 },
      clock: () => 10_000,
    });
    expect(first()?.etaMs).toBe(40_000); // 4,000 hosts: 40 requests
  });
});
