import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/cli/output/logger.js';
import { type ProgressOptions, type ProgressSnapshot, createProgress, formatProgressLine } from '../../../src/cli/output/progress.js';
import { createStyle } from '../../../src/cli/output/terminal.js';

/** Collects what is written; optionally poses as a TTY, with or without cursor control. */
class FakeStream extends Writable {
  text = '';
  isTTY: boolean;
  columns = 80;
  rows = 24;
  constructor(tty: boolean) {
    super();
    this.isTTY = tty;
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** A TTY stand-in with the cursor methods of tty.WriteStream, emitting the same escape codes. */
class FakeTTY extends FakeStream {
  constructor() {
    super(true);
  }
  cursorTo(x: number): boolean {
    return this.write(`\x1b[${x + 1}G`);
  }
  moveCursor(dx: number, dy: number): boolean {
    let seq = '';
    if (dx) seq += dx > 0 ? `\x1b[${dx}C` : `\x1b[${-dx}D`;
    if (dy) seq += dy > 0 ? `\x1b[${dy}B` : `\x1b[${-dy}A`;
    return this.write(seq);
  }
  clearLine(dir: number): boolean {
    return this.write(dir < 0 ? '\x1b[1K' : dir > 0 ? '\x1b[0K' : '\x1b[2K');
  }
}

/** Replays output on a tiny screen model (enough for ora): returns the visible lines. */
function screen(output: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const re = /\x1b\[([?\d;]*)([A-Za-z])|\r|\n|[\s\S]/gu;
  for (const m of output.matchAll(re)) {
    const [tok, params = '', cmd] = m;
    const line = (lines[row] ??= []);
    if (cmd) {
      const n = Number.parseInt(params, 10) || 1;
      if (cmd === 'G') col = n - 1;
      else if (cmd === 'A') row = Math.max(0, row - n);
      else if (cmd === 'B') row += n;
      else if (cmd === 'C') col += n;
      else if (cmd === 'D') col = Math.max(0, col - n);
      else if (cmd === 'K') {
        if (params === '' || params === '0') line.length = Math.min(line.length, col);
        else if (params === '2') line.length = 0;
        else for (let i = 0; i <= col; i++) line[i] = ' ';
      }
      // Colours (m), cursor visibility and synchronised output (?..h/l) do not change the text.
    } else if (tok === '\r') col = 0;
    else if (tok === '\n') {
      row++;
      col = 0;
    } else {
      line[col++] = tok;
    }
  }
  return lines.map((l) =>
    Array.from(l, (c) => c ?? ' ')
      .join('')
      .trimEnd(),
  );
}

const snap: ProgressSnapshot = {
  rowsRead: 1234,
  hostsDone: 900,
  lookupsSpent: 900,
  cacheHits: 12,
  ratePerSec: 45,
  etaMs: 25_000,
  quotaRemaining: 49_100,
};

/** A progress display on `stream` with a logger on the same stream, as the CLI has them on stderr. */
async function withLogger(stream: FakeStream, over: Partial<ProgressOptions> = {}) {
  const style = over.style ?? createStyle(false);
  const logger = createLogger({ stream, style, quiet: false, debug: false, secrets: [] });
  const p = await createProgress({ stream: stream as unknown as NodeJS.WriteStream, enabled: true, style, ...over });
  return { p, logger };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('formatProgressLine', () => {
  it('reads like the spec', () => {
    expect(formatProgressLine(snap, 0)).toBe('1,234 rows · 900 hosts · 45/s · ETA 25s · 900 lookups · 12 cached · quota 49,100');
  });
  it('drops unknowns and shows a 429 pause', () => {
    const line = formatProgressLine({ ...snap, etaMs: null, quotaRemaining: null, ratePerSec: 2.5, waitingUntil: 12_000 }, 1_000);
    expect(line).toBe('paused by rate limit, resuming in 11s · 1,234 rows · 900 hosts · 2.5/s · 900 lookups · 12 cached');
  });
});

describe('createProgress', () => {
  it('when disabled, ignores updates and the logger writes its lines plainly', async () => {
    const stream = new FakeStream(false);
    const { p, logger } = await withLogger(stream, { enabled: false });
    p.update(snap);
    logger.warn('something');
    p.stop();
    expect(stream.text).toBe('warning: something\n');
  });

  it('falls back to plain lines on a TTY that cannot move the cursor', async () => {
    const stream = new FakeStream(true);
    const { p, logger } = await withLogger(stream);
    p.update(snap);
    logger.info('line');
    p.stop();
    expect(stream.text).toBe('line\n');
  });

  it('draws a spinner on a TTY, logs above it, and stop() leaves no spinner', async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    const stream = new FakeTTY();
    const { p, logger } = await withLogger(stream, { style: createStyle(true) });
    p.update(snap);
    expect(screen(stream.text).join('\n')).toContain('900 hosts');

    logger.warn('first');
    p.update({ ...snap, hostsDone: 950 });
    logger.warn('second');
    const during = screen(stream.text).filter((l) => l !== '');
    expect(during.slice(0, 2)).toEqual(['warning: first', 'warning: second']);
    expect(during[2]).toContain('hosts');

    p.stop();
    p.stop();
    p.update(snap); // after stop: nothing drawn
    expect(screen(stream.text).filter((l) => l !== '')).toEqual(['warning: first', 'warning: second']);
    expect(stream.text.endsWith('\x1b[?25h')).toBe(true); // cursor shown again
    const stopped = stream.text.length;
    logger.warn('after'); // and the logger writes to the stream itself again
    expect(stream.text.slice(stopped)).toBe('\x1b[33mwarning:\x1b[39m after\n');
    expect(stdout).not.toHaveBeenCalled();
  });

  it('prints a warning above the live line: clears the line, writes the warning, draws the line again below', async () => {
    const stream = new FakeTTY();
    stream.columns = 120;
    const { p, logger } = await withLogger(stream);
    logger.warn('before any drawing'); // nothing drawn yet: a plain line
    expect(stream.text).toBe('warning: before any drawing\n');
    p.update(snap);
    const drawn = stream.text.length;
    logger.warn('slow host');
    const written = stream.text.slice(drawn);
    const [before, after] = written.split('warning: slow host\n');
    expect(before).toBe('\x1b[1G\x1b[0K'); // cursor to column 1, erase the progress line
    // Then the line again, once, below the warning (in one synchronised update).
    expect(after).toMatch(/^\x1b\[\?2026h\x1b\[1G\S 1,234 rows · 900 hosts · 45\/s · ETA 25s · 900 lookups · 12 cached · quota 49,100\x1b\[\?2026l$/);
    expect(screen(stream.text).filter((l) => l !== '')).toEqual(['warning: before any drawing', 'warning: slow host', expect.stringContaining('900 hosts')]);
    p.stop();
  });

  it('keeps the line within the terminal width', async () => {
    const stream = new FakeTTY();
    stream.columns = 30;
    const p = await createProgress({ stream: stream as unknown as NodeJS.WriteStream, enabled: true, style: createStyle(false) });
    p.update(snap);
    const drawn = screen(stream.text).filter((l) => l !== '');
    p.stop();
    expect(drawn).toHaveLength(1);
    expect(drawn[0]!.length).toBeLessThanOrEqual(30);
  });

  it('draws no spinner on a terminal that reports a width of 0, and still ends', async () => {
    const stream = new FakeTTY();
    stream.columns = 0;
    const { p, logger } = await withLogger(stream);
    p.update(snap);
    logger.warn('kept');
    p.stop();
    expect(stream.text).toBe('warning: kept\n');
  });
});
