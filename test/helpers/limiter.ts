// Driving a RateLimiter against the sandbox the way the dispatcher does (acquire, one call, settle, a 429's
// reset to rateLimit), with a few workers, without the rest of the pipeline: on virtual time shared with the
// sandbox and the limiter (test/helpers/virtual-time.ts), or on the real clock where another's clock rules.
import { DomainIntelClient } from '../../src/api/client.js';
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
