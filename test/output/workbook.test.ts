// The spreadsheet writer (src/output/workbook.ts) beyond what the e2e round trip shows: the exceljs internals its
// back-pressure relies on are where it looks for them, a text too long for a cell stops the run with its
// line and column, and a sheet name Excel would refuse is made one it accepts.
import { PassThrough, type Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/api/errors.js';
import type { EnrichedRow } from '../../src/domain/types.js';
import { createXlsxWriter, sheetEntry } from '../../src/output/workbook.js';

function row(line: number, cells: string[]): EnrichedRow {
  return { kind: 'profile', line, cells, value: cells[0] ?? '', status: 'invalid', host: null, reason: 'no dot', data: null, cached: false, fetchedAt: null };
}

async function bytesOf(write: (out: Writable) => Promise<void>): Promise<Buffer> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (b: Buffer) => parts.push(b));
  await write(out);
  return Buffer.concat(parts);
}

describe('createXlsxWriter', () => {
  it('finds the zip entry exceljs pipes a sheet into (pinned exceljs: an upgrade that moves it fails here)', () => {
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: new PassThrough(), useSharedStrings: false });
    const sheet = book.addWorksheet('s');
    sheet.addRow(['a']).commit();
    expect(sheetEntry(sheet)).not.toBeNull();
    expect(sheetEntry({})).toBeNull();
  });

  it('refuses a text over 32,767 characters with its line and column', async () => {
    const shape = { format: 'csv' as const, headers: ['website', 'notes'], hostColumn: 0 };
    const writer = createXlsxWriter(new PassThrough().resume(), { kind: 'profile', shape, fields: ['status'] });
    await writer.write(row(2, ['x', 'short']));
    const err = await writer.write(row(3, ['x', 'n'.repeat(32_768)])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe('line 3: the notes cell holds 32768 characters; an .xlsx cell holds at most 32767: write csv instead');
  });

  it('names the sheet after the input one, cleaned of what Excel refuses; an empty cell is a blank one', async () => {
    const shape = { format: 'csv' as const, headers: ['website', 'notes'], hostColumn: 0, sheet: 'Q3/Q4: [leads]*' };
    const bytes = await bytesOf(async (out) => {
      const writer = createXlsxWriter(out, { kind: 'profile', shape, fields: ['status', 'reason'] });
      await writer.write(row(2, ['www', '']));
      await writer.end();
    });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = book.worksheets[0];
    expect(sheet?.name).toBe('Q3 Q4   leads');
    // The empty notes cell is left out, not an empty text: a blank cell to the spreadsheet.
    expect(sheet?.getRow(2).getCell(2).type).toBe(ExcelJS.ValueType.Null);
    expect(sheet?.getRow(2).values).toEqual([undefined, 'www', undefined, 'invalid', 'no dot']);
  });
});
