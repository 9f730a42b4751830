import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, redact } from '../../../src/cli/output/logger.js';
import { createStyle } from '../../../src/cli/output/terminal.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

const KEY = `di_live_${'0123456789abcdef'.repeat(3)}`;

function setup(over: Partial<Parameters<typeof createLogger>[0]> = {}) {
  const stream = new Capture();
  const log = createLogger({
    stream,
    style: createStyle(false),
    quiet: false,
    debug: false,
    secrets: [KEY],
    now: () => Date.UTC(2026, 10, 23),
    ...over,
  });
  return { stream, log };
}

describe('redact', () => {
  it('masks each secret to its last four characters', () => {
    expect(redact(`key=${KEY}; again ${KEY}`, [KEY])).toBe('key=…cdef; again …cdef');
  });
  it('ignores secrets shorter than 8 characters', () => {
    expect(redact('abc abc', ['abc', ''])).toBe('abc abc');
  });
});

describe('createLogger', () => {
  it('prefixes warnings and errors and never prints the key', () => {
    const { stream, log } = setup();
    log.info(`using key ${KEY}`);
    log.warn(`header echoed Authorization: Bearer ${KEY}`);
    log.error(`rejected ${KEY}`);
    expect(stream.text).not.toContain(KEY);
    expect(stream.text).not.toContain('0123456789abcdef0123');
    expect(stream.text.split('\n')).toEqual(['using key …cdef', 'warning: header echoed Authorization: Bearer …cdef', 'error: rejected …cdef', '']);
  });

  it('redacts a key split by an escape sequence', () => {
    const { stream, log } = setup();
    log.error(`${KEY.slice(0, 20)}\x1b[0m${KEY.slice(20)}`);
    expect(stream.text).not.toContain(KEY);
    expect(stream.text).toContain('…cdef');
  });

  it('sanitises messages to one line', () => {
    const { stream, log } = setup();
    log.warn('bad host \x1b]8;;http://x\x07evil.com\x1b]8;;\x07\nnext');
    expect(stream.text).toBe('warning: bad host evil.com␊next\n');
  });

  it('wraps the quota line on a narrow terminal at its separators and words, its figures whole (issue 29)', () => {
    const stream = Object.assign(new Capture(), { isTTY: true, columns: 30 });
    const log = createLogger({ stream, style: createStyle(false), quiet: false, debug: false, secrets: [], now: () => Date.UTC(2026, 10, 23) });
    log.quota({ limit: 75_000, remaining: 7_208, reset: new Date(Date.UTC(2026, 11, 1)), resetRaw: null, seenAt: 0 });
    const lines = stream.text.trimEnd().split('\n');
    expect(lines[0]).toBe('quota: 7,208 / 75,000 lookups');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(lines).toEqual(['quota: 7,208 / 75,000 lookups', '  left ·', '  resets 2026-12-01 (in 8', '  days)']);
  });

  it('prints debug only when asked, and quiet hides info and quota', () => {
    const quota = { limit: 50_000, remaining: 49_812, reset: null, resetRaw: null, seenAt: 0 };
    const loud = setup({ debug: true });
    loud.log.debug('detail');
    loud.log.quota(quota);
    expect(loud.stream.text).toBe('debug: detail\nquota: 49,812 / 50,000 lookups left · resets ?\n');

    const quiet = setup({ quiet: true });
    quiet.log.debug('detail');
    quiet.log.info('info');
    quiet.log.quota(quota);
    quiet.log.warn('still shown');
    expect(quiet.stream.text).toBe('warning: still shown\n');
  });

  it('colours prefixes when styled, one write per line', () => {
    const { stream, log } = setup({ style: createStyle(true) });
    const write = vi.spyOn(stream, 'write');
    log.error('boom');
    log.warn(`key ${KEY}`);
    expect(stream.text).toBe('\x1b[31merror:\x1b[39m boom\n\x1b[33mwarning:\x1b[39m key …cdef\n');
    // Whole lines, so a live progress line on the same stream can be cleared and drawn again around each.
    expect(write.mock.calls.map(([chunk]) => String(chunk))).toEqual(['\x1b[31merror:\x1b[39m boom\n', '\x1b[33mwarning:\x1b[39m key …cdef\n']);
  });
});

describe('warnings on a terminal (issue 16)', () => {
  const message = '1,500 rows in error (the first: batch: connection failed); run the same command again to fetch only those';
  it('wrap at spaces to its width, never mid-word; a log keeps them on one line', () => {
    const tty = Object.assign(new Capture(), { isTTY: true, columns: 60 });
    setup({ stream: tty }).log.warn(message);
    expect(tty.text).toBe('warning: 1,500 rows in error (the first: batch: connection\n  failed); run the same command again to fetch only those\n');
    const { stream, log } = setup();
    log.warn(message);
    expect(stream.text).toBe(`warning: ${message}\n`);
  });

  it('wraps errors and notes the same way (an error cut ECONNREF / USED at 60 columns)', () => {
    const tty = Object.assign(new Capture(), { isTTY: true, columns: 60 });
    const { log } = setup({ stream: tty });
    log.error('cannot reach the service at http://127.0.0.1:1/api/v1: the connection was refused (ECONNREFUSED)');
    log.info('no technology named "wordpress"; using "WordPress", the one that matches ignoring case');
    const lines = tty.text.split('\n').filter((l) => l !== '');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(tty.text).toContain('(ECONNREFUSED)');
    expect(tty.text).toContain('"WordPress",');
    expect(lines[0]?.startsWith('error: cannot reach the service at')).toBe(true);
  });
});
