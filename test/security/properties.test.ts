// End-to-end properties through the whole CLI, run in-process (the library-level ones live in test/output/roundtrip.test.ts
// and normalise.test.ts; these check that the whole program keeps the same promises):
// - any CSV or TSV (ragged rows included; blank and '#' lines where the reader skips them) through `batch` keeps
//   every input cell (header included) exactly, with its BOM and line ends (issue 14), and with
//   --neutralise-input every input cell is exactly neutraliseCell(cell);
// - any line through `batch` comes out either as a row whose host passes rule 2.9 (and equals what
//   normaliseHost says), or as an invalid row with a reason.
import { writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlausibleHostname } from '../../src/api/hostname.js';
import { normaliseHost } from '../../src/domain/normalise.js';
import { HOST_HEADERS } from '../../src/input/read.js';
import { columnsFor, neutraliseCell } from '../../src/output/write.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { rowEnds } from '../run/helpers.js';
import { STACK_FRAME, runCli, tempHome, type TempHome } from './helpers.js';

// Few runs of large cases: each run is a whole CLI run (a batch through the sandbox).
const CSV_RUNS = 12;
const LINE_RUNS = 6;

let sb: Sandbox;
let home: TempHome;
let n = 0;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  home = tempHome(sb);
});
afterAll(async () => {
  home.remove();
  await sb.close();
});

// Cells a spreadsheet export or a hostile sender may hold: quotes, delimiters, line breaks, formula starters,
// escapes, bidi, non-BMP characters. No NUL (a NUL near the start marks the file binary, by design).
const special = fc.constantFrom(
  ',',
  '"',
  '""',
  '\n',
  '\r',
  '\r\n',
  'end\r',
  '\t',
  ' ',
  '#',
  '=',
  '+',
  '-',
  '@',
  '-12',
  '-3.5',
  '=1+1',
  '\x1b[31m',
  '\u202e',
  'é',
  '😀',
  '\u00a0',
  '\u2028',
  'x.com',
  'HTTP://A.COM/x',
);
const cell = fc.array(fc.oneof(special, fc.string({ unit: 'grapheme', maxLength: 5 })), { maxLength: 4 }).map((a) => a.join(''));
const headerCell = cell.filter((h) => !h.includes('\t') && !h.includes('\ufeff') && !(HOST_HEADERS as readonly string[]).includes(h.trim().toLowerCase()));

const csvFile = fc.integer({ min: 2, max: 4 }).chain((width) =>
  fc.record({
    headers: fc.array(headerCell, { minLength: width - 1, maxLength: width - 1 }).map((rest) => ['domain', ...rest]),
    // Ragged on purpose: short rows are padded, extra cells are written last (after our columns).
    rows: fc.array(fc.array(cell, { minLength: 1, maxLength: width + 2 }), { maxLength: 16 }),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    tsv: fc.boolean(),
    // What the reader skips by design, in the file too: blank, whitespace-only and '#' lines before the
    // header, and blank lines between rows (at these row indexes).
    before: fc.array(fc.constantFrom('', '  ', '# exported', '#,x', '\t'), { maxLength: 3 }),
    gaps: fc.array(fc.nat({ max: 16 }), { maxLength: 3 }),
  }),
);

type CsvFile = typeof csvFile extends fc.Arbitrary<infer T> ? T : never;

function csvText(t: CsvFile): string {
  const eol = t.crlf ? '\r\n' : '\n';
  const options = { delimiter: t.tsv ? '\t' : ',', record_delimiter: eol, quoted_match: /[\r\n]/ };
  const rows = t.rows.map((r) => stringify([r], options));
  for (const at of [...t.gaps].sort((a, b) => b - a)) rows.splice(Math.min(at, rows.length), 0, eol);
  const header = stringify([t.headers], options);
  return (t.bom ? '\ufeff' : '') + t.before.map((l) => l + eol).join('') + header + rows.join('');
}

describe('e2e: CSV through batch', () => {
  it('keeps every input cell byte for byte, with its BOM and line ends; --neutralise-input neutralises exactly the formula-like ones', async () => {
    await fc.assert(
      fc.asyncProperty(csvFile, async (t) => {
        const file = home.path(`prop-${++n}.${t.tsv ? 'tsv' : 'csv'}`);
        writeFileSync(file, csvText(t));
        const eol = t.crlf ? '\r\n' : '\n';
        const [plainRun, safeRun] = await Promise.all(
          // --allow-empty: a header alone (no row, or only blank ones) is a file too, whose header must come back.
          [false, true].map((neutralise) => runCli(['batch', file, '--allow-empty', ...(neutralise ? ['--neutralise-input'] : [])], { env: home.env() })),
        );
        for (const [neutralise, r] of [
          [false, plainRun!],
          [true, safeRun!],
        ] as const) {
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).not.toMatch(STACK_FRAME);
          // The BOM, once, exactly when the input had one.
          expect(r.stdout.startsWith('\ufeff')).toBe(t.bom);
          const text = t.bom ? r.stdout.slice(1) : r.stdout;
          expect(text.startsWith('\ufeff')).toBe(false);
          // read.ts skips a row whose only cell is blank; every other row comes out, in order, ending as the input's rows did.
          const kept = t.rows.filter((cells) => !(cells.length === 1 && cells[0]!.trim() === ''));
          expect(rowEnds(text)).toEqual(Array<string>(kept.length + 1).fill(eol));
          // Read back as a spreadsheet would, with that row end alone: a cell's own CR or LF must have been quoted.
          const out: string[][] = parse(text, { delimiter: t.tsv ? '\t' : ',', record_delimiter: eol, relax_column_count: true });
          const width = t.headers.length;
          const ours = columnsFor('profile').length;
          const fix = (cells: string[]) => (neutralise ? cells.map(neutraliseCell) : cells);
          const padded = (cells: string[]) => [...cells.slice(0, width), ...Array<string>(Math.max(0, width - cells.length)).fill('')];
          expect(out.map((row) => row.slice(0, width))).toEqual([t.headers, ...kept].map((cells) => fix(padded(cells))));
          expect(out.slice(1).map((row) => row.slice(width + ours))).toEqual(kept.map((cells) => fix(cells.slice(width))));
        }
      }),
      {
        numRuns: CSV_RUNS,
        examples: [
          // Always tried as well: CR ending a cell that is written last on its line (an extra cell), where an
          // unquoted CR would merge with the LF into a CRLF row end and be lost on reading back; and the CRM
          // export of issue 14 (phone numbers, tags, a BOM, CRLF, Müller); and a TSV whose header holds a comma
          // cell, once sniffed as a CSV (tab now wins a tie, and a .tsv name says tab: dialect.ts).
          [
            {
              headers: ['domain', '=h'],
              rows: [['x.com', 'a', 'end\r'], ['\r', '-1', '@x', '\r'], ['a'], [' ']],
              crlf: true,
              bom: true,
              tsv: false,
              before: [],
              gaps: [],
            },
          ],
          [
            {
              headers: ['domain', 'Name', 'Phone', 'Tag'],
              rows: [
                ['a.com', 'Müller', '+1 555 0100', '-VIP-'],
                ['b.com', '=Jörg', '-5', '@channel'],
              ],
              crlf: true,
              bom: true,
              tsv: false,
              before: ['# CRM export'],
              gaps: [1],
            },
          ],
          [{ headers: ['domain', ','], rows: [], crlf: false, bom: false, tsv: true, before: [], gaps: [] }],
          [{ headers: ['domain', '', '', ','], rows: [[',']], crlf: false, bom: false, tsv: true, before: [], gaps: [] }],
        ],
      },
    );
  }, 60_000);
});

const line = fc
  .oneof(
    fc.string({
      unit: fc.oneof(
        fc.constantFrom('.', '-', '@', ':', '/', ' ', '\t', 'A', 'é', '\x1b', '\u202e', '\u200b', '[', '"', ','),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      ),
      maxLength: 30,
    }),
    fc.domain(),
    fc.webUrl(),
    fc.emailAddress(),
    fc.domain().map((d) => `  ${d.toUpperCase()}.  `),
  )
  .filter((s) => !/[\n\r\0]/.test(s) && s.trim() !== '' && !s.trim().startsWith('#'));

describe('e2e: any value through batch', () => {
  it('becomes a row whose host passes rule 2.9 (as normaliseHost says), or an invalid row with a reason', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 40 }), async (lines) => {
        fc.pre(!lines[0]!.startsWith('\ufeff')); // a BOM at the very start is the file's, not the value's
        const file = home.path(`lines-${++n}.txt`);
        writeFileSync(file, `${lines.join('\n')}\n`);
        const r = await runCli(['batch', file, '--input-format', 'lines', '--format', 'ndjson'], { env: home.env() });
        expect(r.code, r.stderr).toBe(0);
        const rows = r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { input: { input: string }; status: string; host: string | null; reason: string | null });
        expect(rows.map((x) => x.input)).toEqual(lines.map((l) => ({ input: l })));
        for (const row of rows) {
          const expected = normaliseHost(row.input.input);
          if (row.status === 'invalid') {
            expect(expected.ok).toBe(false);
            expect(row.host).toBeNull();
            expect(typeof row.reason === 'string' && row.reason.length > 0).toBe(true);
          } else {
            expect(['found', 'missing']).toContain(row.status);
            expect(expected).toEqual({ ok: true, host: row.host });
            expect(isPlausibleHostname(row.host!)).toBe(true);
          }
        }
      }),
      { numRuns: LINE_RUNS },
    );
  }, 60_000);
});
