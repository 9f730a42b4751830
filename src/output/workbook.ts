// Writes enriched rows as one .xlsx sheet, streaming: exceljs's WorkbookWriter zips each row as it is
// committed, so memory stays flat however many rows pass.
//
// Choices:
// - The input's columns, then ours (--prefix, --fields and --changes as in CSV), then a ragged row's cells
//   beyond the header; a short row is padded, as CSV does.
// - Input cells as the reader gave them: from a workbook, a number stays a number and a date a date (InputRecord
//   `typed`); from CSV, every cell is the text it was, byte for byte (a CSV cell "007" is not a number).
// - Our values: numbers are numbers and booleans (`resolves`) booleans, which Excel shows as TRUE and FALSE
//   and a filter or COUNTIF reads as such (the text "true" did not); everything else (technologies and
//   history lists joined with ';' as in CSV, dates as text) is a text cell. No cell is ever written as a formula: exceljs writes a
//   string as a text cell (t="str" with no <f>), so "=HYPERLINK(...)" from a website stays text and needs no
//   `'` in front, unlike CSV (--raw and --neutralise-input have nothing to do here).
// - The header row is frozen and carries an autofilter; the sheet is named after the input's (or "domains").
// - Shared strings are off: a string table would grow with the output. Styles are on only for dates.
// - XML 1.0 cannot hold control characters other than tab, LF and CR: exceljs drops them from text cells.
// - A text over 32,767 characters (Excel's limit for a cell) is refused with its line and column rather
//   than written into a file Excel would "repair" by cutting it.
// - exceljs's zip stream writes into a pass-through that is piped on to `out` without ending it: stdout
//   stays open and a file is closed by OutputTarget.commit(), as for the other writers. Back-pressure: a row
//   waits while `out`, or what is queued before it, is full.
import { PassThrough, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { InputError } from '../api/errors.js';
import { chooseColumns, fieldValues, renderList } from '../domain/flatten.js';
import type { EnrichedRow, SheetValue } from '../domain/types.js';
import type { RowWriter, RowWriterOptions } from './write.js';

/** Excel's limit on the characters of one cell. */
const MAX_CELL_CHARS = 32_767;

/** Creates a streaming .xlsx writer of rows to `out` (the options as createRowWriter takes them; format is xlsx). */
export function createXlsxWriter(out: Writable, opts: Omit<RowWriterOptions, 'format'>): RowWriter {
  const { shape } = opts;
  const fields = chooseColumns(opts.kind, opts.fields, opts.changes === true);
  const inputHeader = shape.format === 'lines' || shape.headers === null ? ['input'] : shape.headers;
  const width = inputHeader.length;
  const prefix = opts.prefix ?? '';
  const changes = opts.changes === true;
  const zip = new PassThrough();
  let failure: Error | null = null;
  const fail = (err: Error): void => {
    failure ??= err;
  };
  zip.on('error', fail);
  out.on('error', fail);
  zip.pipe(out, { end: false });
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: zip, useStyles: true, useSharedStrings: false });
  const names = [...inputHeader, ...fields.names.map((f) => prefix + f)];
  const sheet = book.addWorksheet(sheetName(shape.sheet), { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: names.length } };
  sheet.addRow(names).commit();
  let ended = false;
  // Waits while anything on the way out holds more than its buffer (a wait is made only then: a promise per row
  // would be garbage on every row); each wait also ends when `out` fails, as a drain awaited behind a failed
  // stream would never come.
  const caughtUp = async (): Promise<void> => {
    for (let wait = pushedBack(sheet, zip, out); ; wait = pushedBack(sheet, zip, out)) {
      if (failure) throw failure;
      if (out.destroyed) throw new Error('output stream is closed');
      if (wait === null) return;
      await unlessFailed(wait, out);
    }
  };

  const text = (value: string, row: EnrichedRow, column: number): string => {
    if (value.length > MAX_CELL_CHARS) {
      const name = names[column] ?? `column ${column + 1}`;
      throw new InputError(
        `line ${row.line}: the ${name} cell holds ${value.length} characters; an .xlsx cell holds at most ${MAX_CELL_CHARS}: write csv instead`,
        '',
        row.line,
        'cell_too_long',
      );
    }
    return value;
  };
  // An empty cell is left out rather than written as an empty text (which ISBLANK would not call blank).
  const inputCell = (row: EnrichedRow, i: number): SheetValue => {
    const value = row.typed ? (row.typed[i] ?? null) : (row.cells[i] ?? null);
    return typeof value === 'string' ? (value === '' ? null : text(value, row, i)) : value;
  };
  return {
    async write(row) {
      if (ended) throw new Error('row writer already ended');
      if (failure) throw failure;
      const values = fieldValues(row, changes);
      const record: SheetValue[] = [];
      for (let i = 0; i < width; i++) record.push(inputCell(row, i));
      for (const [j, f] of fields.names.entries()) {
        const value = renderList(values[f] ?? null);
        const typed = typeof value === 'number' || typeof value === 'boolean';
        record.push(value === null || value === '' ? null : typed ? value : text(String(value), row, width + j));
      }
      for (let i = width; i < row.cells.length; i++) record.push(inputCell(row, i));
      sheet.addRow(record).commit();
      await caughtUp();
    },
    async end() {
      if (ended) return;
      ended = true;
      sheet.commit();
      await unlessFailed(book.commit(), out);
      if (!zip.readableEnded) await unlessFailed(once(zip, 'end'), out);
      await caughtUp();
    },
  };
}

type Buffered = NodeJS.EventEmitter & { _writableState?: { length?: number; highWaterMark?: number } };

/**
 * The stream the sheet's XML goes into on its way to the compressor, as exceljs 4.4.0 keeps it (the sheet's
 * `stream`, a StreamBuf, and the zip entry it pipes to); null when a version keeps it elsewhere
 * (test/output/workbook.test.ts fails then, and exceljs is pinned to the version it was read from).
 */
export function sheetEntry(sheet: unknown): Buffered | null {
  const pipes = (sheet as { stream?: { pipes?: unknown[] } }).stream?.pipes;
  const entry = Array.isArray(pipes) ? (pipes[0] as Buffered | undefined) : undefined;
  return entry?._writableState?.length === undefined ? null : entry;
}

/**
 * A wait for the first of the sheet's zip entry, the pass-through and `out` holding more than its buffer, or
 * null when none does. exceljs's StreamBuf writes to the zip entry without heeding its back-pressure, so rows
 * committed faster than the compressor takes them queue up there: the whole sheet, at worst (744 MB of peak
 * RSS for 1,000,000 rows before this wait, 150 MB of XML queued there at 200,000 in a probe; BENCHMARKS.md). Waiting on it too
 * gives the flat memory the other writers have.
 */
function pushedBack(sheet: unknown, zip: PassThrough, out: Writable): Promise<void> | null {
  const entry = sheetEntry(sheet);
  const state = entry?._writableState;
  if (entry && state && (state.length ?? 0) > (state.highWaterMark ?? 16_384)) return once(entry, 'drain');
  for (const stream of [zip, out] as Writable[]) if (stream.writableNeedDrain && !stream.destroyed) return once(stream, 'drain');
  return null;
}

/** A sheet name Excel accepts: at most 31 characters, none of : \ / ? * [ ]. */
function sheetName(name: string | undefined): string {
  const clean = (name ?? '')
    .replace(/[:\\/?*[\]]/g, ' ')
    .slice(0, 31)
    .trim();
  return clean === '' ? 'domains' : clean;
}

/** `wait`, or the failure of `out` (an error, or closing) should that come first; no listener outlives it. */
function unlessFailed<T>(wait: Promise<T>, out: Writable): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      out.off('error', onError);
      out.off('close', onClose);
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const onClose = (): void => onError(new Error('output stream closed before the workbook was written'));
    out.on('error', onError);
    out.on('close', onClose);
    wait.then(
      (value) => {
        done();
        resolve(value);
      },
      (err: unknown) => {
        done();
        reject(err);
      },
    );
  });
}

function once(stream: NodeJS.EventEmitter, event: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (err?: Error): void => {
      stream.off(event, onEvent);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onEvent = (): void => settle();
    const onError = (err: Error): void => settle(err);
    const onClose = (): void => settle(event === 'end' ? undefined : new Error('output stream closed before it drained'));
    stream.on(event, onEvent);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
