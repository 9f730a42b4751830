import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { DEFAULT_MAX_AGE_MS, durationText, parseDuration, parsePlan, parseRate } from '../../src/config/values.js';

describe('parseDuration', () => {
  it('reads every unit', () => {
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration(' 1.5h ')).toBe(5_400_000);
    expect(parseDuration('0s')).toBe(0);
  });
  it('throws UsageError on anything else', () => {
    for (const bad of ['', '30', 'd', '-5m', '3y', '5 minutes', '1e3s', 'abc']) expect(() => parseDuration(bad), bad).toThrow(UsageError);
  });
});

describe('parseRate', () => {
  it('reads requests per window, a plain number being per minute', () => {
    expect(parseRate('300/1m')).toEqual({ requests: 300, windowMs: 60_000 });
    expect(parseRate('20/1s')).toEqual({ requests: 20, windowMs: 1000 });
    expect(parseRate('600')).toEqual({ requests: 600, windowMs: 60_000 });
    expect(parseRate('300/m')).toEqual({ requests: 300, windowMs: 60_000 });
    expect(parseRate('10 / 500ms')).toEqual({ requests: 10, windowMs: 500 });
  });
  it('throws UsageError on bad rates', () => {
    for (const bad of ['', '0', '0/1m', '-1', 'ten', '300/', '300/1y', '5/1ms', '1.5/1m']) expect(() => parseRate(bad), bad).toThrow(UsageError);
  });
});

describe('durationText', () => {
  it('writes a duration in the largest whole unit, as parseDuration reads it back', () => {
    expect(durationText(DEFAULT_MAX_AGE_MS)).toBe('30d');
    expect(durationText(30_000)).toBe('30s');
    expect(durationText(14 * 86_400_000)).toBe('2w');
    expect(durationText(90 * 60_000)).toBe('90m');
    expect(durationText(1500)).toBe('1500ms');
    expect(durationText(0)).toBe('0ms');
    for (const ms of [0, 1, 999, 1000, 61_000, 3_600_000, 86_400_000, DEFAULT_MAX_AGE_MS, 123_456_789]) expect(parseDuration(durationText(ms))).toBe(ms);
  });
});

describe('parsePlan', () => {
  it('reads a plan in any case and names where a bad one came from', () => {
    expect(parsePlan(' Business ')).toBe('business');
    expect(parsePlan('business-plus')).toBe('business-plus');
    expect(() => parsePlan('gold', 'DOMAIN_INTEL_PLAN')).toThrow(/^DOMAIN_INTEL_PLAN: unknown plan "gold"; expected one of pro, business, business-plus$/);
    expect(() => parsePlan('gold')).toThrow(UsageError);
  });
});
