// -o follows its name for every command that writes rows (issue 29, item 3): `lookup HOST -o a.csv` wrote JSON
// into a.csv, and `lookup a b -o z.xlsx` / `traffic HOST -o t.xlsx` wrote JSON text into a file Excel cannot
// open, exit 0. Each file is read back as what its name says: the CSV with csv-parse, the workbook with exceljs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { columnsFor } from '../../src/domain/flatten.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => {
  sb.resetCounters();
  dir = mkdtempSync(join(tmpdir(), 'di-oname-'));
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
  return () => rmSync(dir, { recursive: true, force: true });
});

/** The first sheet's rows as values, 0-based, read by exceljs as Excel would open the file. */
async function sheetRows(file: string): Promise<unknown[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(file);
  const sheet = book.worksheets[0];
  if (!sheet) throw new Error(`${file}: no sheet`);
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

const csvRows = (file: string) => parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];

describe('-o FILE picks the format by its name, one host or many', () => {
  it('lookup HOST -o a.csv writes CSV (it wrote JSON), and a name that says nothing is CSV too', async () => {
    const [host] = sb.hostList();
    for (const name of ['a.csv', 'a.txt', 'a']) {
      const out = join(dir, name);
      const r = await runInProcess(['lookup', host as string, '-o', out], { env, stdoutTTY: true });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      const rows = csvRows(out);
      expect(rows).toHaveLength(1);
      expect(Object.keys(rows[0]!)).toEqual(['input', ...columnsFor('profile')]);
      expect(rows[0]).toMatchObject({ input: host, status: 'found', host });
    }
    // Bought once: the other two came from the cache.
    expect(sb.charges().total).toBe(1);
  });

  it('lookup a b -o z.xlsx writes a workbook Excel can open: a header and one row per host', async () => {
    const [a, b] = sb.hostList();
    const out = join(dir, 'z.xlsx');
    const r = await runInProcess(['lookup', a as string, b as string, '-o', out, '--quiet'], { env, stdoutTTY: true });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out).subarray(0, 2).toString('latin1')).toBe('PK');
    const rows = await sheetRows(out);
    expect(rows[0]).toEqual(['input', ...columnsFor('profile')]);
    expect(rows.slice(1).map((row) => [row[0], row[1], row[2]])).toEqual([
      [a, 'found', a],
      [b, 'found', b],
    ]);
  });

  it('traffic HOST -o t.xlsx and employees HOST -o e.xlsx write workbooks of their own columns', async () => {
    const held = { traffic: sb.hostList().find((h) => sb.dataset.traffic(h) !== null), employees: sb.hostList().find((h) => sb.dataset.employees(h) !== null) };
    for (const kind of ['traffic', 'employees'] as const) {
      const out = join(dir, `${kind}.xlsx`);
      const r = await runInProcess([kind, held[kind] as string, '-o', out], { env });
      expect(r.code, r.stderr).toBe(0);
      const rows = await sheetRows(out);
      expect(rows[0]).toEqual(['input', ...columnsFor(kind)]);
      expect(rows).toHaveLength(2);
      expect(rows[1]![1]).toBe('found');
    }
    expect(sb.charges().total).toBe(2);
  });

  it('--format given wins over the name, as for batch: -o a.csv --format json writes JSON, -o z.txt --format xlsx a workbook', async () => {
    const [host] = sb.hostList();
    const json = join(dir, 'a.csv');
    expect((await runInProcess(['lookup', host as string, '-o', json, '--format', 'json'], { env })).code).toBe(0);
    const [row] = JSON.parse(readFileSync(json, 'utf8')) as { status: string; host: string }[];
    expect(row).toMatchObject({ status: 'found', host });
    const book = join(dir, 'z.txt');
    expect((await runInProcess(['lookup', host as string, '-o', book, '--format', 'xlsx'], { env })).code).toBe(0);
    expect((await sheetRows(book))[1]?.[1]).toBe('found');
    // batch reads the same rule: a .csv name with --format ndjson is NDJSON.
    const input = join(dir, 'in.txt');
    writeFileSync(input, `${host}\n`);
    const nd = join(dir, 'b.csv');
    expect((await runInProcess(['batch', input, '-o', nd, '--format', 'ndjson', '--quiet'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(nd, 'utf8').trim())).toMatchObject({ status: 'found', host });
  });

  it('refuses what cannot apply, exit 2 before anything is spent: a table into a file, a workbook onto a terminal', async () => {
    const [host] = sb.hostList();
    const table = await runInProcess(['lookup', host as string, '-f', 'table', '-o', join(dir, 't.csv')], { env });
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('--format table is drawn for the terminal; with -o FILE use csv, json, ndjson or xlsx');
    for (const args of [
      ['lookup', host as string, '--format', 'xlsx'],
      ['traffic', host as string, '--format', 'xlsx'],
      ['lookup', host as string, 'other.example', '--format', 'xlsx'],
    ]) {
      const r = await runInProcess(args, { env, stdoutTTY: true });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('--format xlsx is binary and stdout is a terminal: write it with -o FILE.xlsx, or into a pipe');
      expect(r.stdout).toBe('');
    }
    expect(sb.charges().total).toBe(0);
  });
});
