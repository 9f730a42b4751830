// An empty export never wipes an enriched file (issue 29): `batch export.csv -o enriched.csv` with an input of
// no rows (0 bytes, blank and # lines, a header alone, a workbook's header alone) leaves enriched.csv byte for
// byte, writes nothing to stdout, spends nothing, and exits 12 with one line on stderr, --quiet or not.
// `--allow-empty` runs such an input as before: an empty output, exit 0.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { columnsFor } from '../../src/domain/flatten.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
let out: string;
let env: NodeJS.ProcessEnv;
/** Yesterday's enriched file, which no empty export may touch. */
const BEFORE = 'website,status,host\r\nkept.example,found,kept.example\r\n';

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'di-empty-'));
  out = join(dir, 'enriched.csv');
  writeFileSync(out, BEFORE);
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
  sb.resetCounters();
  return () => rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

async function headerOnlyWorkbook(): Promise<string> {
  const path = join(dir, 'export.xlsx');
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Leads').addRow(['Company', 'Website']);
  await book.xlsx.writeFile(path);
  return path;
}

describe('an input with no rows', () => {
  it.each([
    ['0 bytes', 'export.csv', '', 'the input is empty, or blank and # lines only'],
    ['blank and # lines', 'export.csv', '\n\n# nothing tonight\n   \n', 'the input is empty, or blank and # lines only'],
    ['a header alone', 'export.csv', 'id,Website,Note\r\n', 'a header and nothing under it'],
    ['a TSV header alone', 'export.tsv', 'id\twebsite\n', 'a header and nothing under it'],
  ])('%s: -o FILE untouched, nothing spent, exit 12 and one line, under --quiet too', async (_, name, content, what) => {
    const input = file(name, content);
    const mtime = statSync(out).mtimeMs;
    for (const quiet of [[], ['--quiet']]) {
      const r = await runInProcess(['batch', input, '-o', out, ...quiet], { env });
      expect(r.code, r.stderr).toBe(EXIT.EMPTY_INPUT);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`error: ${input}: no rows to enrich (${what}); ${out} is left as it was; --allow-empty writes an empty output instead\n`);
      expect(readFileSync(out, 'utf8')).toBe(BEFORE);
      expect(statSync(out).mtimeMs).toBe(mtime);
      // No temporary file and no FILE.partial beside it.
      expect(readdirSync(dir).filter((f) => f.startsWith('enriched'))).toEqual(['enriched.csv']);
    }
    expect(sb.charges().requests).toBe(0);
  });

  it("a workbook's header alone: the same", async () => {
    const book = await headerOnlyWorkbook();
    const r = await runInProcess(['batch', book, '-o', out, '--quiet'], { env });
    expect(r.code, r.stderr).toBe(EXIT.EMPTY_INPUT);
    expect(r.stderr).toBe(
      `error: ${book}: no rows to enrich (a header and nothing under it); ${out} is left as it was; --allow-empty writes an empty output instead\n`,
    );
    expect(readFileSync(out, 'utf8')).toBe(BEFORE);
  });

  it('to stdout, from stdin, for traffic and under --dry-run: nothing written, exit 12, one line', async () => {
    const input = file('export.csv', 'website\n');
    const cases = [
      { args: ['batch', input], name: input },
      { args: ['batch', '-'], name: 'stdin', input: 'website\n' },
      { args: ['traffic', '--input', input], name: input },
      { args: ['employees', '--input', input, '--format', 'ndjson'], name: input },
      { args: ['batch', input, '--dry-run'], name: input },
    ];
    for (const c of cases) {
      const r = await runInProcess(c.args, { env, ...(c.input === undefined ? {} : { input: c.input }) });
      expect(r.code, `${c.args.join(' ')}: ${r.stderr}`).toBe(EXIT.EMPTY_INPUT);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `error: ${c.name}: no rows to enrich (a header and nothing under it); nothing was written; --allow-empty writes an empty output instead\n`,
      );
    }
    const json = await runInProcess(['batch', input, '-o', out, '--json'], { env });
    expect(json.code).toBe(EXIT.EMPTY_INPUT);
    expect(JSON.parse(json.stderr)).toEqual({
      error: `${input}: no rows to enrich (a header and nothing under it)`,
      code: 'empty_input',
      host: null,
      exit: EXIT.EMPTY_INPUT,
      hint: `${out} is left as it was; --allow-empty writes an empty output instead`,
    });
    expect(sb.charges().requests).toBe(0);
  });

  it('--allow-empty: the header with our columns, FILE replaced, exit 0', async () => {
    const input = file('export.csv', 'id,website\r\n');
    const r = await runInProcess(['batch', input, '-o', out, '--allow-empty', '--quiet'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(`${['id', 'website', ...columnsFor('profile')].join(',')}\r\n`);
  });

  it('a row, even one that names no website, is no empty input', async () => {
    const input = file('export.csv', 'id,website\n1,\n');
    const r = await runInProcess(['batch', input, '-o', out, '--quiet'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^id,website,status,.*\n1,,invalid,,empty value,/);
  });
});
