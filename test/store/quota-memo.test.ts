// The quota memo's rules: which figure wins within a period, what starts a new period, when it is trusted.
// Where it is kept (the account state file) is tested in state.test.ts.
import { describe, expect, it } from 'vitest';
import { exhaustedFigures, figuresOf, mergeFigures, type QuotaFigures, type QuotaMemo, quotaMemoTrusted } from '../../src/store/quota-memo.js';

const RESET = '2026-12-01T00:00:00.000Z';
const HOUR = 3_600_000;
const fig = (remaining: number | null, seenAt: number, over: Partial<QuotaFigures> = {}): QuotaFigures => ({
  limit: 50_000,
  remaining,
  reset: RESET,
  resetRaw: RESET,
  seenAt,
  ...over,
});
const memo = (f: QuotaFigures): QuotaMemo => ({ baseUrl: 'https://api.example/api/v1', keyFingerprint: 'k:000000000000', ...f });

describe('the quota memo', () => {
  it('reads the headers as figures: the reset as an ISO instant, an unreadable one as null with its text kept', () => {
    expect(figuresOf({ limit: 2000, remaining: 5, reset: new Date(RESET), resetRaw: '2026-12-01', seenAt: 7 })).toEqual({
      limit: 2000,
      remaining: 5,
      reset: RESET,
      resetRaw: '2026-12-01',
      seenAt: 7,
    });
    expect(figuresOf({ limit: 2000, remaining: 5, reset: new Date(Number.NaN), resetRaw: 'soon', seenAt: 7 }).reset).toBeNull();
  });

  it('keeps the lowest remaining of a period, whatever order the answers arrive in, seen at the newest', () => {
    let m = mergeFigures(null, fig(30_000, 1));
    m = mergeFigures(m, fig(31_500, 2)); // a slow answer from earlier arrives last
    expect(m).toEqual(fig(30_000, 2));
    m = mergeFigures(m, fig(29_900, 3));
    expect(m.remaining).toBe(29_900);
    // An answer without a remaining figure changes nothing but when the period was last seen.
    expect(mergeFigures(m, fig(null, 4))).toEqual(fig(29_900, 4));
  });

  it('starts a new period on a pack (a higher limit) or a rollover (a later reset), and ignores stragglers of the old', () => {
    const before = fig(0, 1);
    const pack = mergeFigures(before, fig(24_900, 2, { limit: 75_000 }));
    expect(pack).toEqual(fig(24_900, 2, { limit: 75_000 }));
    // An answer sent before the pack, arriving after it: an older period, ignored.
    expect(mergeFigures(pack, fig(0, 3))).toEqual(pack);
    const rollover = mergeFigures(pack, fig(49_000, 4, { reset: '2027-01-01T00:00:00.000Z', resetRaw: 'jan' }));
    expect(rollover.remaining).toBe(49_000);
    expect(rollover.reset).toBe('2027-01-01T00:00:00.000Z');
    expect(mergeFigures(rollover, fig(3, 5))).toEqual(rollover);
  });

  it('takes a lower limit from a request sent after the memo was last seen for news (a plan lowered), not a straggler', () => {
    const before = fig(48_711, 10);
    // With nothing said of when it was sent, a lower limit is a late answer (from before a pack), as ever.
    expect(mergeFigures(before, fig(1_950, 12, { limit: 2000 }))).toEqual(before);
    // Sent before the memo's newest answer was seen: it may be from before a pack, so it is ignored.
    expect(mergeFigures(before, fig(1_950, 12, { limit: 2000, sentAt: 9 }))).toEqual(before);
    // Sent after: the limit was lowered (2,000 where 50,000 was seen). The new figure stands.
    const lowered = mergeFigures(before, fig(1_950, 12, { limit: 2000, sentAt: 11 }));
    expect(lowered).toMatchObject({ limit: 2000, remaining: 1_950, seenAt: 12 });
    // A pack on top of the lowered plan is a newer period again.
    expect(mergeFigures(lowered, fig(26_900, 14, { limit: 27_000, sentAt: 13 })).limit).toBe(27_000);
  });

  it('reads a relative reset that drifts between answers as one period; unreadable resets compare by text', () => {
    const drift = mergeFigures(fig(10, 1), fig(12, 2, { reset: '2026-12-01T00:00:02.000Z', resetRaw: '86398' }));
    expect(drift.remaining).toBe(10);
    const raw = (text: string, remaining: number, seenAt: number) => fig(remaining, seenAt, { reset: null, resetRaw: text });
    expect(mergeFigures(raw('next month', 10, 1), raw('next month', 12, 2)).remaining).toBe(10);
    // Different texts cannot be ordered: the later arrival is the current period.
    expect(mergeFigures(raw('december', 10, 1), raw('january', 40, 2)).remaining).toBe(40);
    expect(mergeFigures(raw('january', 40, 2), raw('december', 10, 1)).remaining).toBe(40);
  });

  it('after a 402 without headers, records nothing left in the period last seen (or in none)', () => {
    expect(exhaustedFigures(fig(120, 1), 5)).toEqual(fig(0, 5));
    expect(exhaustedFigures(null, 5)).toEqual({ limit: null, remaining: 0, reset: null, resetRaw: null, seenAt: 5 });
  });

  it('is trusted only while fresh: under an hour old and its reset not passed', () => {
    const now = Date.parse('2026-11-20T12:00:00Z');
    expect(quotaMemoTrusted(memo(fig(5, now - 10_000)), now)).toBe(true);
    expect(quotaMemoTrusted(memo(fig(5, now - HOUR)), now)).toBe(false);
    expect(quotaMemoTrusted(memo(fig(5, now - 10_000, { reset: '2023-01-01T00:00:00.000Z' })), now)).toBe(false);
    expect(quotaMemoTrusted(memo(fig(5, now - 10_000, { reset: '2026-11-20T12:00:00.000Z' })), now)).toBe(false);
    // An unreadable reset leaves only the age to go by.
    expect(quotaMemoTrusted(memo(fig(5, now - 10_000, { reset: null, resetRaw: '?' })), now)).toBe(true);
    expect(quotaMemoTrusted(memo(fig(5, now - 2 * HOUR, { reset: null, resetRaw: '?' })), now)).toBe(false);
  });
});
