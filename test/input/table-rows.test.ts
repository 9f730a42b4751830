// The one-scan row splitter (input/table-rows.ts) against the csv-parse path it skips for lines without a quote:
// the same rows (cells and start lines; before an error, the same first ones), the same first-row end and the
// same error (code, line, message) for
// any bytes cut into chunks anywhere, under LF and CR-only line ends, with each delimiter. Quote-free tables are
// also held equal to csv-parse's own synchronous parse with the reader's options.
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { InputRecord } from '../../src/domain/types.js';
import type { InputError } from '../../src/api/errors.js';
import { MAX_LINE_BYTES } from '../../src/input/decode.js';
import { tableRows } from '../../src/input/table-rows.js';

async function* chunked(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let at = 0;
  for (const n of cuts) {
    if (at >= bytes.length) return;
    yield bytes.subarray(at, at + n);
    at += n;
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

interface Outcome {
  rows: InputRecord[];
  eol: string | null;
  error: { name: string; message: string; code?: string; line?: number | null } | null;
}

async function read(text: string | Buffer, delimiter: string, crOnly: boolean, plain: boolean, cuts: number[] = []): Promise<Outcome> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const rows = tableRows(chunked(bytes, cuts), 3, delimiter, 'in.csv', crOnly, plain);
  const out: Outcome = { rows: [], eol: null, error: null };
  try {
    for (let batch = await rows.pull(); batch !== null; batch = await rows.pull()) out.rows.push(...batch);
  } catch (err) {
    const e = err as InputError;
    out.error = { name: e.name, message: e.message, code: e.code, line: e.line };
  } finally {
    rows.close();
  }
  out.eol = rows.eol();
  return out;
}

// A line of nothing but the other line-end byte (CRs under LF ends, more than the one a CRLF takes; LFs under
// CR ends) is a row of whitespace to csv-parse, but RowStarts opens no row for it, so the csv-parse path numbers
// the rows after it one line late (a fault of that path, seen by this test). The direct path numbers them right.
function otherOnlyLine(text: string, crOnly: boolean): boolean {
  return crOnly ? /(^|\r)\n+(\r|$)/.test(text) : /(^|\n)\r{2,}\n|(^|\n)\r+$/.test(text);
}
// There, rows are compared by their cells and an error by its kind: its line (and the message naming it) is the
// csv-parse path's, one late as well.
const cellsOf = (o: Outcome) => ({ ...o, rows: o.rows.map((r) => r.cells), error: o.error && { name: o.error.name, code: o.error.code } });

const piece = fc.constantFrom('a', 'example.com', ' ', 'é', '😀', ',', ';', '\t', '|', '\r', '\n', '\r\n', '\n\n', '');
const quoted = fc.constantFrom('"', '""', '"a,b"', '"x\ny"', '"a;b|c\td"', '"q""r"', '" "', '"\r"');
const body = (quotes: boolean) => fc.array(quotes ? fc.oneof({ weight: 6, arbitrary: piece }, { weight: 1, arbitrary: quoted }) : piece, { maxLength: 40 });
const header = fc.constantFrom('domain,n', 'domain;n', 'domain\tn', 'domain|n', 'domain', 'a\r');
const cuts = fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 30 });
const delimiter = fc.constantFrom(',', ';', '\t', '|');

describe('tableRows: one scan where there is no quote', () => {
  it('reads any bytes as the csv-parse path does (rows, lines, first row end, errors), chunked anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(header, body(true), delimiter, fc.boolean(), cuts, async (head, parts, d, crOnly, at) => {
        const text = `${head}\n${parts.join('')}`;
        const direct = await read(text, d, crOnly, true, at);
        const parsed = await read(text, d, crOnly, false, at);
        if (parsed.error === null) {
          if (otherOnlyLine(text, crOnly)) expect(cellsOf(direct)).toEqual(cellsOf(parsed));
          else expect(direct).toEqual(parsed);
          return;
        }
        // A failing row stops csv-parse's path somewhere in the chunk it is in (where depends on the chunks);
        // the direct path has handed over every quote-free row before it by then.
        const prefix = { ...direct, rows: direct.rows.slice(0, parsed.rows.length) };
        if (otherOnlyLine(text, crOnly)) expect(cellsOf(prefix)).toEqual(cellsOf(parsed));
        else expect(prefix).toEqual(parsed);
        // And none after where csv-parse's path stopped: its error's line, or its own last row, which can be later
        // (a quote met mid-cell is named by the line it opened on: seed -609759896 has rows to line 6 and the error
        // at line 4, on both paths alike).
        const stop = Math.max(parsed.error.line!, parsed.rows.at(-1)?.line ?? 0);
        for (const r of direct.rows) expect(r.line).toBeLessThanOrEqual(stop);
      }),
      { numRuns: 1500, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true } : {}) },
    );
  });

  it('splits a quote-free table into the cells csv-parse makes of it', async () => {
    await fc.assert(
      fc.asyncProperty(header, body(false), delimiter, cuts, async (head, parts, d, at) => {
        const text = `${head}\n${parts.join('')}`;
        const expected = (
          parse(text, { delimiter: d, record_delimiter: ['\r\n', '\n'], relax_column_count: true, skip_empty_lines: true }) as string[][]
        ).filter((cells) => !(cells.length === 1 && cells[0]!.trim() === ''));
        expect((await read(text, d, false, true, at)).rows.map((r) => r.cells)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('reads well-formed tables (cells quoted where they must be, some across lines) as the csv-parse path does', async () => {
    const cell = fc.array(fc.constantFrom('a', 'b.com', ' ', 'é', ',', ';', '\t', '|', '"', '\r', '\n', '#'), { maxLength: 5 }).map((p) => p.join(''));
    const table = fc.array(fc.array(fc.tuple(cell, fc.boolean()), { minLength: 1, maxLength: 4 }), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(table, delimiter, fc.constantFrom('\n', '\r\n'), cuts, async (rows, d, end, at) => {
        const quote = ([c, always]: [string, boolean]) => (always || /[",;\t|\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c);
        const text = `domain${d}n${end}${rows.map((r) => r.map(quote).join(d)).join(end)}`;
        const direct = await read(text, d, false, true, at);
        expect(direct).toEqual(await read(text, d, false, false, at));
      }),
      { numRuns: 1000 },
    );
  });

  it('numbers rows by the line they start on, a quoted line break counted, and notes a CRLF header', async () => {
    const r = await read('domain,n\r\na.com,1\r\n\r\n"b\r\nc",2\r\nd.com,"3"\r\ne.com,4', ',', false, true, [7, 5]);
    expect(r.rows.map((x) => [x.line, ...x.cells])).toEqual([
      [3, 'domain', 'n'],
      [4, 'a.com', '1'],
      [6, 'b\r\nc', '2'],
      [8, 'd.com', '3'],
      [9, 'e.com', '4'],
    ]);
    expect(r.eol).toBe('\r\n');
  });

  it('refuses a line over 1 MiB as csv-parse does, on its line, after the rows before it', async () => {
    const big = 'x'.repeat(MAX_LINE_BYTES + 10);
    for (const tail of ['\nz.com,3\n', '']) {
      const text = `domain,n\na.com,1\n${big},2${tail}`;
      const direct = await read(text, ',', false, true, [65536, 65536]);
      expect(direct).toEqual(await read(text, ',', false, false, [65536, 65536]));
      expect(direct.rows.map((x) => x.cells[0])).toEqual(['domain', 'a.com']);
      expect(direct.error).toMatchObject({ code: 'line_too_long', line: 5 });
    }
  });
});
