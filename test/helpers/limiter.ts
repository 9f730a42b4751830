// Driving a RateLimiter against the sandbox the way the dispatcher does (acquire, one call, settle, a 429's
// reset to rateLimit), with a few workers and real time, without the rest of the pipeline.
import { DomainIntelClient } from '../../src/api/client.js';
import { RateLimitedError } from '../../src/api/errors.js';
import type { RateLimiter } from '../../src/run/limit/limiter.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { RequestLogEntry } from '../../src/sandbox/types.js';

export interface DriveResult {
  sent: number;
  limited: number;
}

/** Sends single lookups through `limiter` with `workers` workers until `until` (epoch ms). */
export async function drive(sb: Sandbox, limiter: RateLimiter, opts: { until: number; workers?: number; key?: string }): Promise<DriveResult> {
  const client = new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: opts.key ?? sb.key });
  const hosts = sb.hostList();
  const result: DriveResult = { sent: 0, limited: 0 };
  const stop = AbortSignal.timeout(Math.max(1, opts.until - Date.now()));
  const worker = async () => {
    for (;;) {
      const ticket = await limiter.acquire(stop).catch(() => null);
      if (ticket === null) return;
      if (Date.now() >= opts.until) return await limiter.release(ticket);
      result.sent++;
      try {
        await client.domain(hosts[result.sent % hosts.length] as string);
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
