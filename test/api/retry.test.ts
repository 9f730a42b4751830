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
import { backoffDelay, isRateLimit, isRetryable } from '../../src/api/retry.js';

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
