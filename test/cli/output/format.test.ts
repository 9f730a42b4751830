import { describe, expect, it } from 'vitest';
import type { QuotaInfo } from '../../../src/api/types.js';
import { formatQuotaLine, groupedNumber, humanDuration, humanNumber, relativeAge } from '../../../src/cli/output/format.js';

describe('humanNumber', () => {
  it.each([
    [0, '0'],
    [950, '950'],
    [1000, '1k'],
    [1234, '1.2k'],
    [34_500, '34.5k'],
    [345_600, '346k'],
    [999_960, '1M'],
    [1_234_567, '1.2M'],
    [2_500_000_000, '2.5B'],
    [-1500, '-1.5k'],
  ])('%d -> %s', (n, text) => {
    expect(humanNumber(n)).toBe(text);
  });
});

describe('groupedNumber', () => {
  it('groups thousands and shows null as ?', () => {
    expect(groupedNumber(49_812)).toBe('49,812');
    expect(groupedNumber(null)).toBe('?');
  });

  it('reads exactly as Intl en-US does, whole numbers included (they are grouped without it)', () => {
    const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
    const values = [
      0,
      -0,
      7,
      -999,
      1000,
      -1000,
      123_456_789,
      2_000_000_000,
      Number.MAX_SAFE_INTEGER,
      -Number.MIN_SAFE_INTEGER,
      2 ** 60,
      1e21,
      1.005,
      -0.004,
      1234.5678,
      NaN,
      Infinity,
    ];
    for (let digits = 1; digits <= 16; digits++) values.push(Math.floor(10 ** digits * 0.7315), -Math.floor(10 ** digits * 0.4861));
    for (const n of values) expect(groupedNumber(n)).toBe(Number.isFinite(n) ? intl.format(n) : String(n));
  });
});

describe('humanDuration', () => {
  it.each([
    [350, '350ms'],
    [999.7, '1.0s'],
    [4_200, '4.2s'],
    [12_340, '12.3s'],
    [59_970, '1m 00s'],
    [185_000, '3m 05s'],
    [3_720_000, '1h 02m'],
    [2 * 86_400_000 + 3 * 3_600_000, '2d 03h'],
    [-5, '0ms'],
  ])('%d -> %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('relativeAge', () => {
  it('reads past and future ages', () => {
    expect(relativeAge(5_000)).toBe('just now');
    expect(relativeAge(5 * 60_000)).toBe('5 minutes ago');
    expect(relativeAge(60_000)).toBe('1 minute ago');
    expect(relativeAge(59.8 * 60_000)).toBe('1 hour ago');
    expect(relativeAge(3 * 86_400_000)).toBe('3 days ago');
    expect(relativeAge(-8 * 86_400_000)).toBe('in 8 days');
  });
});

describe('formatQuotaLine', () => {
  const now = Date.UTC(2026, 10, 23);
  const base: QuotaInfo = { limit: 50_000, remaining: 49_812, reset: null, resetRaw: null, seenAt: now };

  it('shows a known reset as a date and how far off it is', () => {
    const line = formatQuotaLine({ ...base, reset: new Date(Date.UTC(2026, 11, 1)) }, now);
    expect(line).toBe('quota: 49,812 / 50,000 lookups left · resets 2026-12-01 (in 8 days)');
  });

  it('falls back to the raw header text, sanitised', () => {
    const line = formatQuotaLine({ ...base, resetRaw: 'next month\x1b[31m!' }, now);
    expect(line).toBe('quota: 49,812 / 50,000 lookups left · resets next month!');
  });

  it('shows ? for unknowns', () => {
    const line = formatQuotaLine({ ...base, limit: null, remaining: null }, now);
    expect(line).toBe('quota: ? / ? lookups left · resets ?');
  });
});
