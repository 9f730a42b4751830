// Issue 26: the limiter with no plan given, against the sandbox on simulated time shared by both (the
// sandbox's window, the limiter's waits, each request's latency), under every reset shape the sandbox can
// answer, a fixed or a sliding window, and a first reset that is not the window's length. Judged from the
// sandbox's request log: what the service saw, not what the client counted.
import { describe, expect, it } from 'vitest';
import { DomainIntelClient } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/run/limit/limiter.js';
import { RESET_STYLES, type ResetStyle, startSandbox } from '../../../src/sandbox/index.js';
import type { RequestLogEntry } from '../../../src/sandbox/types.js';
import { driveSim, requestsByTime, simTime } from '../../helpers/limiter.js';

const WINDOW = 2000;
const RUN = 15 * WINDOW;

/** The reset a 429 announced, as the client reads it in `style`: whole seconds are rounded up. */
function announced(style: ResetStyle, r: RequestLogEntry): number {
  const reset = r.resetAt ?? 0;
  if (style === 'retry-after' || style === 'ratelimit-reset') return r.time + Math.max(1, Math.ceil((reset - r.time) / 1000)) * 1000;
  if (style === 'epoch-s' || style === 'x-ratelimit-reset') return Math.ceil(reset / 1000) * 1000;
  return reset;
}

/** latency: each way (a request reaches the service that long after it is sent, its answer the client as long after). */
const base = { rpm: 3, workers: 4, latency: 10 };
const cases = [
  ...RESET_STYLES.flatMap((style) =>
    (['sliding', 'fixed'] as const).flatMap((window) => [
      { ...base, style, window, before: false },
      // Another client's request, 1247 ms before the run: the first reset is 753 ms from the run's first request.
      { ...base, style, window, before: true },
    ]),
  ),
  // A higher limit, more workers than it, and slow answers: a request could still be sent while another's 429
  // was on its way back, after a first reset far short of the window (fixed: 616 ms where it is 2 s, and the
  // limit learned one short, the other client's request being in the window), or when a raise that met no 429
  // (paced one at a time, it never filled a window) was built on and met a crowded moment later (sliding).
  // Two or three 429s landed in one window, until requests beyond the limit since a reset that only bounds
  // the window went alone, and a raise was built on only once the service had accepted it within a window.
  ...(['sliding', 'fixed'] as const).flatMap((window) =>
    (['iso', 'resets-in-ms'] as const).map((style) => ({ style, window, before: true, rpm: 10, workers: 12, latency: 150 })),
  ),
  // Shapes that met two or three 429s in a window the same ways (a limit of 5, quicker answers), or (sliding,
  // 300 ms each way) because answers that came back at the instant of the first 429s sent again before it was
  // read, to land past its reset: while learning, the limiter now reads what has come in before sending.
  { style: 'retry-after', window: 'fixed', before: true, rpm: 5, workers: 7, latency: 10 },
  { style: 'iso', window: 'fixed', before: true, rpm: 5, workers: 7, latency: 50 },
  { style: 'x-ratelimit-reset', window: 'fixed', before: true, rpm: 10, workers: 12, latency: 50 },
  { style: 'iso', window: 'sliding', before: true, rpm: 5, workers: 7, latency: 300 },
] as const;

describe('the limiter with no plan, against the sandbox on simulated time', () => {
  it.each(cases)('$window window, reset as $style, another client first: $before, $rpm per window, latency $latency', async (c) => {
    const { style, window, before, rpm: RPM, latency: LATENCY } = c;
    // 137 ms into a second: fixed windows end off the whole seconds, so epoch seconds round up.
    const sim = simTime(Date.UTC(2026, 10, 27, 12, 0, 0, 137));
    const sb = await startSandbox({ rpm: RPM, windowMs: WINDOW, resetStyle: style, window, clock: sim.clock });
    try {
      if (before) {
        const other = new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: sb.newKey(), clock: sim.clock });
        await sim.io(() => other.domain(sb.hostList()[0] as string));
        await other.close();
        await sim.sleep(1247);
      }
      // As the CLI with no rate said: the one-minute default is only a guess, thirty times the service's window.
      const limiter = new RateLimiter({ limit: null, windowMs: 60_000, given: false, windowGuessed: true, clock: sim.clock, sleep: sim.sleep });
      const start = sim.clock();
      await driveSim(sb, limiter, sim, { until: start + RUN, workers: c.workers, latencyMs: LATENCY });

      const log = requestsByTime(sb).filter((r) => r.authorization === `Bearer ${sb.key}`);
      const refused = log.filter((r) => r.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      // No request sent once a 429 was answered (its answer takes LATENCY, the next request LATENCY to arrive)
      // reaches the service before the reset that 429 announced.
      for (const r of refused) {
        const early = log.filter((x) => x.time > r.time + 2 * LATENCY && x.time < announced(style, r));
        expect(
          early.map((x) => x.time - start),
          `sent before the reset announced by the 429 at ${r.time - start}`,
        ).toEqual([]);
      }
      // After the first window (which ends at the first reset), at most one 429 in any window.
      const firstReset = announced(style, refused[0] as RequestLogEntry);
      const later = refused.filter((r) => r.time >= firstReset).map((r) => r.time - start);
      for (let i = 1; i < later.length; i++) {
        expect((later[i] as number) - (later[i - 1] as number), `429s at ${later.join(', ')}`).toBeGreaterThanOrEqual(WINDOW);
      }
      expect(later.length).toBeLessThanOrEqual(RUN / WINDOW / 3);
      // And the run used the rate: at least three quarters of what the service allows after the first window.
      const admitted = log.filter((r) => r.status !== 429 && r.time >= firstReset).length;
      expect(admitted).toBeGreaterThanOrEqual(Math.floor(0.75 * RPM * ((start + RUN - firstReset) / WINDOW)));
      // What it learned: 3 (4 while a raise is tried) per a window never shorter than the service's.
      expect(limiter.limit).toBeGreaterThanOrEqual(RPM);
      expect(limiter.limit).toBeLessThanOrEqual(RPM + 1);
      expect(limiter.windowMs).toBeGreaterThanOrEqual(WINDOW);
    } finally {
      await sb.close();
    }
  });
});
