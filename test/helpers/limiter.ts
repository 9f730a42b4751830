// Driving a RateLimiter against the sandbox the way the dispatcher does (acquire, one call, settle, a 429's
// reset to rateLimit), with a few workers, without the rest of the pipeline: on virtual time shared with the
// sandbox and the limiter (test/helpers/virtual-time.ts), or on the real clock where another's clock rules.
import { DomainIntelClient } from '../../src/api/client.js';
import { onAbort } from '../../src/api/sleep.js';
import { RateLimitedError } from '../../src/api/errors.js';
import type { RateLimiter } from '../../src/run/limit/limiter.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { RequestLogEntry } from '../../src/sandbox/types.js';
import { realTime, type Time } from './virtual-time.js';

export interface DriveResult {
  sent: number;
  limited: number;
}

/** Sends single lookups through `limiter` with `workers` workers until `until` (epoch ms on `time`, default the real clock). */
export async function drive(sb: Sandbox, limiter: RateLimiter, opts: { until: number; workers?: number; key?: string; time?: Time }): Promise<DriveResult> {
  const time = opts.time ?? realTime;
  const client = new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: opts.key ?? sb.key, clock: time.now });
  const hosts = sb.hostList();
  const result: DriveResult = { sent: 0, limited: 0 };
  const stop = time.signalAt(opts.until);
  const worker = async () => {
    for (;;) {
      const ticket = await limiter.acquire(stop).catch(() => null);
      if (ticket === null) return;
      if (time.now() >= opts.until) return await limiter.release(ticket);
      result.sent++;
      try {
        const host = hosts[result.sent % hosts.length] as string;
        await time.busy(() => client.domain(host));
        await limiter.settle(ticket, true);
      } catch (err) {
        const limited = err instanceof RateLimitedError;
        // As the dispatcher does: the pause begun with the answer, before another worker can take a slot.
        const paused = limited ? limiter.rateLimit(err.resetAnnounced ? err.resumeAt : null) : null;
        await limiter.settle(ticket, !limited);
        if (!limited) continue; // 404 and the like: answered, counted by the service
        result.limited++;
        await paused;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.workers ?? 4 }, worker));
  } finally {
    await client.close();
  }
  return result;
}

/** The sandbox's API requests, oldest first, with the key that sent each. */
export function requestsByTime(sb: Sandbox): RequestLogEntry[] {
  return sb.requests().sort((a, b) => a.time - b.time);
}

/**
 * Simulated time for a limiter and a sandbox that share its clock: a sleep is a timer on that clock, and the
 * clock moves to the earliest timer only when nothing is in flight (`io`) and every other step has run, so a
 * window of seconds runs in milliseconds and each request happens at a time the test controls.
 */
export function simTime(start: number) {
  let now = start;
  let busy = 0;
  let seq = 0;
  let queued = false;
  const timers: { at: number; seq: number; fire: () => void }[] = [];
  const step = () => {
    queued = false;
    if (busy > 0 || timers.length === 0) return;
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = timers.shift() as (typeof timers)[number];
    now = Math.max(now, next.at);
    next.fire();
    kick();
  };
  // setImmediate runs once every promise step queued before it has run: the simulation is idle.
  const kick = () => {
    if (queued) return;
    queued = true;
    setImmediate(step);
  };
  const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = { at: now + Math.max(0, ms), seq: seq++, fire: resolve };
      timers.push(timer);
      // One listener per signal however many sleep on it (as the product's sleep): Node warns past ten.
      const forget = signal
        ? onAbort(signal, () => {
            const i = timers.indexOf(timer);
            if (i >= 0) timers.splice(i, 1);
            resolve();
            kick();
          })
        : () => undefined;
      timer.fire = () => {
        forget();
        resolve();
      };
      kick();
    });
  const io = async <T>(work: () => Promise<T>): Promise<T> => {
    busy++;
    try {
      return await work();
    } finally {
      busy--;
      kick();
    }
  };
  return { clock: () => now, sleep, io };
}

/**
 * As `drive`, on simulated time (`sim`, which the sandbox and the limiter use too): each request takes
 * `latencyMs` there and as long back, so the service counts it after it was sent and before its answer.
 */
export async function driveSim(
  sb: Sandbox,
  limiter: RateLimiter,
  sim: ReturnType<typeof simTime>,
  opts: { until: number; workers?: number; latencyMs?: number },
): Promise<DriveResult> {
  const client = new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: sb.key, clock: sim.clock });
  const hosts = sb.hostList();
  const result: DriveResult = { sent: 0, limited: 0 };
  const stop = new AbortController();
  void sim.sleep(opts.until - sim.clock()).then(() => stop.abort());
  const latency = opts.latencyMs ?? 10;
  const worker = async () => {
    for (;;) {
      const ticket = await limiter.acquire(stop.signal).catch(() => null);
      if (ticket === null) return;
      if (sim.clock() >= opts.until) return await limiter.release(ticket);
      result.sent++;
      const host = hosts[result.sent % hosts.length] as string;
      limiter.sent(ticket);
      await sim.sleep(latency);
      const outcome = await sim.io(() =>
        client.domain(host).then(
          () => null,
          (err: unknown) => err,
        ),
      );
      await sim.sleep(latency);
      const limited = outcome instanceof RateLimitedError;
      const paused = limited ? limiter.rateLimit(outcome.resetAnnounced ? outcome.resumeAt : null, outcome.resetRounded) : null;
      await limiter.settle(ticket, !limited);
      if (!limited) continue;
      result.limited++;
      await paused;
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.workers ?? 4 }, worker));
  } finally {
    await client.close();
  }
  return result;
}
