// Reads an .xlsx workbook as the pipeline's records, streaming: exceljs's WorkbookReader unzips the file as it
// arrives and hands over one row at a time, so no sheet is held whole in memory.
//
// Choices (the issue says "the first sheet, the first row as the header"):
// - The first sheet is the first the workbook stores; --sheet NAME picks another, its case aside (Excel
//   refuses two sheet names differing only in case). A missing sheet is a usage error listing the sheets.
// - The header is the first row holding anything; rows before it and blank rows after it are skipped, as
//   blank lines are in CSV. A record's line is the sheet's row number, so messages point where Excel shows.
// - Cells are read as cells.ts says (formulas by their result, dates as ISO text); the values as the sheet
//   held them ride along in `typed` for xlsx output. A row shorter than the header is padded by the writers,
//   as CSV rows are; cells beyond the header are kept.
// - A sheet stored before the shared strings (Excel's order) or before the workbook's parts list
//   (LibreOffice's) is parsed after the whole file: it is kept in a temporary file meanwhile, on disk, not in
//   memory, and removed however the reading ends (workbook-entries.ts, which also runs exceljs's loop over the
//   ZIP's entries without the race that dropped some). The shared strings (each distinct text once) are held in memory, as every xlsx reader
//   must: a sheet refers to them by number.
// - Anything exceljs cannot read (not a ZIP, a ZIP that is no workbook, a broken entry) is an InputError
//   naming the file, and the row when rows were already read: never a stack trace.
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { InputError, UsageError } from '../api/errors.js';
import { cutOurs, type OwnColumnsOptions } from './own-columns.js';
import { findHostColumn, markElsewhere, otherHostColumns } from './host-column.js';
import type { OpenedInput } from './read.js';
import { optionValue, showValue } from '../domain/safe-text.js';
import type { InputRecord, SheetValue } from '../domain/types.js';
import { cellText, sheetValue } from './workbook-cells.js';
import { readEntriesInFull } from './workbook-entries.js';

/** How to read a workbook; our own columns of an earlier run, as read.ts drops them: own-columns.ts. */
export interface XlsxInputOptions extends OwnColumnsOptions {
  /** Name used in messages. */
  fileName: string;
  /** Host column: a header name (case-insensitive) or a 1-based index. */
  column?: string;
  /** The sheet to read; the first when absent. */
  sheet?: string;
}

type Sheet = AsyncIterable<ExcelJS.Row> & { name?: string; id?: number | string };

interface Row {
  line: number;
  cells: string[];
  typed: SheetValue[];
}

/** Opens the first sheet of an .xlsx workbook (or `opts.sheet`) as a stream of records; its shape is known on return. */
export async function openXlsxInput(source: NodeJS.ReadableStream | Readable, opts: XlsxInputOptions): Promise<OpenedInput> {
  const file = opts.fileName;
  // Styles are read (they are small) because a date is a number with a date format; hyperlinks are not needed:
  // a hyperlink cell's shown text is its value.
  // Its loop over the ZIP's entries is ours (workbook-entries.ts): exceljs's own drops entries at random.
  const reader = readEntriesInFull(
    new ExcelJS.stream.xlsx.WorkbookReader(source as Readable, {
      worksheets: 'emit',
      sharedStrings: 'cache',
      styles: 'cache',
      hyperlinks: 'ignore',
      entries: 'ignore',
    }),
  );
  const sheets = (reader as unknown as AsyncIterable<Sheet>)[Symbol.asyncIterator]();
  // Ends the reader's loop (its temporary files go) and the input, however the reading ends.
  const close = async (): Promise<void> => {
    await sheets.return?.(undefined).catch(() => undefined);
    (source as Readable).destroy?.();
  };
  const sheet = await pickSheet(sheets, opts.sheet, file).catch(async (err: unknown) => {
    await close();
    throw unreadable(err, file, null);
  });
  const rows = readRows(sheet, file);
  let header: Row | null;
  try {
    header = await nextRow(rows);
  } catch (err) {
    await close();
    throw err;
  }
  const headers = header?.cells ?? [];
  const { cut, earlier, own } = cutOurs(headers, opts);
  let hostColumn = 0;
  if (header !== null) {
    try {
      hostColumn = own !== -1 ? -1 : cut !== -1 && headers.length === 1 && headers[0] === 'input' ? 0 : findHostColumn(headers, opts.column, file);
    } catch (err) {
      // The first sheet, taken because none was named, is often a summary: the sheets after it are named.
      const others = opts.sheet === undefined && err instanceof UsageError ? await otherSheets(rows, sheets, opts.column, file).catch(() => null) : null;
      await close();
      throw others === null ? err : new UsageError(`${(err as UsageError).message}; ${others}`);
    }
  }
  // Other columns that could hold the host, named in the reason of a row whose host cell is empty.
  const others = header === null ? [] : otherHostColumns(headers, hostColumn);
  async function* records(): AsyncGenerator<InputRecord> {
    try {
      for (let row = await nextRow(rows); row !== null; row = await nextRow(rows)) {
        // Cells past the header (a ragged row's) were written after our columns: they stay, ours go.
        const value = own === -1 ? undefined : (row.cells[own] ?? '');
        if (cut !== -1) {
          row.cells.splice(cut, earlier.length);
          row.typed.splice(cut, earlier.length);
        }
        const record: InputRecord = { line: row.line, cells: row.cells, typed: row.typed, value: value ?? row.cells[hostColumn] ?? '' };
        markElsewhere(record, headers, others);
        yield record;
      }
    } finally {
      await rows.return(undefined);
      await close();
    }
  }
  const shape = {
    format: 'csv' as const,
    headers: header === null ? null : headers,
    hostColumn,
    eol: '\n' as const,
    ...(sheet.name === undefined ? {} : { sheet: sheet.name }),
    ...(cut === -1 ? {} : { earlier }),
  };
  return { shape, records: records() };
}

/** The sheet asked for (or the first); the sheets passed over are read through, so the reader can go on. */
async function pickSheet(sheets: AsyncIterator<Sheet>, wanted: string | undefined, file: string): Promise<Sheet> {
  const seen: string[] = [];
  const folded = wanted?.toLowerCase();
  for (let next = await sheets.next(); !next.done; next = await sheets.next()) {
    const sheet = next.value;
    const name = sheet.name ?? `Sheet${sheet.id ?? seen.length + 1}`;
    // Excel refuses two sheet names differing only in case, so a name equal but for case is the one meant.
    if (wanted === undefined || name.toLowerCase() === folded) return sheet;
    seen.push(name);
    await readThrough(sheet);
  }
  if (wanted === undefined)
    throw new InputError(`${file}: a ZIP file with no worksheet in it, so not an .xlsx workbook (save it as .xlsx or CSV)`, file, null, 'bad_xlsx');
  throw new UsageError(`${file}: no sheet named ${showValue(wanted)}; sheets are: ${seen.map((s) => showValue(s)).join(', ') || '(none)'}`);
}

/**
 * What the sheets after the first say to a user whose first sheet has no host column: those with one, and the
 * --sheet that reads it; else their names. Null when there is no other sheet. Reads the rest of the workbook
 * (a usage error's path only: the run has not begun).
 */
async function otherSheets(rows: AsyncGenerator<Row>, sheets: AsyncIterator<Sheet>, column: string | undefined, file: string): Promise<string | null> {
  await readThrough(rows);
  const names: string[] = [];
  const holding: { name: string; column: string }[] = [];
  for (let next = await sheets.next(); !next.done; next = await sheets.next()) {
    const name = next.value.name ?? `Sheet${next.value.id ?? names.length + 2}`;
    names.push(name);
    const its = readRows(next.value, file);
    const header = await nextRow(its);
    try {
      if (header !== null) holding.push({ name, column: header.cells[findHostColumn(header.cells, column, file)] ?? '' });
    } catch {
      // no host column there either
    }
    await readThrough(its);
  }
  const [one] = holding;
  if (one !== undefined && holding.length === 1) {
    return `the sheet ${showValue(one.name)} has one (${showValue(one.column)}): --sheet ${optionValue(one.name)}`;
  }
  if (holding.length > 1) return `the sheets ${holding.map((h) => `${showValue(h.name)} (${showValue(h.column)})`).join(', ')} have one: --sheet NAME`;
  return names.length === 0 ? null : `the workbook's other sheets: ${names.map((n) => showValue(n)).join(', ')} (--sheet NAME)`;
}

/** Reads `sheet` (or what is left of its rows) to its end: the workbook's next sheet comes only after it. */
async function readThrough(sheet: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of sheet) {
    // nothing kept
  }
}

/** The sheet's rows holding anything, as cells and values; failures in exceljs become InputErrors at the row after the last read. */
async function* readRows(sheet: Sheet, file: string): AsyncGenerator<Row> {
  let line = 0;
  try {
    for await (const row of sheet) {
      line = row.number;
      const values = row.values as unknown[];
      // exceljs's values are 1-based (index 0 is always empty) and sparse where cells are missing.
      const typed: SheetValue[] = [];
      let any = false;
      for (let i = 1; i < values.length; i++) {
        const value = sheetValue(values[i] as Parameters<typeof sheetValue>[0]);
        if (value !== null && value !== '') any = true;
        typed.push(value);
      }
      if (any) yield { line, cells: typed.map(cellText), typed };
    }
  } catch (err) {
    throw unreadable(err, file, line + 1);
  }
}

async function nextRow(rows: AsyncGenerator<Row>): Promise<Row | null> {
  const next = await rows.next();
  return next.done ? null : next.value;
}

/** An exceljs (or unzip) failure as one line naming the file; our own errors pass through. */
function unreadable(err: unknown, file: string, line: number | null): unknown {
  if (err instanceof UsageError || err instanceof InputError) return err;
  const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
  // unzipper's own words, said plainly.
  const what = /invalid signature/i.test(message) ? 'not a ZIP file' : message === 'FILE_ENDED' ? 'the file ends mid-entry: cut short?' : message;
  const where = line === null ? file : `${file}:${line}`;
  return new InputError(`${where}: not a readable .xlsx workbook (${what})`, file, line, 'bad_xlsx');
}
