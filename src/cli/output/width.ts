// Display width of terminal text, apart from terminal.ts and its chalk: --help wraps by it and loads no more.
// Terminals give East Asian wide/fullwidth characters and most emoji two columns, and combining
// marks none; this approximation (not a full wcwidth) is enough to keep tables aligned for hostnames, company
// names and technology labels. Input is expected to be sanitised already (no escape sequences).
// biome-ignore lint/suspicious/noMisleadingCharacterClass: one code point at a time is matched (^...$), so a combining mark or selector alone is what is meant
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200f\ufe00-\ufe0f]$/u;
const EMOJI = /^\p{Extended_Pictographic}$/u;

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

function charWidth(ch: string): number {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x300) return 1; // fast path: ASCII and Latin
  if (ZERO_WIDTH.test(ch)) return 0;
  return isWide(code) || (code > 0x2100 && EMOJI.test(ch)) ? 2 : 1;
}

/** Columns `s` occupies on a terminal (approximate wcwidth; `s` must hold no escape sequences). */
export function displayWidth(s: string): number {
  let width = 0;
  for (const ch of s) width += charWidth(ch);
  return width;
}

/** Cut `s` to at most `max` columns, ending with '…' when anything was cut. */
export function truncateToWidth(s: string, max: number): string {
  if (max <= 0) return '';
  if (displayWidth(s) <= max) return s;
  let out = '';
  let width = 0;
  for (const ch of s) {
    const w = charWidth(ch);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

/** Pad `s` with spaces to `width` columns, on the right (left-aligned) or the left (right-aligned). */
export function padToWidth(s: string, width: number, align: 'left' | 'right', shown = s): string {
  // `shown` may carry colour codes; the padding is measured on the plain text `s`.
  const gap = Math.max(0, width - displayWidth(s));
  return align === 'right' ? ' '.repeat(gap) + shown : shown + ' '.repeat(gap);
}
