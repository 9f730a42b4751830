// Lines of `a · b · c` parts (the run summary, warnings) wrapped to a terminal's width by us, not by the
// terminal: a terminal cuts wherever the width ends, mid-number (`duplicates 20,7` / `09`). Breaks go at the
// ` · ` separators first, then between words inside a part too long for a line; a word (a number, a path)
// is never cut, and one wider than the line simply overflows it.
import { displayWidth } from './width.js';

const SEP = ' · ';
/** Continuation lines are indented, so a wrapped line reads as one. */
const INDENT = '  ';
// Colour codes take no columns: measured on the text without them.
const SGR = /\x1b\[[0-9;]*m/g;

function width(s: string): number {
  return displayWidth(s.replace(SGR, ''));
}

/**
 * `line` broken into lines of at most `columns` columns at its ` · ` separators (the separator stays at the
 * end of the line it closes), else at spaces; unchanged when `columns` is undefined (not a terminal: a log
 * keeps each message on one line, for grep) or the line fits.
 */
export function wrapLine(line: string, columns: number | undefined): string {
  if (columns === undefined || columns <= 0 || width(line) <= columns) return line;
  const out: string[] = [];
  let current = '';
  const room = (): number => columns - (out.length > 0 ? INDENT.length : 0);
  const flush = (): void => {
    out.push(out.length > 0 ? `${INDENT}${current.trimEnd()}` : current.trimEnd());
    current = '';
  };
  const parts = line.split(SEP);
  parts.forEach((part, i) => {
    const piece = i < parts.length - 1 ? `${part}${SEP.trimEnd()}` : part;
    const joiner = current === '' ? '' : ' ';
    if (width(current + joiner + piece) <= room()) {
      current += joiner + piece;
      return;
    }
    if (current !== '') flush();
    if (width(piece) <= room()) {
      current = piece;
      return;
    }
    // A part wider than a whole line: its words, packed the same way (its closing separator kept with its
    // last word, so no line starts with one).
    const words = bound(part.split(' '));
    if (i < parts.length - 1) words.push(`${words.pop()} ${SEP.trim()}`);
    for (const word of words) {
      const gap = current === '' ? '' : ' ';
      if (current !== '' && width(current + gap + word) > room()) flush();
      current += (current === '' ? '' : ' ') + word;
    }
  });
  if (current !== '') flush();
  return out.join('\n');
}

/**
 * Words with a lone `/` between them bound into one: `7,208 / 75,000` is one figure of a quota line, and a
 * break after the first number read as two (a tryout saw `7,208` / `/ 75,000 lookups left`).
 */
function bound(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '/' && out.length > 0 && i + 1 < words.length) out.push(`${out.pop()} / ${words[++i]}`);
    else out.push(word);
  }
  return out;
}

/**
 * The pieces wrapWords keeps whole, and whether a space stands before each (a piece after a `;` follows it
 * directly): split at spaces and after a `;`, a lone `/` binding its neighbours. A table sizes a wrapped
 * column by the widest of them.
 */
export function wrapPieces(text: string): { piece: string; spaced: boolean }[] {
  return bound(text.split(' ')).flatMap((word) => word.split(/(?<=;)(?=.)/).map((piece, i) => ({ piece, spaced: i === 0 })));
}

/**
 * `text` (one line) as lines of at most `columns` columns for a table cell or a value beside a label: broken
 * at spaces and after a `;` (CSV's list separator: `Apache;Cloudflare`), a lone `/` binding its neighbours; a
 * word wider than a whole line is broken where the line ends, the one place a fixed column leaves (nothing is
 * cut away, and no `…` stands for what was).
 */
export function wrapWords(text: string, columns: number): string[] {
  if (columns <= 0 || width(text) <= columns) return [text];
  const lines: string[] = [];
  let current = '';
  for (const { piece, spaced } of wrapPieces(text)) {
    const joined = current === '' ? piece : `${current}${spaced ? ' ' : ''}${piece}`;
    if (width(joined) <= columns) {
      current = joined;
      continue;
    }
    if (current !== '') lines.push(current);
    current = '';
    let rest = piece;
    while (width(rest) > columns) {
      const [head, tail] = splitAt(rest, columns);
      lines.push(head);
      rest = tail;
    }
    current = rest;
  }
  if (current !== '' || lines.length === 0) lines.push(current);
  return lines;
}

/** `s` split where `columns` columns end (at least one character goes first, however wide). */
function splitAt(s: string, columns: number): [string, string] {
  let head = '';
  for (const ch of s) {
    if (head !== '' && width(head + ch) > columns) break;
    head += ch;
  }
  return [head, s.slice(head.length)];
}

/** Every line of `text` wrapped (see wrapLine). */
export function wrapLines(text: string, columns: number | undefined): string {
  return text
    .split('\n')
    .map((l) => wrapLine(l, columns))
    .join('\n');
}

/** The width to wrap to on `stream`: its columns when it is a terminal, else none. */
export function wrapWidth(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined;
}
