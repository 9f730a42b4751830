// The retry rule, kept small and separate so it can be tested on its own (ARCHITECTURE habit 8): retry only
// what cannot have been served, or was served and lost in transit; never what the service refused.
import { AbortedError, MeteringUnavailableError, NetworkError, ProtocolError, RateLimitedError, ServerError } from './errors.js';
import { sleep } from './sleep.js';

/** True when another attempt may succeed: 503, other 5xx, network failures, truncated or garbled answers. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof AbortedError) return false;
  if (err instanceof MeteringUnavailableError) return true; // nothing was spent (§7)
  if (err instanceof ServerError) return (err.status ?? 0) >= 500;
  if (err instanceof NetworkError) return true;
  // A 200 whose body we could not use; the lookup may have been spent, but there is no other way to get it.
  if (err instanceof ProtocolError) return err.code === 'bad_json' || err.code === 'bad_response';
  return false; // 400, 401, 402, 404 and anything unknown
}

/** True for a 429: not a failure, a pause until its reset; does not consume a retry. */
export function isRateLimit(err: unknown): err is RateLimitedError {
  return err instanceof RateLimitedError;
}

export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
  random?: () => number;
}

/** Capped exponential backoff with full jitter: a random delay in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}): number {
  const base = opts.baseMs ?? 250;
  const cap = opts.capMs ?? 15_000;
  const random = opts.random ?? Math.random;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt));
  // Never zero, so a burst of 503s cannot become a hot loop.
  return Math.max(10, Math.floor(random() * ceiling));
}

export interface WithRetryOptions {
  retries?: number;
  /** How many 429 pauses to sit out before giving up (default 5). */
  maxRateLimitWaits?: number;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  signal?: AbortSignal;
  onRetry?: (info: { attempt: number; delayMs: number; error: Error; rateLimited: boolean }) => void;
}

/** Runs one request with the retry rule: retryable failures back off, a 429 waits for its reset. */
export async function withRetry<T>(fn: () => Promise<T>, opts: WithRetryOptions = {}): Promise<T> {
  const retries = opts.retries ?? 4;
  const clock = opts.clock ?? Date.now;
  const pause = opts.sleep ?? sleep;
  let attempt = 0;
  let waits = 0;
  for (;;) {
    if (opts.signal?.aborted) throw new AbortedError();
    try {
      return await fn();
    } catch (err) {
      if (isRateLimit(err) && waits++ < (opts.maxRateLimitWaits ?? 5)) {
        const delayMs = Math.max(0, err.resumeAt - clock());
        opts.onRetry?.({ attempt, delayMs, error: err, rateLimited: true });
        await pause(delayMs, opts.signal);
        continue;
      }
      if (!isRetryable(err) || attempt >= retries) throw err;
      const delayMs = backoffDelay(attempt++, opts.random ? { random: opts.random } : {});
      opts.onRetry?.({ attempt, delayMs, error: err as Error, rateLimited: false });
      await pause(delayMs, opts.signal);
    }
  }
}
