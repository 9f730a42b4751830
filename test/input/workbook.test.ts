// The spreadsheet reader (src/input/workbook.ts) on what is not a good workbook, and on shapes a real one takes:
// one clear InputError or UsageError naming the file, never a stack trace or a silently empty run.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/api/errors.js';
import type { InputRecord } from '../../src/domain/types.js';
import { openXlsxInput } from '../../src/input/workbook.js';
import { storedZip } from '../helpers/xlsx.js';

async function workbook(rows: unknown[][], name = 'Sheet1'): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet(name).addRows(rows);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function all(records: AsyncIterable<InputRecord>): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  for await (const r of records) out.push(r);
  return out;
}

describe('openXlsxInput', () => {
  it('reads the header, the host column by name, typed cells alongside their text, and ragged rows as they are', async () => {
    const date = new Date('2024-05-05T00:00:00Z');
    const bytes = await workbook([['Name', 'URL', 'Seats'], ['A', 'a.example', 3, 'extra'], [], ['B', 'b.example'], ['C', null, date]]);
    const opened = await openXlsxInput(Readable.from([bytes]), { fileName: 'in.xlsx' });
    expect(opened.shape).toMatchObject({ format: 'csv', headers: ['Name', 'URL', 'Seats'], hostColumn: 1, sheet: 'Sheet1' });
    const records = await all(opened.records);
    expect(records.map((r) => [r.line, r.cells, r.value])).toEqual([
      [2, ['A', 'a.example', '3', 'extra'], 'a.example'],
      [4, ['B', 'b.example'], 'b.example'],
      [5, ['C', '', '2024-05-05'], ''],
    ]);
    expect(records[0]?.typed).toEqual(['A', 'a.example', 3, 'extra']);
    expect(records[2]?.typed).toEqual(['C', null, date]);
  });

  it('--column picks a column by number; an earlier run of ours is dropped from the header and every row', async () => {
    const bytes = await workbook([
      ['a', 'b', 'status', 'host'],
      ['x', 'y.example', 'found', 'y.example'],
    ]);
    const opened = await openXlsxInput(Readable.from([bytes]), { fileName: 'in.xlsx', column: '2', earlier: [['status', 'host']] });
    expect(opened.shape).toMatchObject({ headers: ['a', 'b'], hostColumn: 1, earlier: ['status', 'host'] });
    expect((await all(opened.records)).map((r) => r.typed)).toEqual([['x', 'y.example']]);
  });

  it('a first sheet with no host column names the sheets after it that have one, and the --sheet that reads them', async () => {
    const book = async (sheets: [string, unknown[][]][]) => {
      const wb = new ExcelJS.Workbook();
      for (const [name, rows] of sheets) wb.addWorksheet(name).addRows(rows);
      return Buffer.from(await wb.xlsx.writeBuffer());
    };
    const summary: [string, unknown[][]] = [
      'Summary',
      [
        ['Total', 'Count'],
        ['all', 3],
      ],
    ];
    const open = async (bytes: Buffer) =>
      openXlsxInput(Readable.from([bytes]), { fileName: 'crm.xlsx' }).then(
        () => 'opened',
        (e: Error) => e.message,
      );
    const none =
      'crm.xlsx: no host column found (looked for domain, host, hostname, website, url, site, email); choose one with --column NAME or --column NUMBER (1-based); headers are: "Total", "Count"';
    expect(
      await open(
        await book([
          summary,
          [
            'Leads',
            [
              ['Name', 'Website'],
              ['Acme', 'acme.com'],
            ],
          ],
        ]),
      ),
    ).toBe(`${none}; the sheet "Leads" has one ("Website"): --sheet Leads`);
    expect(await open(await book([summary, ['Q3 leads', [['Website'], ['acme.com']]], ['Notes', [['Text'], ['x']]]]))).toBe(
      `${none}; the sheet "Q3 leads" has one ("Website"): --sheet "Q3 leads"`,
    );
    expect(await open(await book([summary, ['A', [['Domain'], ['a.com']]], ['B', [['URL'], ['b.com']]]]))).toBe(
      `${none}; the sheets "A" ("Domain"), "B" ("URL") have one: --sheet NAME`,
    );
    expect(await open(await book([summary, ['Notes', [['Text'], ['x']]]]))).toBe(`${none}; the workbook's other sheets: "Notes" (--sheet NAME)`);
    expect(await open(await book([summary]))).toBe(none);
  });

  it('a workbook cut short anywhere is an InputError saying so, never a wait without end (cut at 1,000 bytes it hung, exit 13)', async () => {
    const whole = readFileSync(new URL('../../fixtures/crm.xlsx', import.meta.url));
    for (let size = 100; size < whole.length; size += 200) {
      const reading = (async () => {
        const opened = await openXlsxInput(Readable.from([whole.subarray(0, size)]), { fileName: 'cut.xlsx' });
        await all(opened.records);
        return 'read whole';
      })();
      const outcome = await Promise.race([reading.catch((e: Error) => e), new Promise((ok) => setTimeout(() => ok('still waiting after 5 s'), 5000))]);
      expect(outcome, `cut at ${size} bytes`).toBeInstanceOf(InputError);
      expect((outcome as InputError).message, `cut at ${size} bytes`).toMatch(/^cut\.xlsx(:\d+)?: not a readable \.xlsx workbook \(/);
    }
  }, 60_000);

  it('a row whose host cell is empty notes another column that could hold the host, when it holds something', async () => {
    const bytes = await workbook([
      ['Name', 'Website', 'Email'],
      ['A', 'a.example', 'x@a.example'],
      ['B', null, 'y@b.example'],
      ['C', null, null],
    ]);
    const records = await all((await openXlsxInput(Readable.from([bytes]), { fileName: 'crm.xlsx' })).records);
    expect(records.map((r) => r.elsewhere)).toEqual([undefined, { column: 'Email', value: 'y@b.example' }, undefined]);
  });

  it('a sheet with no rows is no header and no records', async () => {
    const opened = await openXlsxInput(Readable.from([await workbook([])]), { fileName: 'in.xlsx' });
    expect(opened.shape.headers).toBeNull();
    expect(await all(opened.records)).toEqual([]);
  });

  it('a missing host column is the usual usage error', async () => {
    const bytes = await workbook([
      ['Name', 'Seats'],
      ['A', 1],
    ]);
    await expect(openXlsxInput(Readable.from([bytes]), { fileName: 'in.xlsx' })).rejects.toThrow(UsageError);
  });

  it('bytes that are no workbook, or a cut-off one, are one InputError naming the file', async () => {
    for (const bytes of [Buffer.from('website\nexample.com\n'), (await workbook([['website'], ['a.example']])).subarray(0, 300)]) {
      const err = await openXlsxInput(Readable.from([bytes]), { fileName: 'in.xlsx' }).then(
        async (opened) => all(opened.records).then(() => null),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toMatch(/^in\.xlsx(:\d+)?: not a readable \.xlsx workbook \(/);
      expect((err as InputError).message).not.toContain('\n');
    }
  });

  it('a ZIP holding no worksheet (a .docx, an .ods) says it is no workbook', async () => {
    const zip = storedZip({ mimetype: 'application/vnd.oasis.opendocument.spreadsheet', 'content.xml': '<office:document-content/>' });
    await expect(openXlsxInput(Readable.from([zip]), { fileName: 'in.ods' })).rejects.toThrow(
      new InputError('in.ods: a ZIP file with no worksheet in it, so not an .xlsx workbook (save it as .xlsx or CSV)', 'in.ods', null, 'bad_xlsx'),
    );
  });
});
