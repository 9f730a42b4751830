// The one map to exit codes (from an error, and from how a run ended), and the README's table of exit codes written from EXIT_TABLE.
import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { AbortedError, InputError, InvalidKeyError, NetworkError, NotFoundError, QuotaExhaustedError, UsageError } from '../../src/api/errors.js';
import { EXIT, EXIT_TABLE, exitCodeFor, type RunEndFacts, runExit } from '../../src/cli/exit-codes.js';
import { emptyStats, type RunStats } from '../../src/run/stats.js';
import { StoreUnavailableError } from '../../src/store/errors.js';

describe('exitCodeFor', () => {
  it('maps each kind of error to its documented code', () => {
    expect(exitCodeFor(new UsageError('x'))).toBe(EXIT.USAGE);
    expect(exitCodeFor(new InputError('x', 'f.csv', 3))).toBe(EXIT.USAGE);
    expect(exitCodeFor(new InvalidKeyError('x', { code: 'invalid_key' }))).toBe(EXIT.INVALID_KEY);
    expect(exitCodeFor(new QuotaExhaustedError('x', { code: 'quota_exhausted' }))).toBe(EXIT.QUOTA);
    expect(exitCodeFor(new NotFoundError('x', { code: 'not_found' }))).toBe(EXIT.NOT_FOUND);
    expect(exitCodeFor(new AbortedError())).toBe(EXIT.INTERRUPTED);
    expect(exitCodeFor(new NetworkError('x', { code: 'timeout' }))).toBe(EXIT.NETWORK);
    expect(exitCodeFor(new TypeError('a bug'))).toBe(EXIT.FAILURE);
    expect(exitCodeFor(new StoreUnavailableError('postgres://db/x', 'cannot use the store postgres://db/x: refused'))).toBe(EXIT.STORE);
    // A URL refused for its form is a usage error, as any bad option is.
    expect(exitCodeFor(new StoreUnavailableError('mysql://db/x', 'not a PostgreSQL URL', { code: 'bad_store' }))).toBe(EXIT.USAGE);
  });

  it("gives commander's usage errors the usage code, and its --help and --version 0", () => {
    expect(exitCodeFor(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"))).toBe(EXIT.USAGE);
    expect(exitCodeFor(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe(EXIT.OK);
  });
});

describe('EXIT_TABLE', () => {
  it('lists every exit code once, and the README table says the same (backticks aside)', () => {
    expect(EXIT_TABLE.map(([code]) => code)).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Exit codes'));
    const rows = [...section.matchAll(/^\| (\d+) \| (.*) \|$/gm)].map((m): [number, string] => [Number(m[1]), (m[2] ?? '').replaceAll('`', '')]);
    expect(rows).toEqual(EXIT_TABLE);
  });
});

describe('runExit', () => {
  const facts: RunEndFacts = {
    cache: true,
    maxLookups: null,
    maxAgeMs: 30 * 86_400_000,
    refresh: false,
    strict: false,
    short: null,
    partial: null,
    baseUrlHint: () => 'the base URL comes from --base-url',
  };
  const end = (s: Partial<RunStats>, f: Partial<RunEndFacts> = {}) => runExit({ ...emptyStats(0), ...s }, { ...facts, ...f });

  it('says nothing for a clean run, or a closed pipe', () => {
    expect(end({ rows: 3, found: 3 })).toEqual({ exit: EXIT.OK, said: null });
    expect(end({ stoppedBy: 'closed', errors: 5 })).toEqual({ exit: EXIT.PIPE, said: null });
    // Invalid rows are an exit of their own only under --strict.
    expect(end({ invalid: 2 }).exit).toBe(EXIT.OK);
    expect(end({ invalid: 2 }, { strict: true })).toEqual({ exit: EXIT.INVALID_ROWS, said: { code: 'invalid_rows', message: '2 invalid rows (--strict)' } });
  });

  it('maps each stop reason to its code, in the words the run uses', () => {
    const short = end({ stoppedBy: 'short' }, { short: { needed: 1500, remaining: 20 } });
    expect(short.exit).toBe(EXIT.QUOTA);
    expect(short.said?.message).toMatch(/^this run needs 1,500 lookups but only 20 are left; add --allow-partial/);
    expect(end({ stoppedBy: 'aborted' }).said).toEqual({
      code: 'interrupted',
      message: 'interrupted: answers so far are cached; run the same command again to resume',
    });
    expect(end({ stoppedBy: 'aborted' }, { cache: false }).said?.message).toMatch(/not kept \(--no-cache\)/);
    const quota = end({ stoppedBy: 'quota', errors: 4, notLookedUp: 3, found: 2 }, { partial: 'out.csv.partial' });
    expect(quota).toEqual({
      exit: EXIT.QUOTA,
      said: {
        code: 'quota_exhausted',
        message:
          'stopped by the monthly quota: 3 rows not looked up, 1 rows in error; out.csv.partial holds the rest; add a pack or wait for the month to roll over',
      },
    });
    const budget = end({ stoppedBy: 'budget', errors: 2, notLookedUp: 2, found: 1, lookupsSpent: 1 }, { maxLookups: 1 });
    expect(budget.exit).toBe(EXIT.INCOMPLETE);
    expect(budget.said?.code).toBe('budget');
  });

  it('tells an unreachable service (nothing came back) from rows that failed among answers', () => {
    const down = end({ stoppedBy: 'unreachable', errors: 3, errorCause: 'connection refused' });
    expect(down.exit).toBe(EXIT.NETWORK);
    expect(down.said?.message).toBe(
      '3 rows in error (the first: connection refused); the base URL comes from --base-url; run the same command again to fetch only those',
    );
    const some = end({ errors: 1, found: 2, lookupsSpent: 2 });
    expect(some).toMatchObject({ exit: EXIT.INCOMPLETE, said: { code: 'incomplete' } });
  });

  it('counts older answers and answers not kept as unfinished business', () => {
    expect(end({ stale: 2, staleCause: 'the service is unreachable' }).said).toEqual({
      code: 'stale',
      message: '2 rows from answers older than 30 days: the service is unreachable; run the same command again to refresh them',
    });
    expect(end({ stale: 2 }).exit).toBe(EXIT.INCOMPLETE);
    const notKept = end({ notKept: 4, notKeptCause: 'disk full' });
    expect(notKept.exit).toBe(EXIT.NOT_KEPT);
    expect(notKept.said?.message).toMatch(/^4 paid answers are in the output but not in the cache: disk full; a re-run will pay/);
  });
});
