// Text into the report: every value came from the service or the input file, so each is escaped before it
// lands in markup. The report is also kept well-formed XML (polyglot HTML), so characters XML forbids are
// replaced too: a stray control byte in a cell would otherwise make the file unreadable as XHTML.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
// C0 controls other than tab/LF/CR, lone surrogates and the two non-characters XML 1.0 excludes.
const NOT_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A value XML allows, for markup that escapes its own '<' and '&' (Vega's SVG): forbidden characters replaced. */
export function xmlSafe(s: string): string {
  return s.replace(NOT_XML, '\ufffd');
}

/** A value safe as element text or a quoted attribute value. */
export function escapeHtml(s: string): string {
  return xmlSafe(s).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A count with thousands separators, the same text whatever the machine's locale: 49812 -> '49,812'. */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

// Shares as the terminal's bars write them (one rule for both).
export { percent } from '../figures.js';

/** A share of a whole, 0 when the whole is empty (a report of an empty file still renders). */
export function shareOf(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}
