// The one map from error to exit code, and the README's table of exit codes written from EXIT_TABLE.
import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { AbortedError, InputError, InvalidKeyError, NetworkError, NotFoundError, QuotaExhaustedError, UsageError } from '../../src/api/errors.js';
import { EXIT, EXIT_TABLE, exitCodeFor } from '../../src/cli/exit-codes.js';
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
