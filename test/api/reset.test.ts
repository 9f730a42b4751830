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

describe('rateLimitResume', () => {
  it('says whether the reset was announced, and whether as whole seconds to wait', () => {
    expect(rateLimitResume('2', null, NOW)).toEqual({ at: NOW + 2000, announced: true, rounded: true });
    expect(rateLimitResume(null, { retry_after: 2 }, NOW)).toEqual({ at: NOW + 2000, announced: true, rounded: false });
    expect(rateLimitResume(null, { error: 'rate_limited' }, NOW, 1000)).toEqual({ at: nextBoundary(NOW, 1000), announced: false, rounded: false });
    // A header not believed (a day away) leaves the body's reset, which is not rounded.
    expect(rateLimitResume('86400', { reset_ms: NOW + 500 }, NOW)).toEqual({ at: NOW + 500, announced: true, rounded: false });
  });
  it('prefers Retry-After seconds and HTTP-dates', () => {
    expect(rateLimitResume('12', { reset_at: '2030-01-01T00:00:00Z' }, NOW).at).toBe(NOW + 12_000);
    expect(rateLimitResume('Sun, 22 Nov 2026 10:01:00 GMT', null, NOW).at).toBe(Date.parse('2026-11-22T10:01:00Z'));
  });
  it('reads the plausible body shapes', () => {
    const at = NOW + 20_000;
    expect(rateLimitResume(null, { error: 'rate_limited', reset_at: new Date(at).toISOString() }, NOW).at).toBe(at);
    expect(rateLimitResume(null, { error: 'rate_limited', reset: Math.ceil(at / 1000) }, NOW).at).toBe(Math.ceil(at / 1000) * 1000);
    expect(rateLimitResume(null, { error: 'rate_limited', reset_ms: at }, NOW).at).toBe(at);
    expect(rateLimitResume(null, { error: 'rate_limited', retry_after: 2.5 }, NOW).at).toBe(NOW + 2500);
    expect(rateLimitResume(null, { error: 'rate_limited', retry_after_ms: 750 }, NOW).at).toBe(NOW + 750);
    expect(rateLimitResume(null, { error: 'rate_limited', details: { resetAt: new Date(at).toISOString() } }, NOW).at).toBe(at);
  });
  it('falls back to the next minute boundary, or the given window', () => {
    expect(rateLimitResume(null, { error: 'rate_limited' }, NOW).at).toBe(Date.parse('2026-11-22T10:01:00Z'));
    expect(rateLimitResume(null, 'not json', NOW, 1000).at).toBe(nextBoundary(NOW, 1000));
    // A reset a day away is not believed.
    expect(rateLimitResume(null, { reset_at: '2026-11-23T10:00:00Z' }, NOW).at).toBe(Date.parse('2026-11-22T10:01:00Z'));
  });
  it('tells an announced reset from a guess', () => {
    expect(announcedReset(null, { error: 'rate_limited' }, NOW)).toBeNull();
    expect(announcedReset(null, 'not json', NOW)).toBeNull();
    expect(announcedReset(null, { reset_at: '2026-11-23T10:00:00Z' }, NOW)).toBeNull();
    expect(announcedReset('2', { error: 'rate_limited' }, NOW)).toBe(NOW + 2000);
    expect(announcedReset(null, { reset_ms: NOW + 1500 }, NOW)).toBe(NOW + 1500);
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
