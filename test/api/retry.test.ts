import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  BadRequestError,
  InvalidKeyError,
  MeteringUnavailableError,
  NetworkError,
  NotFoundError,
  ProtocolError,
  QuotaExhaustedError,
  RateLimitedError,
  ServerError,
} from '../../src/api/errors.js';
import { backoffDelay, decide, isRateLimit, isRetryable, RETRY_DEFAULTS, retryLimits, withRetry } from '../../src/api/retry.js';

describe('retry rule', () => {
  it('retries what was not served or was lost in transit', () => {
    expect(isRetryable(new MeteringUnavailableError('x', { code: 'metering_unavailable', status: 503 }))).toBe(true);
    expect(isRetryable(new ServerError('x', { code: 'http_500', status: 500 }))).toBe(true);
    expect(isRetryable(new NetworkError('x', { code: 'ECONNRESET' }))).toBe(true);
    expect(isRetryable(new ProtocolError('x', { code: 'bad_json' }))).toBe(true);
  });
  it('never retries 400, 401, 402, 404, an oversized answer, or an abort', () => {
    expect(isRetryable(new BadRequestError('x', { code: 'bad_domain', status: 400 }))).toBe(false);
    expect(isRetryable(new InvalidKeyError('x', { code: 'invalid_key', status: 401 }))).toBe(false);
    expect(isRetryable(new QuotaExhaustedError('x', { code: 'quota_exhausted', status: 402 }))).toBe(false);
    expect(isRetryable(new NotFoundError('x', { code: 'not_found', status: 404 }))).toBe(false);
    expect(isRetryable(new ServerError('x', { code: 'http_418', status: 418 }))).toBe(false);
    expect(isRetryable(new ProtocolError('x', { code: 'too_large' }))).toBe(false);
    expect(isRetryable(new AbortedError())).toBe(false);
    expect(isRetryable(new Error('bug'))).toBe(false);
  });
  it('treats 429 as a pause, not a retryable failure', () => {
    const e = new RateLimitedError('x', { code: 'rate_limited', status: 429 }, 123);
    expect(isRateLimit(e)).toBe(true);
    expect(isRetryable(e)).toBe(false);
  });
  it('backs off exponentially with full jitter, capped', () => {
    expect(backoffDelay(0, { random: () => 0.999 })).toBe(249);
    expect(backoffDelay(3, { random: () => 0.5 })).toBe(1000);
    expect(backoffDelay(20, { random: () => 0.999, capMs: 15_000 })).toBe(14_985);
    expect(backoffDelay(2, { random: () => 0 })).toBe(10);
  });
});

const limits = { retries: 2, maxRateLimitWaits: 3, timeoutMs: 30_000 };
/** A request's state at `now` 0, well inside the cap. */
const at = (attempt: number, waits = 0) => ({ attempt, waits, patience: 1, deadline: 60_000 });
const unavailable = () => new MeteringUnavailableError('metering down', { code: 'metering_unavailable', status: 503 });
const tooMany = (resumeAt = 0) => new RateLimitedError('slow down', { code: 'rate_limited', status: 429 }, resumeAt);

describe('the one retry policy (decide)', () => {
  it('backs off a retryable failure while retries remain, then gives up naming them', () => {
    expect(decide(unavailable(), at(0, 0), limits, 0, () => 0.999)).toEqual({ action: 'backoff', delayMs: 249 });
    expect(decide(unavailable(), at(1, 0), limits, 0, () => 0.5)).toEqual({ action: 'backoff', delayMs: 250 });
    expect(decide(unavailable(), at(2, 0), limits, 0)).toEqual({ action: 'give-up', reason: 'metering down (after 2 retries)' });
  });
  it('waits for a 429 reset while waits remain, without spending a retry, then gives up', () => {
    expect(decide(tooMany(1234), at(2, 2), limits, 0)).toEqual({ action: 'wait', resumeAt: 1234 });
    expect(decide(tooMany(), at(0, 3), limits, 0)).toEqual({ action: 'give-up', reason: 'still rate limited after 3 waits' });
  });
  it('gives up at once on what must not be retried', () => {
    const key = new InvalidKeyError('key refused', { code: 'invalid_key', status: 401 });
    expect(decide(key, at(0, 0), limits, 0)).toEqual({ action: 'give-up', reason: 'key refused' });
    expect(decide(new QuotaExhaustedError('spent', { code: 'quota_exhausted', status: 402 }), at(0, 0), limits, 0).action).toBe('give-up');
  });
  it('has one default for single lookups and runs, overridable limit by limit', () => {
    expect(RETRY_DEFAULTS).toEqual({ retries: 4, maxRateLimitWaits: 10, timeoutMs: 30_000 });
    expect(retryLimits({})).toEqual(RETRY_DEFAULTS);
    expect(retryLimits({ retries: 0 })).toEqual({ retries: 0, maxRateLimitWaits: 10, timeoutMs: 30_000 });
  });
});

describe('withRetry follows the policy', () => {
  const noSleep = async () => {};
  it('sits out the default number of 429s, then throws the 429', async () => {
    let calls = 0;
    const run = withRetry(
      async () => {
        calls++;
        throw tooMany();
      },
      { sleep: noSleep },
    );
    await expect(run).rejects.toBeInstanceOf(RateLimitedError);
    expect(calls).toBe(1 + RETRY_DEFAULTS.maxRateLimitWaits);
  });
  it('retries up to the limits passed in, reporting each pause', async () => {
    let calls = 0;
    const seen: [number, boolean][] = [];
    const result = await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw tooMany();
        if (calls <= 3) throw unavailable();
        return 'ok';
      },
      { retries: 2, maxRateLimitWaits: 1, sleep: noSleep, random: () => 0, onRetry: (i) => seen.push([i.attempt, i.rateLimited]) },
    );
    expect(result).toBe('ok');
    expect(seen).toEqual([
      [0, true],
      [1, false],
      [2, false],
    ]);
    await expect(withRetry(() => Promise.reject(unavailable()), { retries: 1, sleep: noSleep })).rejects.toBeInstanceOf(MeteringUnavailableError);
  });
});
