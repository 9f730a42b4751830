import { describe, expect, it } from 'vitest';
import { parseQuotaHeaders } from '../../src/api/quota.js';
import { announcedReset, nextBoundary, parseInstant, rateLimitResume } from '../../src/api/reset.js';

const NOW = Date.parse('2026-11-22T10:00:30.000Z');

describe('parseInstant', () => {
  it('reads ISO datetimes and dates', () => {
    expect(parseInstant('2026-12-01T00:00:00Z', NOW)).toBe(Date.parse('2026-12-01T00:00:00Z'));
    expect(parseInstant('2026-12-01', NOW)).toBe(Date.parse('2026-12-01T00:00:00Z'));
  });
  it('reads epoch seconds and epoch milliseconds', () => {
    expect(parseInstant(1_796_083_200, NOW)).toBe(1_796_083_200_000);
    expect(parseInstant('1796083200', NOW)).toBe(1_796_083_200_000);
    expect(parseInstant(1_796_083_200_123, NOW)).toBe(1_796_083_200_123);
  });
  it('reads a small number as seconds from now', () => {
    expect(parseInstant(30, NOW)).toBe(NOW + 30_000);
    expect(parseInstant('1.5', NOW)).toBe(NOW + 1500);
  });
  it('returns null for what it cannot read', () => {
    expect(parseInstant('soon', NOW)).toBeNull();
    expect(parseInstant('', NOW)).toBeNull();
    expect(parseInstant(null, NOW)).toBeNull();
    expect(parseInstant(-5, NOW)).toBeNull();
  });
});

// The table of shapes the rule reads (api/reset.ts has the same table in its opening comment): one row each.
const SOON = NOW + 1519; // a reset 1.519 s away
const SOON_S = Math.ceil(SOON / 1000); // the same, as epoch seconds (rounded up, as a service would)
type Row = [shape: string, headers: Record<string, string> | null, body: unknown, at: number | null, rounded?: boolean];
const SHAPES: Row[] = [
  ['Retry-After, seconds to wait', { 'retry-after': '2' }, null, NOW + 2000, true],
  ['Retry-After, a fraction of seconds', { 'retry-after': '1.5' }, null, NOW + 1500],
  ['Retry-After, an HTTP date', { 'retry-after': 'Sun, 22 Nov 2026 10:01:00 GMT' }, null, Date.parse('2026-11-22T10:01:00Z')],
  ['RateLimit-Reset, seconds to wait (IETF draft)', { 'ratelimit-reset': '3' }, null, NOW + 3000, true],
  ['X-RateLimit-Reset, epoch seconds (GitHub)', { 'x-ratelimit-reset': String(SOON_S) }, null, SOON_S * 1000],
  ['X-RateLimit-Reset, epoch ms', { 'x-ratelimit-reset': String(SOON) }, null, SOON],
  ['X-RateLimit-Reset-After, seconds to wait (Discord)', { 'x-ratelimit-reset-after': '1.519' }, null, SOON],
  ['X-Rate-Limit-Reset-Ms, ms to wait', { 'x-rate-limit-reset-ms': '1519' }, null, SOON],
  ['RateLimit, its reset= parameter', { ratelimit: 'limit=10, remaining=0, reset=4' }, null, NOW + 4000, true],
  ['RateLimit, its t= parameter', { ratelimit: '"default";r=0;t=4' }, null, NOW + 4000, true],
  ['body reset_at, ISO', null, { error: 'rate_limited', reset_at: new Date(SOON).toISOString() }, SOON],
  ['body resetAt, ISO one object down', null, { error: 'rate_limited', details: { resetAt: new Date(SOON).toISOString() } }, SOON],
  ['body reset, epoch seconds', null, { error: 'rate_limited', reset: SOON_S }, SOON_S * 1000],
  ['body reset, epoch ms', null, { error: 'rate_limited', reset: SOON }, SOON],
  ['body reset_ms, epoch ms', null, { error: 'rate_limited', reset_ms: SOON }, SOON],
  ['body reset_ms, ms to wait', null, { error: 'rate_limited', reset_ms: 1519 }, SOON],
  ['body resets_in_ms, ms to wait (a name no list held)', null, { error: 'rate_limited', resets_in_ms: 1519 }, SOON],
  ['body retryAfterMs, ms to wait', null, { error: 'rate_limited', retryAfterMs: 1519 }, SOON],
  ['body wait_millis, ms to wait', null, { error: 'rate_limited', wait_millis: 1519 }, SOON],
  ['body RetryAfterMS, ms to wait', null, { error: 'rate_limited', RetryAfterMS: 1519 }, SOON],
  ['body retryafterms (run together), ms to wait', null, { error: 'rate_limited', retryafterms: 1519 }, SOON],
  ['body retry_after, seconds to wait', null, { error: 'rate_limited', retry_after: 1.519 }, SOON],
  ['body retry_after, whole seconds to wait', null, { error: 'rate_limited', retry_after: 2 }, NOW + 2000, true],
  ['body wait_seconds, seconds to wait', null, { error: 'rate_limited', wait_seconds: 1.519 }, SOON],
  ['body reset_secs, epoch seconds', null, { error: 'rate_limited', reset_secs: SOON_S }, SOON_S * 1000],
  ['body reset_s, seconds to wait', null, { error: 'rate_limited', reset_s: 1.519 }, SOON],
  ['body retry_in_mins, minutes to wait', null, { error: 'rate_limited', retry_in_mins: 0.5 }, NOW + 30_000],
  ['body retry-after as text', null, { error: 'rate_limited', 'retry-after': '1.519' }, SOON],
  ['body wait as text with a unit', null, { error: 'rate_limited', wait: '1519ms' }, SOON],
  ['body retry as text in seconds', null, { error: 'rate_limited', retry: '2 seconds' }, NOW + 2000, true],
  ['body under an error object', null, { error: { code: 'rate_limited', retry_after_ms: 1519 } }, SOON],
  ['body WAIT_UNTIL, ISO', null, { error: 'rate_limited', WAIT_UNTIL: new Date(SOON).toISOString() }, SOON],
  ['body about the quota: not a 429 reset', null, { error: 'rate_limited', quota_reset: new Date(SOON).toISOString() }, null],
  ['body with no reset', null, { error: 'rate_limited' }, null],
  ['body not JSON', null, 'not json', null],
  ['body reset a day away: not believed', null, { reset_at: '2026-11-23T10:00:00Z' }, null],
  ['body reset as words: not a time', null, { error: 'rate_limited', retry: 'later, 1 or so' }, null],
  ['headers about the quota only', { 'x-quota-reset': new Date(SOON).toISOString() }, { error: 'rate_limited' }, null],
];

describe("a 429's reset, in every shape the rule reads", () => {
  it.each(SHAPES)('%s', (_shape, headers, body, at, rounded = false) => {
    expect(announcedReset(headers, body, NOW)).toBe(at);
    const resume = rateLimitResume(headers, body, NOW, 1000);
    expect(resume).toEqual(at === null ? { at: nextBoundary(NOW, 1000), announced: false, rounded: false } : { at, announced: true, rounded });
  });
});

describe('rateLimitResume', () => {
  it("a header not believed (a day away) leaves the body's reset", () => {
    expect(rateLimitResume({ 'retry-after': '86400' }, { reset_ms: NOW + 500 }, NOW)).toEqual({ at: NOW + 500, announced: true, rounded: false });
    expect(rateLimitResume({ 'retry-after': '12' }, { reset_at: '2030-01-01T00:00:00Z' }, NOW).at).toBe(NOW + 12_000);
  });
  it('of several readings takes the finest, and of those the latest: nothing goes before a reset announced', () => {
    // Whole seconds (rounded up by the service) give way to milliseconds.
    expect(rateLimitResume({ 'retry-after': '2' }, { resets_in_ms: 1519 }, NOW)).toEqual({ at: SOON, announced: true, rounded: false });
    expect(rateLimitResume(null, { reset: SOON_S, reset_ms: SOON }, NOW).at).toBe(SOON);
    // Two fine readings: the later.
    expect(rateLimitResume(null, { retry_after_ms: 900, reset_at: new Date(SOON).toISOString() }, NOW).at).toBe(SOON);
  });
  it('falls back to the next minute boundary, or the given window', () => {
    expect(rateLimitResume(null, { error: 'rate_limited' }, NOW).at).toBe(Date.parse('2026-11-22T10:01:00Z'));
    expect(rateLimitResume(null, 'not json', NOW, 1000).at).toBe(nextBoundary(NOW, 1000));
  });
  it('never returns a time in the past', () => {
    expect(rateLimitResume(null, { reset_at: '2026-11-22T09:00:00Z' }, NOW).at).toBe(NOW);
  });
});

describe('parseQuotaHeaders', () => {
  it('reads integers and an ISO reset, keeping the raw text', () => {
    const q = parseQuotaHeaders({ 'x-quota-limit': '50000', 'x-quota-remaining': '49900', 'x-quota-reset': '2026-12-01T00:00:00Z' }, NOW);
    expect(q).toEqual({ limit: 50000, remaining: 49900, reset: new Date('2026-12-01T00:00:00Z'), resetRaw: '2026-12-01T00:00:00Z', seenAt: NOW });
  });
  it('reads epoch seconds and milliseconds in X-Quota-Reset', () => {
    expect(parseQuotaHeaders({ 'x-quota-reset': '1796083200' }, NOW)?.reset?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(parseQuotaHeaders({ 'x-quota-reset': '1796083200000' }, NOW)?.reset?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });
  it('keeps an unreadable reset as raw text', () => {
    const q = parseQuotaHeaders({ 'x-quota-remaining': '7', 'x-quota-reset': 'first of next month' }, NOW);
    expect(q?.remaining).toBe(7);
    expect(q?.limit).toBeNull();
    expect(q?.reset).toBeNull();
    expect(q?.resetRaw).toBe('first of next month');
  });
  it('returns null without quota headers, and null for non-integers', () => {
    expect(parseQuotaHeaders({}, NOW)).toBeNull();
    expect(parseQuotaHeaders({ 'x-quota-limit': '12.5' }, NOW)?.limit).toBeNull();
  });
});
