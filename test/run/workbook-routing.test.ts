// Which inputs the spreadsheet reader takes and which outputs are written as xlsx (input/workbook-sniff.ts,
// cli/run/inputs.ts fileRunFormat): by name, or by the ZIP signature whatever the name, with the bytes read
// to tell put back so the reader that follows sees the whole input.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fileRunFormat } from '../../src/cli/run/inputs.js';
import { isWorkbookName, sniffWorkbook } from '../../src/input/workbook-sniff.js';

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) out += chunk.toString('latin1');
  return out;
}

describe('workbook routing', () => {
  it('names: .xlsx and .xlsm are read as workbooks; only .xlsx picks xlsx output (Excel refuses an .xlsm without macros)', () => {
    expect(['a.xlsx', 'A.XLSX', 'b.xlsm'].map(isWorkbookName)).toEqual([true, true, true]);
    expect(['a.csv', 'xlsx', 'a.xls', undefined].map(isWorkbookName)).toEqual([false, false, false, false]);
    expect([
      fileRunFormat(undefined, 'out.XLSX'),
      fileRunFormat(undefined, 'out.xlsm'),
      fileRunFormat(undefined, undefined),
      fileRunFormat('json', 'out.xlsx'),
    ]).toEqual(['xlsx', 'csv', 'csv', 'json']);
  });

  it('a ZIP signature split over one-byte chunks is found, and every byte is still there to read', async () => {
    const bytes = 'PK\u0003\u0004rest of the workbook';
    const sniffed = await sniffWorkbook(Readable.from([...bytes].map((c) => Buffer.from(c, 'latin1'))), 'stdin');
    expect(sniffed.workbook).toBe(true);
    expect(await text(sniffed.stream)).toBe(bytes);
  });

  it('text, a stream shorter than a signature and an empty one are not workbooks, and lose nothing', async () => {
    for (const input of ['website\na.example\n', 'PK', '']) {
      const source = new PassThrough();
      source.end(input);
      const sniffed = await sniffWorkbook(source, 'stdin');
      expect(sniffed.workbook, input).toBe(false);
      expect(await text(sniffed.stream)).toBe(input);
    }
  });
});
