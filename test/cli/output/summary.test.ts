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
      'rows 1,000 · valid 990 · invalid 10 · duplicates 120',
      'lookups 870 spent · 0 from cache · found 800 · missing 70 · errors 0',
      'requests 9 · 429s 0 · retries 0 · 12.3s',
      'quota 49,130 / 50,000 left · resets 2026-12-01',
    ]);
  });

  it('omits an unknown quota and reports why the run stopped', () => {
    const out = renderSummary({ ...summary, quota: null, stoppedBy: 'budget\x1b[2J reached' });
    expect(out).not.toContain('quota');
    expect(out.split('\n').at(-1)).toBe('stopped: budget reached');
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
      staleCause: 'the service could not be reached',
      staleWhat: staleAnswers(30 * 86_400_000, false),
    }).split('\n');
    expect(lines).toContain('3 rows from answers older than 30 days: the service could not be reached');
    // They came from the cache too, which the lookups line says next to its cache hits.
    expect(lines).toContain('lookups 870 spent · 0 from cache (+3 older) · found 800 · missing 70 · errors 0');
    expect(renderSummary({ ...summary, stale: 0, staleCause: null })).not.toContain('rows from');
    expect(staleAnswers(14 * 86_400_000, false)).toBe('answers older than 2 weeks');
    expect(staleAnswers(86_400_000, false)).toBe('answers older than 1 day');
    expect(staleAnswers(90 * 60_000, false)).toBe('answers older than 90 minutes');
    expect(staleAnswers(1500, false)).toBe('answers older than 1,500 milliseconds');
    expect(staleAnswers(30 * 86_400_000, true)).toBe('answers from before this run (--refresh)');
  });
});
