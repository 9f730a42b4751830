// The secret prompt on a fake terminal: the prompt is shown, what is typed is never written back, the
// terminal is in raw mode while it reads (so the terminal itself does not echo either), and Ctrl-C cancels.
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { readSecret } from '../../src/cli/prompt.js';

const SECRET = 'di_live_0123456789abcdef0123456789abcdef01239f3a';

function fakeTerminal() {
  const rawModes: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode(mode: boolean) {
      rawModes.push(mode);
      stdin.isRaw = mode;
      return stdin;
    },
  });
  let written = '';
  const stderr = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written += chunk.toString();
        done();
      },
    }),
    { isTTY: true, columns: 80 },
  );
  const type = (text: string) => setImmediate(() => stdin.write(text));
  return { stdin: stdin as unknown as NodeJS.ReadStream, stderr: stderr as unknown as NodeJS.WriteStream, rawModes, type, written: () => written };
}

describe('readSecret on a terminal', () => {
  it('shows the prompt and never echoes the typed key', async () => {
    const t = fakeTerminal();
    t.type(`${SECRET}\r`);
    await expect(readSecret(t.stdin, t.stderr, 'API key: ')).resolves.toBe(SECRET);
    expect(t.written()).toBe('API key: \n');
    expect(t.rawModes).toEqual([true, false]);
  });

  it('keeps line editing: a backspace removes the last character typed, unseen', async () => {
    const t = fakeTerminal();
    t.type(`${SECRET}x\x7f\r`);
    await expect(readSecret(t.stdin, t.stderr, 'API key: ')).resolves.toBe(SECRET);
    expect(t.written()).toBe('API key: \n');
  });

  it('cancels on Ctrl-C without echoing what was typed so far', async () => {
    const t = fakeTerminal();
    t.type('di_live_0123\x03');
    const err = await readSecret(t.stdin, t.stderr, 'API key: ').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('cancelled');
    expect(t.written()).toBe('API key: ');
    expect(t.rawModes).toEqual([true, false]);
  });
});

describe('readSecret from a pipe', () => {
  it('reads all of stdin, trimmed, and prints no prompt', async () => {
    const t = fakeTerminal();
    const piped = Object.assign(Readable.from([Buffer.from(`  ${SECRET}\n`)]), { isTTY: false }) as unknown as NodeJS.ReadStream;
    await expect(readSecret(piped, t.stderr, 'API key: ')).resolves.toBe(SECRET);
    expect(t.written()).toBe('');
  });
});
