// Lines of `·`-separated parts wrapped to a terminal's width at the separators, never inside a figure (issue 16).
import { describe, expect, it } from 'vitest';
import { createStyle } from '../../../src/cli/output/terminal.js';
import { wrapLine, wrapLines, wrapWidth, wrapWords } from '../../../src/cli/output/wrap.js';

const LINE = 'rows 19,646 · valid 18,634 · invalid 1,012 · duplicates 12,205';

describe('wrapLine', () => {
  it('leaves a line that fits, and any line off a terminal, as it is', () => {
    expect(wrapLine(LINE, 120)).toBe(LINE);
    expect(wrapLine(LINE, undefined)).toBe(LINE);
  });

  it('breaks at the separators, the separator closing its line and the next indented (40, 60 columns)', () => {
    expect(wrapLine(LINE, 60).split('\n')).toEqual(['rows 19,646 · valid 18,634 · invalid 1,012 ·', '  duplicates 12,205']);
    expect(wrapLine(LINE, 40).split('\n')).toEqual(['rows 19,646 · valid 18,634 ·', '  invalid 1,012 · duplicates 12,205']);
  });

  it('breaks a part wider than the line between its words, never inside one', () => {
    const warning = 'warning: 1,500 rows in error (the first: batch: connection failed (ECONNREFUSED)); run the same command again to fetch only those';
    const lines = wrapLine(warning, 40).split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    expect(lines.map((l) => l.trim()).join(' ')).toBe(warning);
    expect(lines).toContain('  (ECONNREFUSED)); run the same command');
  });

  it('keeps a separator with the word before it when a part breaks between words: no line starts with one', () => {
    expect(wrapLine('aaaa bbbb · cc', 9).split('\n')).toEqual(['aaaa', '  bbbb ·', '  cc']);
  });

  it('lets a word wider than the line overflow rather than cut it', () => {
    const path = `wrote 10 rows to /tmp/${'x'.repeat(50)}.csv`;
    expect(wrapLine(path, 40).split('\n')).toEqual(['wrote 10 rows to', `  /tmp/${'x'.repeat(50)}.csv`]);
  });

  it('measures without colour codes', () => {
    const style = createStyle(true);
    const coloured = `rows 1,000 · ${style.red('errors 3')} · found 997`;
    expect(wrapLine(coloured, 33)).toBe(coloured); // 33 columns shown, more bytes
    expect(wrapLine(coloured, 25).split('\n')).toEqual([`rows 1,000 · ${style.red('errors 3')} ·`, '  found 997']);
  });
});

describe('wrapLines and wrapWidth', () => {
  it('wraps each line of a block', () => {
    expect(wrapLines(`${LINE}\nshort`, 40).split('\n')).toEqual(['rows 19,646 · valid 18,634 ·', '  invalid 1,012 · duplicates 12,205', 'short']);
  });
  it('is the width of a terminal only', () => {
    expect(wrapWidth({ isTTY: true, columns: 60 })).toBe(60);
    expect(wrapWidth({ isTTY: false, columns: 60 })).toBeUndefined();
    expect(wrapWidth({})).toBeUndefined();
  });
});

// Issue 29: the quota line broke between its figures (`7,208` / `/ 75,000 lookups left`).
describe('a figure of two numbers (`7,208 / 75,000`)', () => {
  it('is never broken at its slash', () => {
    const quota = 'quota: 7,208 / 75,000 lookups left · resets 2026-12-01 (in 3 days)';
    expect(wrapLine(quota, 20).split('\n')).toEqual(['quota:', '  7,208 / 75,000', '  lookups left ·', '  resets 2026-12-01', '  (in 3 days)']);
    for (const width of [12, 16, 24, 30, 40, 50]) expect(wrapLine(quota, width)).toContain('7,208 / 75,000');
  });
});

describe('wrapWords (a table cell, a value beside its label)', () => {
  it('breaks at spaces and after a list separator, cutting nothing', () => {
    expect(wrapWords('Apache HTTP Server;Cloudflare;HSTS', 18)).toEqual(['Apache HTTP', 'Server;Cloudflare;', 'HSTS']);
    expect(wrapWords('Hotjar, Google Analytics, React', 12)).toEqual(['Hotjar,', 'Google', 'Analytics,', 'React']);
    expect(wrapWords('fits', 10)).toEqual(['fits']);
  });

  it('breaks a word wider than the column where the column ends, the only place left; nothing is lost', () => {
    expect(wrapWords('a-very-long-hostname.example x', 10)).toEqual(['a-very-lon', 'g-hostname', '.example x']);
    expect(wrapWords('日本語のテキスト', 5)).toEqual(['日本', '語の', 'テキ', 'スト']);
  });
});
