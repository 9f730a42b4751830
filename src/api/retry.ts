// The one retry policy, for single lookups and runs alike (ARCHITECTURE habit 8): retry only what cannot
// have been served, or was served and lost in transit; never what the service refused. `decide` is the whole
// rule; withRetry (single requests) and the run's dispatcher (pipeline/dispatcher.ts) both follow it.
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

/** How far one request may be retried. */
export interface RetryLimits {
  /** Attempts after the first for retryable failures. */
  retries: number;
  /** 429 pauses sat out before giving up. */
  maxRateLimitWaits: number;
}

/**
 * The one default, for `lookup HOST` and a batch run alike. 4 retries: with backoff capped at 15 s a dead
 * service fails a request within ~4 s on average. 10 rate-limit waits: each 429 waits for its reset (a minute
 * at most on every plan, §8), so a request rides out ~10 minutes of another client sharing the key, and a key
 * throttled for good fails in minutes, not the hour a run's former 50 waits allowed (single lookups had 5,
 * which a run whose limiter is still learning the plan can meet in one burst).
 */
export const RETRY_DEFAULTS: Readonly<RetryLimits> = { retries: 4, maxRateLimitWaits: 10 };

/** What has happened to one request so far. */
export interface RetryState {
  /** Retries spent (backoffs taken). */
  attempt: number;
  /** 429 pauses sat out. */
  waits: number;
  /** The next attempt's timeout multiplier (CallOptions.patience): doubled after each timeout. */
  patience: number;
}

/** A fresh RetryState. */
export const firstAttempt = (): RetryState => ({ attempt: 0, waits: 0, patience: 1 });

// Failures before anything reached the service: nothing can have been served or charged.
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * True when the request may have been served, and so charged, though no usable answer came back: it timed
 * out, the connection was cut after it was sent, or the answer could not be read. The run cannot record such
 * an answer, so it counts these lookups apart (they are in the quota check, not in "spent").
 */
export function mayHaveBeenCharged(err: unknown): boolean {
  if (err instanceof ProtocolError) return true;
  return err instanceof NetworkError && !NOT_SENT.has(err.code);
}

/** What to do after a failed attempt: back off, wait for a 429's reset, or give up (with a row's reason). */
export type RetryDecision = { action: 'backoff'; delayMs: number } | { action: 'wait'; resumeAt: number } | { action: 'give-up'; reason: string };

/** The retry rule: one decision per failure, given what happened so far and the limits (after a timeout it also doubles the next attempt's patience). */
export function decide(err: unknown, state: RetryState, limits: RetryLimits, random?: () => number): RetryDecision {
  if (isRateLimit(err)) {
    if (state.waits < limits.maxRateLimitWaits) return { action: 'wait', resumeAt: err.resumeAt };
    return { action: 'give-up', reason: `still rate limited after ${limits.maxRateLimitWaits} waits` };
  }
  if (isRetryable(err) && state.attempt < limits.retries) {
    if (err instanceof NetworkError && err.code === 'timeout') state.patience *= 2;
    return { action: 'backoff', delayMs: backoffDelay(state.attempt, random ? { random } : {}) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { action: 'give-up', reason: `${message}${state.attempt > 0 ? ` (after ${state.attempt} retries)` : ''}` };
}

/** The limits in force: the defaults, overridden by whatever the caller set. */
export function retryLimits(opts: { retries?: number | undefined; maxRateLimitWaits?: number | undefined }): RetryLimits {
  return { retries: opts.retries ?? RETRY_DEFAULTS.retries, maxRateLimitWaits: opts.maxRateLimitWaits ?? RETRY_DEFAULTS.maxRateLimitWaits };
}

export interface WithRetryOptions {
  /** Attempts after the first (default RETRY_DEFAULTS.retries). */
  retries?: number;
  /** How many 429 pauses to sit out before giving up (default RETRY_DEFAULTS.maxRateLimitWaits). */
  maxRateLimitWaits?: number;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  signal?: AbortSignal;
  onRetry?: (info: { attempt: number; delayMs: number; error: Error; rateLimited: boolean }) => void;
}

/** Runs one request with the retry rule: retryable failures back off, a 429 waits for its reset. `fn` gets the attempt's patience. */
export async function withRetry<T>(fn: (patience: number) => Promise<T>, opts: WithRetryOptions = {}): Promise<T> {
  const limits = retryLimits(opts);
  const clock = opts.clock ?? Date.now;
  const pause = opts.sleep ?? sleep;
  const state = firstAttempt();
  for (;;) {
    if (opts.signal?.aborted) throw new AbortedError();
    try {
      return await fn(state.patience);
    } catch (err) {
      const next = decide(err, state, limits, opts.random);
      if (next.action === 'give-up') throw err;
      const rateLimited = next.action === 'wait';
      const delayMs = rateLimited ? Math.max(0, next.resumeAt - clock()) : next.delayMs;
      if (rateLimited) state.waits++;
      else state.attempt++;
      opts.onRetry?.({ attempt: state.attempt, delayMs, error: err as Error, rateLimited });
      await pause(delayMs, opts.signal);
    }
  }
}
