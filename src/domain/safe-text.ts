// Values from input files and from the service end up in messages, reasons and terminal tables; a raw control
// character, a bidi override or a 5 MB cell would garble the terminal or hide the real problem. The one rule
// for showing such a character (messages here, the terminal in cli/output/terminal.ts): as visible text a
// reader can read, never as an escape sequence (`\x07` read as four characters of the value):
// - a C0 control and DEL as its Unicode control picture: BEL is ␇, NUL ␀, a newline ␊, a tab ␉, DEL ␡;
// - the others that hide or reorder text (C1 controls, zero-width characters, line and paragraph separators,
//   bidi embeddings, overrides and isolates, the BOM) as `<U+202E>`, as less and vim show them.
// So a value stays on one line, nothing it holds acts on the terminal, and its odd characters still show.

const MAX_SHOWN = 60;

/** Characters shown as a picture or a code point, never as themselves. */
// Not U+200D, the zero-width joiner: it holds emoji sequences together (👩‍💻), and alone it hides nothing a
// reader would misread.
export const INVISIBLE = /[\x00-\x1f\x7f-\x9f\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** How one character INVISIBLE matches is shown: ␇ for BEL (a control picture), <U+202E> for the rest. */
function visibleChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** `text` with every invisible or misleading character shown (see visibleChar). */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, visibleChar);
}

/** One character as a message shows it: itself, or its picture or code point when it would mislead. */
export function escapeChar(ch: string): string {
  return visibleText(ch);
}

/** A value as shown in a message: double-quoted, escaped, and truncated to about 60 characters. */
export function showValue(value: string, max = MAX_SHOWN): string {
  const chars = Array.from(value);
  const cut = chars.length > max;
  // Quoted as JSON quotes: a quote and a backslash of the value are escaped, so the closing quote is the last.
  const body = visibleText((cut ? chars.slice(0, max) : chars).join(''))
    .replaceAll('\\', '\\\\')
    .replaceAll('"', '\\"');
  return `"${body}${cut ? '…' : ''}"`;
}

/** An option's value as a message suggests typing it (`--sheet Leads`, `--column "Q3 leads"`): quoted only where a shell needs it. */
export function optionValue(value: string): string {
  return /^[\w.-]+$/.test(value) ? value : showValue(value);
}
