// Values from input files end up in one-line error messages and reasons; a raw control character, a
// bidi override or a 5 MB cell would garble the terminal or hide the real problem, so they are escaped
// and cut short here.

const MAX_SHOWN = 60;

/** Escapes one character when showing it could mislead a terminal (C0/C1 controls, bidi, separators). */
export function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (ch === '\\') return '\\\\';
  if (ch === '\t') return '\\t';
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  const invisible =
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2069) ||
    code === 0xfeff ||
    code === 0xfffd;
  return invisible ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
}

/** A value as shown in a message: double-quoted, escaped, and truncated to about 60 characters. */
export function showValue(value: string, max = MAX_SHOWN): string {
  const chars = Array.from(value);
  const cut = chars.length > max;
  const body = (cut ? chars.slice(0, max) : chars).map((ch) => (ch === '"' ? '\\"' : escapeChar(ch))).join('');
  return `"${body}${cut ? '…' : ''}"`;
}
