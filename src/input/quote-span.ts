// Why a row that a quote left open swallowed names no website (issue 29). A quote opened in a cell and closed
// only at the end of a later line's cell is valid CSV: the cell holds the lines between, and the row ends
// short (`"1,a.example` then `2,b.example"`: one cell, no host cell) or its host cell holds line breaks. Such
// a row used to say `empty value` or `contains spaces`; it names the quote and its lines instead.
import type { InputRecord } from '../domain/types.js';

const BREAK = /\r\n|\r|\n/g;

/** The reason for an invalid row whose host cell a quote spanning lines explains; null otherwise. */
export function quoteSpanReason(record: InputRecord): string | null {
  // A workbook's cells hold line breaks of their own (Alt+Enter), with no quotes in the way; a list has none.
  if (record.typed !== undefined || (record.short !== true && !/[\r\n]/.test(record.value))) return null;
  const at = record.cells.findIndex((cell) => /[\r\n]/.test(cell));
  if (at === -1) return null;
  // The first cell that runs over lines starts on the row's first line: the cells before it hold no break.
  const last = record.line + record.cells.reduce((n, cell) => n + (cell.match(BREAK)?.length ?? 0), 0);
  return `a quote opened on line ${record.line} (column ${at + 1}) closes only on line ${last}, so the lines between are one cell: a quote left open?`;
}
