import { describe, expect, it } from 'vitest';
import { colorEnabled, createStyle, displayWidth, padToWidth, sanitizeForTerminal, truncateToWidth } from '../../../src/cli/output/terminal.js';

describe('sanitizeForTerminal', () => {
  it('leaves plain text alone', () => {
    expect(sanitizeForTerminal('example.com — Ünïcode 日本')).toBe('example.com — Ünïcode 日本');
  });

  it('strips CSI colour sequences', () => {
    expect(sanitizeForTerminal('\x1b[31mred\x1b[0m text')).toBe('red text');
    expect(sanitizeForTerminal('\x1b[1;38;5;196mbold\x1b[m')).toBe('bold');
  });

  it('strips OSC 8 hyperlinks terminated by ST or BEL, keeping the label', () => {
    expect(sanitizeForTerminal('\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\')).toBe('click');
    expect(sanitizeForTerminal('\x1b]8;;https://evil.example\x07click\x1b]8;;\x07')).toBe('click');
  });

  it('strips window-title OSC', () => {
    expect(sanitizeForTerminal('a\x1b]0;title\x07b')).toBe('ab');
    expect(sanitizeForTerminal('a\x1b]0;unterminated')).toBe('a');
  });

  it('strips 8-bit C1 CSI and shows a lone C1 control as its code point', () => {
    expect(sanitizeForTerminal('x\x9b31my')).toBe('xy');
    expect(sanitizeForTerminal('x\x85y')).toBe('x<U+0085>y');
    expect(sanitizeForTerminal('end\x9b')).toBe('end<U+009B>');
  });

  it('strips other ESC sequences and shows a trailing lone ESC as ␛', () => {
    expect(sanitizeForTerminal('a\x1b(Bb\x1bcc')).toBe('abc');
    expect(sanitizeForTerminal('a\x1b')).toBe('a␛');
  });

  it('shows newlines, tabs and other controls as their control pictures, so a value stays on one line and reads', () => {
    expect(sanitizeForTerminal('one\ntwo\tthree\r')).toBe('one␊two␉three␍');
    expect(sanitizeForTerminal('bell\x07 nul\x00 del\x7f')).toBe('bell␇ nul␀ del␡');
    // Never an escape a reader takes for part of the value.
    expect(sanitizeForTerminal('Hotjar\x07')).not.toContain('\\');
  });

  it('shows bidi overrides, isolates, separators and zero-width characters as code points', () => {
    expect(sanitizeForTerminal('abc\u202Emoc.live')).toBe('abc<U+202E>moc.live');
    expect(sanitizeForTerminal('\u2066x\u2069')).toBe('<U+2066>x<U+2069>');
    expect(sanitizeForTerminal('a\u2028b')).toBe('a<U+2028>b');
    expect(sanitizeForTerminal('pay\u200bpal')).toBe('pay<U+200B>pal');
    // The zero-width joiner holds an emoji together: left alone.
    expect(sanitizeForTerminal('👩\u200d💻')).toBe('👩\u200d💻');
  });

  it('leaves no ESC byte in any output', () => {
    const nasty = '\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1bP+q\x1b\\\x1b_apc\x9c\x1b[?1049h';
    expect(sanitizeForTerminal(nasty)).not.toMatch(/[\x1b\x9b\x9d]/);
  });
});

describe('colorEnabled', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  it('follows the TTY by default', () => {
    expect(colorEnabled(tty, {})).toBe(true);
    expect(colorEnabled(pipe, {})).toBe(false);
    expect(colorEnabled({}, {})).toBe(false);
  });
  it('is off for TERM=dumb', () => {
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false);
  });
  it('honours NO_COLOR when non-empty, over FORCE_COLOR', () => {
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled(tty, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });
  it('honours FORCE_COLOR', () => {
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(colorEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
  });
});

describe('createStyle', () => {
  it('colours only when enabled', () => {
    expect(createStyle(false).red('x')).toBe('x');
    expect(createStyle(true).red('x')).toBe('\x1b[31mx\x1b[39m');
    expect(createStyle(true).enabled).toBe(true);
  });
});

describe('display width', () => {
  it('counts wide characters as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
  });
  it('truncates with an ellipsis within the width', () => {
    expect(truncateToWidth('abcdef', 4)).toBe('abc…');
    expect(truncateToWidth('abc', 3)).toBe('abc');
    expect(truncateToWidth('日本語', 4)).toBe('日…');
    expect(padToWidth('日', 4, 'right')).toBe('  日');
  });
});
