import { describe, expect, it } from 'vitest';
import { type RunSummary, renderSummary, staleAnswers } from '../../../src/cli/output/summary.js';
import { createStyle } from '../../../src/cli/output/terminal.js';

const summary: RunSummary = {
  rows: 1000,
  valid: 990,
  invalid: 10,
  duplicates: 120,
  cacheHits: 0,
  lookupsSpent: 870,
  found: 800,
  missing: 70,
  errors: 0,
  requests: 9,
  rateLimited: 0,
  retries: 0,
  elapsedMs: 12_300,
  quota: { limit: 50_000, remaining: 49_130, reset: new Date(Date.UTC(2026, 11, 1)), resetRaw: null, seenAt: 0 },
};

describe('renderSummary', () => {
  it('contains every figure', () => {
    expect(renderSummary(summary).split('\n')).toEqual([
      'rows: read 1,000 · found 800 · missing 70 · invalid 10 · errors 0 · duplicates 120',
      'hosts: distinct 870 · from cache 0 · lookups 870 spent',
      'requests 9 · 429s 0 · retries 0 · 12.3s',
      'quota 49,130 / 50,000 left · resets 2026-12-01',
      'invalid rows: status "invalid" on their rows, the reason column says why · --strict exits 3 when there are any',
    ]);
  });

  it('omits an unknown quota and reports why the run stopped', () => {
    const out = renderSummary({ ...summary, quota: null, stoppedBy: 'budget\x1b[2J reached' });
    expect(out).not.toContain('quota');
    expect(out.split('\n')).toContain('stopped: budget reached');
  });

  it('says how many paid answers the cache did not keep, and why; nothing when all were kept', () => {
    const out = renderSummary({ ...summary, notKept: 1025, notKeptCause: 'the cache is not writable (disk full)' });
    expect(out.split('\n')).toContain('not kept 1,025: the cache is not writable (disk full); in the output, but a re-run will pay for them again');
    expect(renderSummary({ ...summary, notKept: 0, notKeptCause: null })).not.toContain('not kept');
  });

  it('colours only figures that need attention', () => {
    const out = renderSummary({ ...summary, errors: 3 }, createStyle(true));
    expect(out).toContain('\x1b[31merrors 3\x1b[39m');
    expect(out).toContain('\x1b[33minvalid 10\x1b[39m');
    expect(out).not.toContain('\x1b[33m429s');
  });

  it('says how many hosts went unanswered, when the quota fell by other than was spent, and the 429s waited out', () => {
    const lines = renderSummary({ ...summary, unanswered: 50, quotaDrop: 900, rateLimited: 2 }).split('\n');
    expect(lines).toContain('requests 9 · 429s 2 waited out · retries 0 · 12.3s');
    expect(lines).toContain("unanswered 50: left out of the service's batch answers, not recorded as spent; a re-run fetches them");
    expect(lines).toContain(
      'quota check: remaining fell by 900, 870 recorded as spent (another run or client on the account, or charges this run was not told of)',
    );
    const less = renderSummary({ ...summary, quotaDrop: 800 });
    expect(less).toContain('quota check: remaining fell by 800, 870 recorded as spent (the service charged less than it answered)');
    const agreeing = renderSummary({ ...summary, unanswered: 0, quotaDrop: 870 });
    expect(agreeing).not.toContain('quota check');
    expect(agreeing).not.toContain('unanswered');
  });

  it('counts rows given older answers, with the max age in words and the cause (issue 14)', () => {
    const lines = renderSummary({
      ...summary,
      stale: 3,
      staleHosts: 2,
      staleCause: 'the service could not be reached',
      staleWhat: staleAnswers(30 * 86_400_000, false),
    }).split('\n');
    expect(lines).toContain('3 rows from answers older than 30 days: the service could not be reached');
    // They came from the cache too, which the hosts line says next to its cache hits: in hosts (issue 29).
    expect(lines).toContain('hosts: distinct 870 · from cache 0 (+2 older) · lookups 870 spent');
    expect(renderSummary({ ...summary, stale: 0, staleCause: null })).not.toContain('rows from');
    expect(staleAnswers(14 * 86_400_000, false)).toBe('answers older than 2 weeks');
    expect(staleAnswers(86_400_000, false)).toBe('answers older than 1 day');
    expect(staleAnswers(90 * 60_000, false)).toBe('answers older than 90 minutes');
    expect(staleAnswers(1500, false)).toBe('answers older than 1,500 milliseconds');
    expect(staleAnswers(30 * 86_400_000, true)).toBe('answers from before this run (--refresh)');
  });

  it('counts rows a stop left untried as not looked up, in yellow, apart from real errors in red (issue 16)', () => {
    const stopped = { ...summary, found: 300, missing: 70, errors: 620, notLookedUp: 600, stoppedBy: 'interrupted' };
    const lines = renderSummary(stopped).split('\n');
    expect(lines[0]).toBe('rows: read 1,000 · found 300 · missing 70 · invalid 10 · errors 20 · not looked up 600 · duplicates 120');
    expect(lines).toContain('stopped: interrupted');
    const coloured = renderSummary(stopped, createStyle(true));
    expect(coloured).toContain('\x1b[33mnot looked up 600\x1b[39m');
    expect(coloured).toContain('\x1b[31merrors 20\x1b[39m');
    // Every row untried: no red at all, and no "not looked up" when there are none.
    const untried = renderSummary({ ...stopped, errors: 600 }, createStyle(true));
    expect(untried).not.toContain('\x1b[31m');
    expect(untried).toContain('errors 0');
    expect(renderSummary(summary)).not.toContain('not looked up');
  });

  it('names where the rows went, and the invalid rows hint follows the columns and --strict', () => {
    const lines = renderSummary({ ...summary, wrote: 'wrote 1,000 rows to out.csv', columns: { status: 'di_status', reason: 'di_reason' } }).split('\n');
    expect(lines).toContain('wrote 1,000 rows to out.csv');
    expect(lines).toContain('invalid rows: di_status "invalid" on their rows, the di_reason column says why · --strict exits 3 when there are any');
    expect(renderSummary({ ...summary, strict: true }).split('\n')).toContain('invalid rows: status "invalid" on their rows, the reason column says why');
    expect(renderSummary({ ...summary, invalid: 0 })).not.toContain('invalid rows');
  });

  it('wraps each line at its separators to the width, never inside a figure (40, 60, 120 columns)', () => {
    const big = {
      ...summary,
      rows: 30_000,
      valid: 28_413,
      invalid: 1_587,
      duplicates: 20_709,
      found: 1_382,
      missing: 21_711,
      errors: 4_501,
      notLookedUp: 4_501,
    };
    expect(renderSummary(big, undefined, 120).split('\n').slice(0, 2)).toEqual([
      'rows: read 30,000 · found 1,382 · missing 21,711 · invalid 1,587 · errors 0 · not looked up 4,501 · duplicates 20,709',
      'hosts: distinct 7,704 · from cache 0 · lookups 870 spent',
    ]);
    expect(renderSummary(big, undefined, 60).split('\n').slice(0, 3)).toEqual([
      'rows: read 30,000 · found 1,382 · missing 21,711 ·',
      '  invalid 1,587 · errors 0 · not looked up 4,501 ·',
      '  duplicates 20,709',
    ]);
    const at40 = renderSummary(big, undefined, 40).split('\n');
    expect(at40.slice(0, 4)).toEqual([
      'rows: read 30,000 · found 1,382 ·',
      '  missing 21,711 · invalid 1,587 ·',
      '  errors 0 · not looked up 4,501 ·',
      '  duplicates 20,709',
    ]);
    for (const width of [40, 60, 120]) {
      const text = renderSummary(big, undefined, width);
      for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(width);
      // Every figure whole: the text joined back has each number as written.
      for (const figure of ['30,000', '21,711', '20,709', '4,501']) expect(text).toContain(figure);
    }
  });
});
