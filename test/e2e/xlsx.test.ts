// Spreadsheets in and out (issue 15, deliverable 4), against the sandbox: a workbook saved by LibreOffice
// (fixtures/crm.xlsx, converted headless from fixtures/crm.csv) round-trips through batch with every input
// cell equal, our columns after them, numbers numeric, the service's values text and no formula anywhere; the
// sandbox charges its distinct hosts once. A workbook this test writes itself covers --sheet, stdin and the
// refusals.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { columnsFor } from '../../src/domain/flatten.js';
import { normaliseHost } from '../../src/domain/normalise.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, ROOT, runInProcess } from '../helpers/cli.js';
import { sheetXml } from '../helpers/xlsx.js';

const FIXTURE = join(ROOT, 'fixtures', 'crm.xlsx');

let sb: Sandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
const homes: string[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
  dir = mkdtempSync(join(tmpdir(), 'di-xlsx-'));
  homes.push(dir);
});
afterAll(async () => {
  await sb?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  sb.resetCounters();
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  homes.push(join(env.DOMAIN_INTEL_CACHE_DIR as string, '..'));
});

async function sheetOf(file: string, name?: string): Promise<ExcelJS.Worksheet> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(file);
  const sheet = name === undefined ? book.worksheets[0] : book.getWorksheet(name);
  if (!sheet) throw new Error(`${file}: no sheet`);
  return sheet;
}

/** Every row of a sheet as its values, 0-based (exceljs's are 1-based). */
function rowsOf(sheet: ExcelJS.Worksheet): unknown[][] {
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

describe('batch of a LibreOffice workbook, written as xlsx', () => {
  it('keeps every input cell, appends ours (numbers numeric, the rest text, no formula), charges each distinct host once', async () => {
    const out = join(dir, 'enriched.xlsx');
    const r = await runInProcess(['batch', FIXTURE, '-o', out, '--quiet'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const input = rowsOf(await sheetOf(FIXTURE));
    const sheet = await sheetOf(out);
    const output = rowsOf(sheet);
    const width = input[0]!.length;
    expect(output).toHaveLength(input.length);
    expect(output[0]).toEqual([...input[0]!, ...columnsFor('profile')]);
    for (const [i, row] of input.entries()) {
      const written = output[i]!.slice(0, width);
      // A missing cell (an empty deal_value) reads back as missing; every present one is equal, type and all.
      for (const [c, cell] of row.entries()) expect(written[c] ?? null, `row ${i + 1} column ${c + 1}`).toEqual(cell ?? null);
    }
    // The input's numbers and dates stay numbers and dates (LibreOffice typed them on import).
    expect(typeof output[1]![3]).toBe('number');
    expect(output[1]![5]).toBeInstanceOf(Date);
    const at = (name: string) => width + columnsFor('profile').indexOf(name);
    const found = output.slice(1).filter((row) => row[at('status')] === 'found');
    expect(found.length).toBeGreaterThan(3);
    // The service's numbers are numbers where it gave one, `resolves` a boolean (it was the text "true"); everything
    // else it gave is text.
    const numeric = new Set(['age_days', 'http_status', 'traffic_visits', 'employees_low', 'employees_high', 'employees_point']);
    const typeOf = (name: string) => (numeric.has(name) ? 'number' : name === 'resolves' ? 'boolean' : 'string');
    for (const row of found) {
      for (const name of columnsFor('profile')) {
        const value = row[at(name)];
        if (value !== undefined && value !== null) expect(typeof value, name).toBe(typeOf(name));
      }
      expect(typeof row[at('technologies')]).toBe('string');
    }
    expect(found.filter((row) => typeof row[at('age_days')] === 'number').length).toBeGreaterThan(3);
    expect(found.filter((row) => row[at('resolves')] === true).length).toBeGreaterThan(3);
    expect(await sheetXml(out)).toMatch(/<c [^>]*t="b"[^>]*><v>1<\/v><\/c>/);
    // Frozen header row with an autofilter; no formula in the whole sheet.
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBeTruthy();
    expect(await sheetXml(out)).not.toContain('<f');
    // The sandbox charged each distinct valid host of the website column once.
    const hosts = new Set(
      input.slice(1).flatMap((row) => {
        const n = normaliseHost(String(row[1] ?? ''));
        return n.ok ? [n.host] : [];
      }),
    );
    const charged = sb.charges();
    expect(Object.keys(charged.byHost).sort()).toEqual([...hosts].sort());
    expect(charged.total).toBe(hosts.size);
  });

  it('reads the same rows as the CSV LibreOffice converted it from', async () => {
    const csv = await runInProcess(['batch', join(ROOT, 'fixtures', 'crm.csv'), '--format', 'ndjson', '--quiet', '--fields', 'status,host'], { env });
    const xlsx = await runInProcess(['batch', FIXTURE, '--format', 'ndjson', '--quiet', '--fields', 'status,host'], { env });
    expect(xlsx.code).toBe(0);
    expect(xlsx.stdout).toBe(csv.stdout);
  });
});

describe('a workbook of two sheets', () => {
  let book: string;
  beforeAll(async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Notes').addRows([['read me first'], ['nothing here']]);
    const accounts = wb.addWorksheet('Accounts');
    accounts.addRows([
      [],
      ['Company', 'Website', 'Seats', 'Formula'],
      ['One', sb.hostList()[0], 42, { formula: '1+1', result: 2 }],
      ['Two', 'not a domain', 7.5, null],
    ]);
    book = join(dir, 'two-sheets.xlsx');
    await wb.xlsx.writeFile(book);
  });

  it('--sheet picks the second; blank rows before the header are skipped; a formula is read as its result', async () => {
    const r = await runInProcess(['batch', book, '--sheet', 'accounts', '--format', 'ndjson', '--quiet'], { env });
    expect(r.stderr).toBe('');
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; input: Record<string, string>; status: string });
    expect(rows.map((row) => [row.line, row.input, row.status])).toEqual([
      [3, { Company: 'One', Website: sb.hostList()[0], Seats: '42', Formula: '2' }, 'found'],
      [4, { Company: 'Two', Website: 'not a domain', Seats: '7.5', Formula: null }, 'invalid'],
    ]);
  });

  it('a missing sheet is a usage error listing the sheets, and nothing is charged', async () => {
    const r = await runInProcess(['batch', book, '--sheet', 'Clients', '-o', join(dir, 'never.xlsx')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no sheet named "Clients"; sheets are: "Notes", "Accounts"');
    expect(existsSync(join(dir, 'never.xlsx'))).toBe(false);
    expect(sb.charges().total).toBe(0);
  });

  it('the options of text input are refused for a workbook, naming them', async () => {
    const r = await runInProcess(['batch', book, '--delimiter', ';', '--encoding', 'latin1'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is an .xlsx workbook; --delimiter and --encoding apply only to text input');
    const csv = await runInProcess(['batch', join(ROOT, 'fixtures', 'crm.csv'), '--sheet', 'crm'], { env });
    expect(csv.code).toBe(2);
    expect(csv.stderr).toContain('--sheet applies to an .xlsx workbook; this input is text');
    expect(sb.charges().total).toBe(0);
  });

  it('the first sheet is read by default: no host column there is the usual usage error', async () => {
    const r = await runInProcess(['batch', book, '--quiet'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no host column found');
    expect(r.stderr).toContain('"read me first"');
  });

  it('piped in without a name, the ZIP signature routes it to the spreadsheet reader', async () => {
    const r = await runInProcess(['batch', '-', '--sheet', 'Accounts', '--format', 'ndjson', '--quiet', '--fields', 'status'], {
      env,
      input: readFileSync(book),
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['{"line":3,"status":"found"}', '{"line":4,"status":"invalid"}']);
  });
});

describe('xlsx output', () => {
  it('from CSV: input cells stay the text they were ("007", "=1+2"), never numbers or formulas', async () => {
    const csv = join(dir, 'in.csv');
    writeFileSync(csv, `code,website,note\n007,${sb.hostList()[1]},=1+2\n`);
    const out = join(dir, 'from-csv.xlsx');
    const r = await runInProcess(['batch', csv, '-o', out, '--quiet', '--fields', 'status,host'], { env });
    expect(r.code).toBe(0);
    expect(rowsOf(await sheetOf(out))).toEqual([
      ['code', 'website', 'note', 'status', 'host'],
      ['007', sb.hostList()[1], '=1+2', 'found', sb.hostList()[1]],
    ]);
    expect(await sheetXml(out)).not.toContain('<f');
  });

  it("-o's name picks the format when --format is not given: .json, .ndjson and .jsonl as well as .xlsx", async () => {
    const csv = join(dir, 'names.csv');
    writeFileSync(csv, `website\n${sb.hostList().slice(0, 3).join('\n')}\n`);
    const json = join(dir, 'out.json');
    expect((await runInProcess(['batch', csv, '-o', json, '--quiet'], { env })).code).toBe(0);
    expect((JSON.parse(readFileSync(json, 'utf8')) as unknown[]).length).toBe(3);
    for (const name of ['out.ndjson', 'out.jsonl']) {
      const file = join(dir, name);
      expect((await runInProcess(['batch', csv, '-o', file, '--quiet'], { env })).code).toBe(0);
      expect(
        readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).host),
      ).toEqual(sb.hostList().slice(0, 3));
    }
    // Asked for, the format wins over the name.
    const asked = join(dir, 'asked.json');
    expect((await runInProcess(['batch', csv, '-o', asked, '-f', 'csv', '--quiet'], { env })).code).toBe(0);
    expect(readFileSync(asked, 'utf8').startsWith('website,status,host,')).toBe(true);
  });

  it('goes into a pipe: stdout carries the workbook', async () => {
    const r = await runInProcess(['batch', FIXTURE, '--format', 'xlsx', '--quiet', '--fields', 'status'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('PK\u0003\u0004')).toBe(true);
    expect(r.stderr).toBe('');
  });

  it.skipIf(!existsSync('/dev/full'))('a write that fails (ENOSPC on /dev/full) is exit 10 in one line, as for CSV', async () => {
    const r = await runInProcess(['batch', FIXTURE, '-o', '/dev/full', '--format', 'xlsx', '--quiet'], { env });
    expect(r.code).toBe(10);
    expect(r.stderr.trim().split('\n')).toEqual(['error: no space left on device writing /dev/full']);
  });

  it('is refused on a terminal (binary), before anything is charged', async () => {
    const r = await runInProcess(['batch', FIXTURE, '--format', 'xlsx'], { env, stdoutTTY: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--format xlsx is binary and stdout is a terminal');
    expect(sb.charges().total).toBe(0);
  });

  it('never replaces the workbook it reads (its other sheets would be lost)', async () => {
    const book = join(dir, 'in-place.xlsx');
    writeFileSync(book, readFileSync(FIXTURE));
    for (const format of [[], ['-f', 'csv']]) {
      const r = await runInProcess(['batch', book, '-o', book, ...format], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`-o ${book} is the input file: a workbook written back would hold one sheet, and your others would be lost`);
    }
    expect(readFileSync(book)).toEqual(readFileSync(FIXTURE));
    expect(sb.charges().total).toBe(0);
  });

  it('an incomplete run keeps FILE and leaves a complete workbook in FILE.partial', async () => {
    const out = join(dir, 'budget.xlsx');
    writeFileSync(out, 'before');
    const r = await runInProcess(['batch', FIXTURE, '-o', out, '--quiet', '--max-lookups', '2'], { env });
    expect(r.code, r.stderr).toBe(4);
    expect(readFileSync(out, 'utf8')).toBe('before');
    const rows = rowsOf(await sheetOf(`${out}.partial`));
    expect(rows).toHaveLength(14);
    expect(sb.charges().total).toBe(2);
  });
});
