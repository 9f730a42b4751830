// The one retry policy, for single lookups and runs alike (ARCHITECTURE habit 8): retry only what cannot
// have been served, or was served and lost in transit; never what the service refused. `decide` is the whole
// rule; withRetry (single requests) and the run's dispatcher (run/dispatcher.ts) both follow it.
import { AbortedError, MeteringUnavailableError, NetworkError, ProtocolError, RateLimitedError, ServerError } from './errors.js';
import { sleep } from './sleep.js';

/**
 * Network failures that another attempt a second later will meet again: the address refuses connections, the
 * name does not exist, the certificate is not trusted. Each says the configuration is wrong (or the service is
 * down), so retrying only delays the message. EAI_AGAIN stays retried: it is the resolver saying it could not
 * answer just now (a DNS server timing out, a link coming up), not that the name is wrong, and the cap on one
 * request's time (REQUEST_CAP_TIMEOUTS) bounds what it costs when it persists.
 */
// proxy_auth: a proxy that asks for a user and password (407) is asked again in vain.
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'proxy_auth']);
// Node's and OpenSSL's names for a certificate that failed verification (tls.TLSSocket#authorizationError).
const CERT_ERROR = /^(?:CERT_|ERR_TLS_CERT_|UNABLE_TO_(?:GET|VERIFY|DECRYPT)_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;

/** True for a failure to reach the service that retrying cannot mend: connection refused, no such name, a rejected TLS certificate. */
export function isUnreachable(err: unknown): err is NetworkError {
  return err instanceof NetworkError && (UNREACHABLE.has(err.code) || isCertificateCode(err.code));
}

/** True for the code of a TLS certificate that failed verification. */
export function isCertificateCode(code: string): boolean {
  return CERT_ERROR.test(code);
}

/** True when another attempt may succeed: 503, other 5xx, timeouts and cut connections, truncated or garbled answers. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof AbortedError) return false;
  if (err instanceof MeteringUnavailableError) return true; // nothing was spent (§7)
  if (err instanceof ServerError) return (err.status ?? 0) >= 500;
  if (err instanceof NetworkError) return !isUnreachable(err);
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
  /** One attempt's timeout (the client's): the cap on one request's time is REQUEST_CAP_TIMEOUTS of it. */
  timeoutMs: number;
}

/**
 * One request's attempts and the backoffs between them take at most this many timeouts in all: 90 s with the
 * default 30 s timeout. Without a cap a host that never answers cost (retries + 1) timeouts, each doubled
 * after a timeout (patience): 30 + 60 + 120 + 240 + 480 s. Three leave room for a first attempt and one
 * retry with twice the patience (a slow service's answer is then had); what follows a second failure is cut
 * to what is left, and nothing starts with less than MIN_ATTEMPT_MS. Pauses for a 429 are not counted: they
 * are the service pacing us, not failing, and maxRateLimitWaits bounds them.
 */
export const REQUEST_CAP_TIMEOUTS = 3;
/** Less time than this left under the cap: no attempt is started, it could not get an answer. */
const MIN_ATTEMPT_MS = 1000;

/**
 * The one default, for `lookup HOST` and a batch run alike. 4 retries: with backoff capped at 15 s a dead
 * service fails a request within ~4 s on average. 10 rate-limit waits: each 429 waits for its reset (a minute
 * at most on every plan, §8), so a request rides out ~10 minutes of another client sharing the key, and a key
 * throttled for good fails in minutes, not the hour a run's former 50 waits allowed (single lookups had 5,
 * which a run whose limiter is still learning the plan can meet in one burst).
 */
export const RETRY_DEFAULTS: Readonly<RetryLimits> = { retries: 4, maxRateLimitWaits: 10, timeoutMs: 30_000 };

/** What has happened to one request so far. */
export interface RetryState {
  /** Retries spent (backoffs taken). */
  attempt: number;
  /** 429 pauses sat out. */
  waits: number;
  /** The next attempt's timeout multiplier (CallOptions.patience): doubled after each timeout, cut to the time left. */
  patience: number;
  /** Epoch ms past which no attempt starts (the cap); moved on by each 429 pause, which is not counted. */
  deadline: number;
}

/** A fresh RetryState for a request whose first attempt starts at `now`. */
export const firstAttempt = (now: number, limits: Pick<RetryLimits, 'timeoutMs'>): RetryState => ({
  attempt: 0,
  waits: 0,
  patience: 1,
  deadline: now + requestCapMs(limits),
});

/** The cap on one request's time, in ms. */
function requestCapMs(limits: Pick<RetryLimits, 'timeoutMs'>): number {
  return REQUEST_CAP_TIMEOUTS * limits.timeoutMs;
}

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

/**
 * The retry rule: one decision per failure at `now`, given what happened so far and the limits. After a
 * timeout it doubles the next attempt's patience; every backoff cuts that patience to the time left under the
 * cap, and a retry that would start with less than a second left is not made (the reason then says the cap).
 */
export function decide(err: unknown, state: RetryState, limits: RetryLimits, now: number, random?: () => number): RetryDecision {
  if (isRateLimit(err)) {
    if (state.waits < limits.maxRateLimitWaits) {
      state.deadline += Math.max(0, err.resumeAt - now); // the pause is the service's pacing, not this request's failure
      return { action: 'wait', resumeAt: err.resumeAt };
    }
    return { action: 'give-up', reason: `still rate limited after ${limits.maxRateLimitWaits} waits` };
  }
  const message = err instanceof Error ? err.message : String(err);
  if (isRetryable(err) && state.attempt < limits.retries) {
    const delayMs = backoffDelay(state.attempt, random ? { random } : {});
    const left = state.deadline - (now + delayMs);
    if (left >= MIN_ATTEMPT_MS) {
      if (err instanceof NetworkError && err.code === 'timeout') state.patience *= 2;
      state.patience = Math.min(state.patience, left / limits.timeoutMs);
      return { action: 'backoff', delayMs };
    }
    return { action: 'give-up', reason: `${message} (${cappedText(state, limits)})` };
  }
  return { action: 'give-up', reason: `${message}${state.attempt > 0 ? ` (after ${state.attempt} ${state.attempt === 1 ? 'retry' : 'retries'})` : ''}` };
}

/** What the reason of a request stopped by the cap adds: how many retries, and the cap itself. */
function cappedText(state: RetryState, limits: RetryLimits): string {
  const retries = state.attempt === 0 ? '' : ` after ${state.attempt} ${state.attempt === 1 ? 'retry' : 'retries'}`;
  const cap = `${Number((requestCapMs(limits) / 1000).toFixed(1))} s`;
  return `gave up${retries}: one request may take ${cap} in all, ${REQUEST_CAP_TIMEOUTS} times its timeout`;
}

/** The limits in force: the defaults, overridden by whatever the caller set. */
export function retryLimits(opts: { retries?: number | undefined; maxRateLimitWaits?: number | undefined; timeoutMs?: number | undefined }): RetryLimits {
  return {
    retries: opts.retries ?? RETRY_DEFAULTS.retries,
    maxRateLimitWaits: opts.maxRateLimitWaits ?? RETRY_DEFAULTS.maxRateLimitWaits,
    timeoutMs: opts.timeoutMs ?? RETRY_DEFAULTS.timeoutMs,
  };
}

export interface WithRetryOptions {
  /** Attempts after the first (default RETRY_DEFAULTS.retries). */
  retries?: number;
  /** How many 429 pauses to sit out before giving up (default RETRY_DEFAULTS.maxRateLimitWaits). */
  maxRateLimitWaits?: number;
  /** One attempt's timeout, the client's (DomainIntelClient#timeoutMs; default 30 s): it sets the cap on the request's time. */
  timeoutMs?: number;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  signal?: AbortSignal;
  onRetry?: (info: { attempt: number; delayMs: number; error: Error; rateLimited: boolean }) => void;
}

/**
 * Runs one request with the retry rule: retryable failures back off, a 429 waits for its reset. `fn` gets the
 * attempt's patience. When the cap on the request's time ends the retries, the error thrown says so.
 */
export async function withRetry<T>(fn: (patience: number) => Promise<T>, opts: WithRetryOptions = {}): Promise<T> {
  const limits = retryLimits(opts);
  const clock = opts.clock ?? Date.now;
  const pause = opts.sleep ?? sleep;
  const state = firstAttempt(clock(), limits);
  for (;;) {
    if (opts.signal?.aborted) throw new AbortedError();
    try {
      return await fn(state.patience);
    } catch (err) {
      const next = decide(err, state, limits, clock(), opts.random);
      if (next.action === 'give-up') {
        // The error keeps its class (and so its exit code); only a stop by the cap is worth adding to its message.
        if (err instanceof Error && next.reason.startsWith(`${err.message} (gave up`)) err.message = next.reason;
        throw err;
      }
      const rateLimited = next.action === 'wait';
      const delayMs = rateLimited ? Math.max(0, next.resumeAt - clock()) : next.delayMs;
      if (rateLimited) state.waits++;
      else state.attempt++;
      opts.onRetry?.({ attempt: state.attempt, delayMs, error: err as Error, rateLimited });
      await pause(delayMs, opts.signal);
    }
  }
}
