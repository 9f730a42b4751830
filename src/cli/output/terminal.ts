// Terminal safety and colour decisions. Every value that came from the service or from the input file may
// carry escape sequences (a hostile registrar name, a CSV cell pasted from a web page); printed raw, those can
// recolour the screen, retitle the window, plant clickable links or reorder text. So values are made inert
// here before any renderer pads, truncates or styles them.
import { Chalk } from 'chalk';
import { INVISIBLE, visibleText } from '../../domain/safe-text.js';

// Escape sequences, removed outright:
// - CSI, 7-bit (ESC [) or 8-bit (0x9B): parameters, intermediates, one final byte.
// - String sequences OSC (ESC ] / 0x9D, including OSC 8 hyperlinks and window titles), DCS, SOS, PM, APC:
//   everything up to BEL or ST (ESC \ or 0x9C). An unterminated one runs to the end of the value, which is
//   what a terminal would swallow too.
// - Any other ESC sequence: intermediates then one final byte (ESC ( B, ESC 7, ESC c ...).
const SEQUENCE =
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)|\x1b[\x20-\x2f]*[\x30-\x7e]/g;

// Characters shown rather than removed, so a reader can still see something odd was there, by the one rule
// of domain/safe-text.ts: a C0 control as its control picture (BEL is ␇), the C1 controls, line and paragraph
// separators (a value is one line), zero-width characters and the bidi embeddings, overrides and isolates that
// can make "moc.evil" read as "live.com" as <U+202E>. Never as `\x07`, which reads as part of the value.
// Cheap pre-check: most values are plain and skip both replacements.
const ANY_SPECIAL = new RegExp(INVISIBLE.source);

/** Make a value safe to print on one terminal line: strip escape sequences, show other controls visibly. */
export function sanitizeForTerminal(s: string): string {
  if (!ANY_SPECIAL.test(s)) return s;
  return visibleText(s.replace(SEQUENCE, ''));
}

/** Whether to colour output written to `stream`: NO_COLOR, then FORCE_COLOR, then TTY and TERM. */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  // https://no-color.org: present and non-empty disables colour, whatever else is set.
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** The handful of styles the renderers use; identity functions when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

/** A style set bound to one decision about colour (see colorEnabled). */
export function createStyle(enabled: boolean): Style {
  // Level 1 (16 colours) is all we use, and it is supported everywhere colour is; an explicit instance keeps
  // chalk's own environment sniffing out of the decision made by colorEnabled.
  const c = new Chalk({ level: enabled ? 1 : 0 });
  return {
    enabled,
    bold: (s) => c.bold(s),
    dim: (s) => c.dim(s),
    red: (s) => c.red(s),
    yellow: (s) => c.yellow(s),
    green: (s) => c.green(s),
    cyan: (s) => c.cyan(s),
  };
}

/** A style that never colours: the default for renderers called without one. */
export const PLAIN: Style = createStyle(false);

// Display width. Terminals give East Asian wide/fullwidth characters and most emoji two columns, and combining
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
