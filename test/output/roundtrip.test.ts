// Property: any CSV/TSV that csv-stringify can write comes back out of openInput + createRowWriter (by
// default, and raw) with every input cell byte for byte, its BOM and its line ends, and every row knows the
// line it starts on.
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOST_HEADERS, openInput } from '../../src/input/read.js';
import { createRowWriter } from '../../src/output/write.js';
import type { InputRecord } from '../../src/domain/types.js';
import { LineRecord } from '../../src/domain/line-text.js';
import { row, rowEnds, sink, source } from '../run/helpers.js';

const special = fc.constantFrom(',', '"', '""', '\n', '\r', '\r\n', '\t', ' ', '#', '=', '-', '@', 'é', '😀', '\u00a0', '\ufeff', 'x.com', '\u2028');
const cell = fc.array(fc.oneof(special, fc.string({ unit: 'grapheme', maxLength: 4 })), { maxLength: 5 }).map((a) => a.join(''));
// Header names must not be taken for a host column, nor hide the header line from format detection.
const headerName = cell.filter((h) => !(HOST_HEADERS as readonly string[]).includes(h.trim().toLowerCase()) && !h.includes('\ufeff'));

const table = fc
  .integer({ min: 2, max: 5 })
  .chain((width) =>
    fc.record({
      hostAt: fc.integer({ min: 0, max: width - 1 }),
      headers: fc.array(headerName, { minLength: width, maxLength: width }),
      rows: fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 12 }),
      tsv: fc.boolean(),
      crlf: fc.boolean(),
      bom: fc.boolean(),
      chunk: fc.integer({ min: 0, max: 40 }),
    }),
  )
  .map((t) => ({ ...t, headers: t.headers.map((h, i) => (i === t.hostAt ? 'Domain' : h)) }));

describe('CSV round trip', () => {
  it('keeps every input cell byte for byte and numbers rows by their first line', async () => {
    await fc.assert(
      fc.asyncProperty(table, async (t) => {
        const options = { delimiter: t.tsv ? '\t' : ',', record_delimiter: t.crlf ? '\r\n' : '\n', quoted_match: /[\r\n]/ };
        const lines = [t.headers, ...t.rows].map((r) => stringify([r], options));
        const text = (t.bom ? '\ufeff' : '') + lines.join('');
        // Skipped before the header by design: a blank or '#' first line (see read.ts).
        const firstLine = lines[0]!.split(/\r?\n/)[0]!.trim();
        fc.pre(firstLine !== '' && !firstLine.startsWith('#'));

        const opened = await openInput(source(text, t.chunk), { fileName: 't.csv', format: t.tsv ? 'tsv' : 'csv' });
        const eol = t.crlf ? '\r\n' : '\n';
        const delimiter = t.tsv ? '\t' : ',';
        expect(opened.shape).toEqual({
          format: t.tsv ? 'tsv' : 'csv',
          headers: t.headers,
          hostColumn: t.hostAt,
          delimiter,
          bom: t.bom,
          eol,
          ragged: { rows: 0, lines: [] },
        });
        const records: InputRecord[] = [];
        for await (const r of opened.records) records.push(r);

        const expectedLines: number[] = [];
        let line = 1 + (lines[0]!.match(/\n/g)?.length ?? 0);
        for (const l of lines.slice(1)) {
          expectedLines.push(line);
          line += l.match(/\n/g)?.length ?? 0;
        }
        // A row that is one whitespace-only cell is skipped by design; width >= 2 means none is.
        expect(records.map((r) => r.cells)).toEqual(t.rows);
        expect(records.map((r) => r.line)).toEqual(expectedLines);
        expect(records.map((r) => r.value)).toEqual(t.rows.map((r) => r[t.hostAt]));

        for (const raw of [false, true]) {
          const out = sink();
          const writer = createRowWriter(out, { format: 'csv', kind: 'profile', shape: opened.shape, raw });
          for (const r of records) await writer.write(row('profile', { cells: r.cells, line: r.line, value: r.value }));
          await writer.end();
          const text = out.text();
          expect(text.startsWith('\ufeff')).toBe(t.bom);
          // Every row ends as the input's did, and the text reads back (with that row end alone) as the cells.
          expect(rowEnds(text)).toEqual(Array<string>(t.rows.length + 1).fill(eol));
          const back: string[][] = parse(text.replace(/^\ufeff/, ''), { delimiter: options.delimiter, record_delimiter: eol, relax_column_count: true });
          const width = t.headers.length;
          expect(back.map((r) => r.slice(0, width))).toEqual([t.headers, ...t.rows]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('writes a row read from a line (its line kept, domain/line-text.ts) exactly as the same row without it', async () => {
    // Cells quoted where they must be, and some where they need not be (`"abc"`, `""`): only the first kind's
    // lines may stand for their cells.
    const quotedCell = fc.record({ text: cell, quote: fc.boolean() });
    let kept = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(quotedCell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 8 }), fc.boolean(), async (rows, tsv) => {
        const delimiter = tsv ? '\t' : ',';
        const must = tsv ? /["\t\r\n]/ : /[",\r\n]/;
        const line = (r: { text: string; quote: boolean }[]) =>
          r.map((c) => (c.quote || must.test(c.text) ? `"${c.text.replaceAll('"', '""')}"` : c.text)).join(delimiter);
        const text = `Domain${delimiter}a${delimiter}b\n${rows.map(line).join('\n')}\n`;
        const opened = await openInput(source(text, 7), { fileName: 't.csv', format: tsv ? 'tsv' : 'csv' });
        const records: InputRecord[] = [];
        for await (const r of opened.records) records.push(r);
        const written = async (withText: boolean) => {
          const out = sink();
          const writer = createRowWriter(out, { format: 'csv', kind: 'profile', shape: opened.shape });
          for (const r of records) {
            const lineText = withText ? LineRecord.textOf(r) : undefined;
            if (lineText !== undefined) kept++;
            await writer.write(row('profile', { cells: r.cells, line: r.line, value: r.value, text: lineText }));
          }
          await writer.end();
          return out.text();
        };
        expect(await written(true)).toBe(await written(false));
      }),
      { numRuns: 300 },
    );
    expect(kept).toBeGreaterThan(0);
  });

  it('keeps lines of a newline list byte for byte in the input column', async () => {
    const lineCell = fc
      .string({ unit: fc.constantFrom('a', '.', ' ', '\t', 'é', '"', ',', '=', '😀', '\r', '#'), maxLength: 12 })
      .filter((s) => !s.includes('\t') && !s.includes(',') && !s.includes('\r') && s.trim() !== '' && !s.trim().startsWith('#'));
    await fc.assert(
      fc.asyncProperty(fc.array(lineCell, { minLength: 1, maxLength: 10 }), async (items) => {
        fc.pre(!(HOST_HEADERS as readonly string[]).includes(items[0]!.trim().toLowerCase()));
        const opened = await openInput(source(items.join('\n')), { fileName: 'l.txt' });
        const records: InputRecord[] = [];
        for await (const r of opened.records) records.push(r);
        expect(records.map((r) => r.cells[0])).toEqual(items);
        const out = sink();
        const writer = createRowWriter(out, { format: 'csv', kind: 'traffic', shape: opened.shape, raw: true });
        for (const r of records) await writer.write(row('traffic', { cells: r.cells }));
        await writer.end();
        const back: string[][] = parse(out.text(), { relax_column_count: true });
        expect(back.map((r) => r[0])).toEqual(['input', ...items]);
      }),
      { numRuns: 200 },
    );
  });
});
