// What a spreadsheet cell becomes once read: a SheetValue (kept for xlsx output) and its text (the pipeline's
// cells, CSV and JSON output).
//
// Choices (the issue is silent on them):
// - A formula is read as its cached result: we write one sheet, in which a reference to another sheet, or to
//   a row number, would no longer mean what it did. A formula never saved with a result reads as empty.
// - Rich text is its plain text; a hyperlink cell its shown text; an error cell (#N/A) its error text.
// - Text: numbers as JavaScript writes them (12500.5, 1e+21), booleans TRUE/FALSE as spreadsheets show them,
//   dates as ISO 8601 without a zone ("2021-03-04", or "2021-03-04T09:30:00" when the cell holds a time):
//   a sheet's dates have no zone, and the reader gives them as that wall-clock time in UTC.
import type { SheetValue } from '../domain/types.js';

/** A cell as exceljs's streaming reader gives it (its CellValue, narrowed to what a read cell can hold). */
type ReadCell = SheetValue | undefined | { [key: string]: unknown };

/** A read cell as the value xlsx output writes back. */
export function sheetValue(cell: ReadCell): SheetValue {
  if (cell === undefined || cell === null) return null;
  // A numeric cell saved with an empty value (`<v></v>`) reads as NaN: it holds nothing, so it is blank.
  if (typeof cell === 'number') return Number.isNaN(cell) ? null : cell;
  if (typeof cell === 'string' || typeof cell === 'boolean' || cell instanceof Date) return cell;
  if ('result' in cell || 'formula' in cell || 'sharedFormula' in cell) return sheetValue(cell.result as ReadCell);
  if (Array.isArray(cell.richText)) return (cell.richText as { text?: unknown }[]).map((run) => String(run.text ?? '')).join('');
  if (typeof cell.error === 'string') return cell.error;
  if ('text' in cell) return sheetValue(cell.text as ReadCell);
  return null;
}

/** A sheet value as the text the pipeline and CSV output carry. */
export function cellText(value: SheetValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return dateText(value);
  return String(value);
}

function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  // Midnight is a date; anything else keeps its time, to the second (a sheet's times are rarely finer).
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
}
