// The one error renderer (the map from error to exit code is tested in exit-codes.test.ts).
import { Writable } from 'node:stream';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { InvalidKeyError, NotFoundError } from '../../../src/api/errors.js';
import { EXIT } from '../../../src/cli/exit-codes.js';
import { createLogger, redact } from '../../../src/cli/output/logger.js';
import { createStyle, sanitizeForTerminal } from '../../../src/cli/output/terminal.js';
import { failureOf, report, reportUsage } from '../../../src/cli/report/errors.js';
import { fakeIo } from '../../helpers/cli.js';

const KEY = `di_live_${'ab'.repeat(24)}`;

function target(json: boolean) {
  let text = '';
  const stderr = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  const logger = createLogger({ stream: stderr, style: createStyle(false), quiet: true, debug: false, secrets: [KEY] });
  const to = { opts: { json }, io: { stderr }, logger, clean: (t: string) => sanitizeForTerminal(redact(t, [KEY])), redact: (t: string) => redact(t, [KEY]) };
  return { to, text: () => text };
}

describe('report', () => {
  it('writes one error line, with the hint, through the logger', () => {
    const t = target(false);
    const code = report(t.to, failureOf(new NotFoundError('x.com: not held', { code: 'not_found', host: 'x.com' }), 'try another'));
    expect(code).toBe(EXIT.NOT_FOUND);
    expect(t.text()).toBe('error: x.com: not held; try another\n');
  });

  it('writes a warning for a run that finished with rows in error', () => {
    const t = target(false);
    expect(report(t.to, { message: '3 rows in error', code: 'incomplete', host: null, exit: EXIT.INCOMPLETE, level: 'warn' })).toBe(EXIT.INCOMPLETE);
    expect(t.text()).toBe('warning: 3 rows in error\n');
  });

  it('under --json writes the object {error, code, host, exit, hint}, cleaned and redacted', () => {
    const t = target(true);
    report(t.to, failureOf(new InvalidKeyError(`key ${KEY} refused\x1b[2J`, { code: 'invalid_key' }), 'replace it'));
    const lines = t.text().split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const obj = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(obj).toEqual({ error: `key …${KEY.slice(-4)} refused`, code: 'invalid_key', host: null, exit: EXIT.INVALID_KEY, hint: 'replace it' });
    expect(t.text()).not.toContain(KEY);
  });

  it('an unexpected error says so and asks for a report', () => {
    const f = failureOf(new TypeError('cannot read x of undefined'));
    expect(f).toMatchObject({ code: 'failure', host: null, exit: EXIT.FAILURE });
    expect(f.message).toBe('unexpected failure: cannot read x of undefined (run again with --debug and report it)');
  });
});

describe('reportUsage', () => {
  const unknown = new CommanderError(1, 'commander.unknownCommand', "error: unknown command 'lokup'\n(Did you mean lookup?)");

  it('one line on stderr, exit 2', () => {
    const fake = fakeIo([], { env: { NO_COLOR: '1' } });
    expect(reportUsage(fake.io, unknown, false)).toBe(EXIT.USAGE);
    expect(fake.stderr()).toBe("error: unknown command 'lokup' (Did you mean lookup?)\n");
    expect(fake.stdout()).toBe('');
  });

  it('the JSON object under --json', () => {
    const fake = fakeIo([], { env: {} });
    expect(reportUsage(fake.io, unknown, true)).toBe(EXIT.USAGE);
    expect(JSON.parse(fake.stderr())).toEqual({ error: "unknown command 'lokup' (Did you mean lookup?)", code: 'usage', host: null, exit: 2 });
  });

  it('nothing more after the help a bare command group printed, unless --json asks for the object', () => {
    const bare = new CommanderError(1, 'commander.help', '(outputHelp)');
    const text = fakeIo([], { env: {} });
    expect(reportUsage(text.io, bare, false)).toBe(EXIT.USAGE);
    expect(text.stderr()).toBe('');
    const json = fakeIo([], { env: {} });
    expect(reportUsage(json.io, bare, true)).toBe(EXIT.USAGE);
    expect(JSON.parse(json.stderr())).toMatchObject({ code: 'usage', exit: 2, error: expect.stringMatching(/subcommand/) });
  });
});
