import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/cli/output/logger.js';
import { type ProgressOptions, type ProgressSnapshot, createProgress, formatProgressLine, plainProgressLine } from '../../../src/cli/output/progress.js';
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
  rows: 26_093,
  hosts: 7_624,
  cached: 120,
  lookupsDone: 3_000,
  lookupsNeeded: 7_624,
  readShare: null,
  etaMs: 65_000,
  etaEstimated: false,
  lookupsPerSec: 51.2,
  elapsedMs: 58_600,
  quotaRemaining: 94_099,
  waitingUntil: null,
};

const FULL = 'lookups 3,000 / 7,624 (39%) · ETA 1m 05s · quota 94,099 · 26,093 rows · 7,624 hosts · 120 cached · 51 lookups/s';

/** A progress display on `stream` reading `figures()`, with a logger on the same stream, as the CLI has them on stderr. */
async function withLogger(stream: FakeStream, over: Partial<ProgressOptions> = {}, figures: () => ProgressSnapshot | null = () => snap) {
  const style = over.style ?? createStyle(false);
  const logger = createLogger({ stream, style, quiet: false, debug: false, secrets: [] });
  const p = await createProgress({
    stream: stream as unknown as NodeJS.WriteStream,
    enabled: true,
    style,
    read: figures,
    plainEveryMs: null,
    now: () => 0,
    ...over,
  });
  return { p, logger };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('formatProgressLine', () => {
  it('puts the need, the ETA and the quota first, then distinct hosts and rows', () => {
    expect(formatProgressLine(snap, 0)).toBe(FULL);
  });

  it('before the need is known: lookups so far, the share of the file read, and an estimated ETA', () => {
    const line = formatProgressLine({ ...snap, lookupsNeeded: null, readShare: 0.426, etaEstimated: true, etaMs: 12_300 }, 0);
    expect(line).toBe('lookups 3,000 · read 42% · ETA ~13s · quota 94,099 · 26,093 rows · 7,624 hosts · 120 cached · 51 lookups/s');
  });

  it('while the rate is being learned: no figure, said so (a tryout saw `ETA ~26s` for a 3-minute run)', () => {
    const line = formatProgressLine({ ...snap, etaMs: null, etaLearning: true }, 0);
    expect(line).toContain('ETA: learning the rate');
    expect(line).not.toMatch(/ETA ~?\d/);
    // Narrow: the short form before it is dropped.
    expect(formatProgressLine({ ...snap, etaMs: null, etaLearning: true }, 0, 60)).not.toContain('learning the rate ·');
  });

  it('drops unknowns and shows a 429 pause', () => {
    const line = formatProgressLine({ ...snap, etaMs: null, quotaRemaining: null, lookupsPerSec: 2.5, waitingUntil: 12_000 }, 1_000);
    expect(line).toBe('paused by rate limit, resuming in 11s · lookups 3,000 / 7,624 (39%) · 26,093 rows · 7,624 hosts · 120 cached · 2.5 lookups/s');
  });

  it("says when the limiter's next slot frees while every slot is held (the counts stand still meanwhile)", () => {
    const line = formatProgressLine({ ...snap, etaMs: null, quotaRemaining: null, lookupsPerSec: 2.5, nextSlotAt: 10_000 }, 1_000);
    expect(line).toBe('at the rate limit, next request in 9s · lookups 3,000 / 7,624 (39%) · 26,093 rows · 7,624 hosts · 120 cached · 2.5 lookups/s');
    // Under a second: not worth a word.
    expect(formatProgressLine({ ...snap, nextSlotAt: 1_500 }, 1_000)).not.toContain('next request');
  });

  // The width the spinner leaves: the terminal's columns less 3 (spinner, space, one spare).
  it.each([
    [120, FULL],
    [60, 'lookups 3,000 / 7,624 (39%) · ETA 1m 05s · quota 94,099'],
    [40, 'lookups 3,000 / 7,624 · ETA 1m 05s'],
  ])('at %i columns drops the least useful fields first, never cutting a number', (columns, expected) => {
    const line = formatProgressLine(snap, 0, columns - 3);
    expect(line).toBe(expected);
    expect(line.length).toBeLessThanOrEqual(columns - 3);
  });

  it.each([
    [120, 'paused by rate limit, resuming in 43s · lookups 3,000 / 7,624 (39%) · ETA 1m 05s · quota 94,099 · 26,093 rows'],
    [60, 'paused 43s · lookups 3,000 / 7,624 (39%) · ETA 1m 05s'],
    [40, 'paused 43s · lookups 3,000 / 7,624'],
  ])('at %i columns a 429 pause keeps its countdown, shortened before the need is', (columns, expected) => {
    expect(formatProgressLine({ ...snap, waitingUntil: 43_000 }, 0, columns - 3)).toBe(expected);
  });

  it('cuts the one field left only on a terminal too narrow for it', () => {
    expect(formatProgressLine(snap, 0, 12)).toBe('lookups 3,0…');
  });

  it('plain lines (off a TTY) carry every field and the time elapsed', () => {
    expect(plainProgressLine(snap, 0)).toBe(`progress after 58.6s: ${FULL}`);
  });
});

describe('createProgress', () => {
  it('when disabled, draws nothing and the logger writes its lines plainly', async () => {
    const stream = new FakeStream(false);
    const { p, logger } = await withLogger(stream, { enabled: false, plainEveryMs: 10 });
    vi.advanceTimersByTime(1000);
    logger.warn('something');
    p.stop();
    expect(stream.text).toBe('warning: something\n');
  });

  it('off a TTY without --progress, writes nothing', async () => {
    const stream = new FakeStream(false);
    const { p } = await withLogger(stream);
    vi.advanceTimersByTime(60_000);
    p.stop();
    expect(stream.text).toBe('');
  });

  it('off a TTY with --progress, writes a plain line every interval from the live figures, and none after stop', async () => {
    const stream = new FakeStream(false);
    let now = 0;
    let figures: ProgressSnapshot | null = null;
    const { p } = await withLogger(stream, { plainEveryMs: 10_000, now: () => now }, () => figures);
    vi.advanceTimersByTime(10_000);
    expect(stream.text).toBe(''); // nothing reported yet: nothing to say
    figures = { ...snap, lookupsDone: 1_000, elapsedMs: 20_000 };
    now = 20_000;
    vi.advanceTimersByTime(9_999);
    expect(stream.text).toBe('');
    vi.advanceTimersByTime(1);
    figures = { ...snap, elapsedMs: 30_000 };
    vi.advanceTimersByTime(10_000);
    const lines = stream.text.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^progress after 20\.0s: lookups 1,000 \/ 7,624 \(13%\) · ETA 1m 05s · /),
      expect.stringMatching(/^progress after 30\.0s: lookups 3,000 \/ 7,624 \(39%\) · /),
      '',
    ]);
    expect(stream.text).not.toMatch(/\r|\x1b/);
    p.stop();
    vi.advanceTimersByTime(60_000);
    expect(stream.text.split('\n')).toHaveLength(3);
  });

  it('falls back to plain log lines on a TTY that cannot move the cursor', async () => {
    const stream = new FakeStream(true);
    const { p, logger } = await withLogger(stream);
    vi.advanceTimersByTime(1000);
    logger.info('line');
    p.stop();
    expect(stream.text).toBe('line\n');
  });

  it('redraws on a timer four times a second from the live figures, with no call from the run', async () => {
    const stream = new FakeTTY();
    stream.columns = 120;
    let figures = snap;
    const { p } = await withLogger(stream, {}, () => figures);
    vi.advanceTimersByTime(249);
    expect(screen(stream.text).join('')).toBe(''); // the first redraw comes at 250 ms
    vi.advanceTimersByTime(1);
    expect(screen(stream.text).join('\n')).toContain('lookups 3,000 / 7,624');
    figures = { ...snap, lookupsDone: 3_100 };
    vi.advanceTimersByTime(250);
    expect(screen(stream.text).join('\n')).toContain('lookups 3,100 / 7,624');
    p.stop();
  });

  it('waits firstDrawMs before its first frame (rows piped on: | head), then redraws as usual', async () => {
    const stream = new FakeTTY();
    stream.columns = 120;
    const { p } = await withLogger(stream, { firstDrawMs: 1000, now: () => Date.now() });
    vi.advanceTimersByTime(999);
    expect(stream.text).toBe(''); // nothing at all: a `| head` that ends in this second leaves no debris
    vi.advanceTimersByTime(1);
    expect(screen(stream.text).join('\n')).toContain('lookups 3,000 / 7,624');
    p.stop();
  });

  it('draws a spinner on a TTY, logs above it, and stop() leaves no spinner', async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    const stream = new FakeTTY();
    stream.columns = 120;
    let figures = snap;
    const { p, logger } = await withLogger(stream, { style: createStyle(true) }, () => figures);
    vi.advanceTimersByTime(250);
    expect(screen(stream.text).join('\n')).toContain('7,624 hosts');

    logger.warn('first');
    figures = { ...snap, lookupsDone: 3_500 };
    vi.advanceTimersByTime(250);
    logger.warn('second');
    const during = screen(stream.text).filter((l) => l !== '');
    expect(during.slice(0, 2)).toEqual(['warning: first', 'warning: second']);
    expect(during[2]).toContain('lookups 3,500');

    p.stop();
    p.stop();
    vi.advanceTimersByTime(1000); // after stop: nothing drawn
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
    vi.advanceTimersByTime(250);
    const drawn = stream.text.length;
    logger.warn('slow host');
    const written = stream.text.slice(drawn);
    const [before, after] = written.split('warning: slow host\n');
    expect(before).toBe('\x1b[1G\x1b[0K'); // cursor to column 1, erase the progress line
    // Then the line again, once, below the warning (in one synchronised update).
    expect(after?.startsWith('\x1b[?2026h\x1b[1G')).toBe(true);
    expect(after?.endsWith(` ${FULL}\x1b[?2026l`)).toBe(true);
    expect(after?.split(FULL)).toHaveLength(2);
    expect(screen(stream.text).filter((l) => l !== '')).toEqual(['warning: before any drawing', 'warning: slow host', expect.stringContaining(FULL)]);
    p.stop();
  });

  it.each([40, 60, 120])('keeps the line within a terminal %i columns wide', async (columns) => {
    const stream = new FakeTTY();
    stream.columns = columns;
    const { p } = await withLogger(stream);
    vi.advanceTimersByTime(250);
    const drawn = screen(stream.text).filter((l) => l !== '');
    p.stop();
    expect(drawn).toHaveLength(1);
    expect(drawn[0]).toMatch(/^\S lookups 3,000 \/ 7,624/);
    expect(drawn[0]!.length).toBeLessThan(columns);
  });

  it('draws no spinner on a terminal that reports a width of 0, and still ends', async () => {
    const stream = new FakeTTY();
    stream.columns = 0;
    const { p, logger } = await withLogger(stream);
    vi.advanceTimersByTime(1000);
    logger.warn('kept');
    p.stop();
    expect(stream.text).toBe('warning: kept\n');
  });
});
