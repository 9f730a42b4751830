// Bad input files through `batch -o out.csv`, end to end. What each case must do is what src/input/read.ts
// documents at its top: unreadable input is one clear stderr line "<file>:<line>: <what>" with exit 2, no
// stack trace, and no output file (neither the target nor a temporary file in its directory); ragged rows are
// not errors, nor are an empty file and a header alone under --allow-empty (without it they are exit 12:
// test/e2e/empty-input.test.ts). Every case finishes in a few seconds.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnsFor } from '../../src/output/write.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { STACK_FRAME, runCli, tempHome, type CliResult, type TempHome } from './helpers.js';

// A hang would run to the 20 s kill; a healthy refusal takes well under a second, even on a loaded machine.
const FAST_MS = 8_000;

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

/** Writes `content` as an input file, runs `batch FILE -o DIR/out.csv` with DIR fresh and empty. */
async function batchFile(
  content: string | Buffer,
  opts: { existing?: string; extra?: string[] } = {},
): Promise<{ r: CliResult; file: string; dir: string; out: string }> {
  const id = ++n;
  const file = home.path(`input-${id}.csv`);
  writeFileSync(file, content);
  const dir = home.path(`out-${id}`);
  mkdirSync(dir);
  const out = join(dir, 'out.csv');
  if (opts.existing !== undefined) writeFileSync(out, opts.existing);
  const r = await runCli(['batch', file, '-o', out, ...(opts.extra ?? [])], { env: home.env(), timeoutMs: 20_000 });
  return { r, file, dir, out };
}

/** The failure contract: exit 2, one line naming file and line, no stack, no output file, fast. */
/** `line`: the line the message names (null: any); false: none (a workbook that cannot be read has no line). */
function expectRefused(res: { r: CliResult; file: string; dir: string; out: string }, line: number | null | false, what: RegExp): void {
  const { r, file, dir, out } = res;
  expect(r.timedOut).toBe(false);
  expect(r.ms).toBeLessThan(FAST_MS);
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  const at = line === false ? '' : `:${line === null ? '\\d+' : String(line)}`;
  expect(lines[0]).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${at}: `));
  expect(lines[0]).toMatch(what);
  expect(r.stderr).not.toMatch(STACK_FRAME);
  expect(r.stdout).toBe('');
  expect(existsSync(out)).toBe(false);
  expect(readdirSync(dir)).toEqual([]); // no temporary file left behind either
}

function readOut(out: string): string[][] {
  return parse(readFileSync(out, 'utf8'), { relax_column_count: true, record_delimiter: '\n' });
}

describe.concurrent('batch refuses unreadable input cleanly', () => {
  it('unclosed quote: the line where the quoted field starts', async () => {
    const h = sb.hostList();
    expectRefused(await batchFile(`domain,note\n${h[0]},ok\n${h[1]},"never closed\nmore,stuff\n${h[2]},x\n`), 3, /unclosed quote/);
  });

  it('unclosed quote with an existing target: the old file survives untouched', async () => {
    const res = await batchFile('domain,note\nusi.com,"open\n', { existing: 'old,output\n' });
    expect(res.r.code).toBe(2);
    expect(res.r.stderr).toMatch(/:2: unclosed quote/);
    expect(readFileSync(res.out, 'utf8')).toBe('old,output\n');
    expect(readdirSync(res.dir)).toEqual(['out.csv']);
  });

  it('binary data (random bytes with NULs)', async () => {
    const bytes = randomBytes(64 * 1024);
    bytes[100] = 0;
    bytes[5000] = 0;
    expectRefused(await batchFile(bytes), null, /looks like a binary file/);
  });

  it('a 5 MB single line, as a list and as a CSV row', async () => {
    expectRefused(await batchFile('a'.repeat(5 * 1024 * 1024)), 1, /line longer than 1 MiB/);
    expectRefused(await batchFile(`domain,note\nusi.com,${'b'.repeat(5 * 1024 * 1024)}\n`), 2, /longer than 1 MiB/);
  });

  it('Latin-1 after UTF-8 text (a file mixing encodings): names the byte and the --encoding to pass', async () => {
    const latin1 = Buffer.concat([Buffer.from('domain,note\nusi.com,Zürich\n'), Buffer.from('caf\xe9.com,x\n', 'latin1')]);
    expectRefused(await batchFile(latin1), 3, /not valid UTF-8 \(byte 0xE9\).*--encoding windows-1252/);
  });

  it('UTF-16 without its BOM and a spreadsheet workbook say what they are', async () => {
    expectRefused(await batchFile(Buffer.from('domain\nusi.com\n', 'utf16le')), 1, /UTF-16LE.*--encoding utf-16le/);
    // A ZIP signature goes to the spreadsheet reader (issue 15), which says the workbook cannot be read.
    expectRefused(await batchFile(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(512)])), false, /not a readable \.xlsx workbook/);
  });

  it('binary data on stdin names stdin', async () => {
    const dir = home.path('out-stdin');
    mkdirSync(dir);
    const bytes = randomBytes(4096);
    bytes[10] = 0;
    const r = await runCli(['batch', '-', '-o', join(dir, 'out.csv')], { env: home.env(), input: bytes });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^error: stdin:\d+: looks like a binary file/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a missing file and a directory: exit 2, one line', async () => {
    for (const target of [home.path('no-such.csv'), home.root]) {
      const r = await runCli(['batch', target, '-o', home.path('never.csv')], { env: home.env() });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(target);
      expect(existsSync(home.path('never.csv'))).toBe(false);
    }
  });
});

describe.concurrent('batch accepts awkward but valid input (read.ts: not errors)', () => {
  it('ragged rows: a short row without the host cell is invalid, extra cells are kept after ours', async () => {
    const [a, b] = sb.hostList() as [string, string];
    const res = await batchFile(`domain,note,owner\n${a}\n${b},n,o,extra1,extra2\n\nx\n,\n`);
    expect(res.r.code, res.r.stderr).toBe(0);
    expect(res.r.stderr).not.toMatch(STACK_FRAME);
    const [header, ...rows] = readOut(res.out);
    const ours = columnsFor('profile');
    expect(header).toEqual(['domain', 'note', 'owner', ...ours]);
    const status = (r: string[]) => r[3 + ours.indexOf('status')];
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      [a, '', ''],
      [b, 'n', 'o'],
      ['x', '', ''],
      ['', '', ''],
    ]);
    expect(rows.map(status)).toEqual(['found', 'found', 'invalid', 'invalid']);
    expect(rows[1]!.slice(3 + ours.length)).toEqual(['extra1', 'extra2']);
    expect(rows[3]![3 + ours.indexOf('reason')]).toBe('empty value');
    expect(readdirSync(res.dir)).toEqual(['out.csv']);
  });

  it('an empty file (or only blank and # lines), with --allow-empty: exit 0, a header-only output of a newline list', async () => {
    for (const content of ['', '\n\n# nothing here\n   \n']) {
      const res = await batchFile(content, { extra: ['--allow-empty'] });
      expect(res.r.code, res.r.stderr).toBe(0);
      expect(readFileSync(res.out, 'utf8')).toBe(`${['input', ...columnsFor('profile')].join(',')}\n`);
      expect(readdirSync(res.dir)).toEqual(['out.csv']);
    }
  });

  it('a header alone, with --allow-empty: exit 0, the header with our columns and no rows', async () => {
    const res = await batchFile('Domain,Note\r\n', { extra: ['--allow-empty'] });
    expect(res.r.code, res.r.stderr).toBe(0);
    // The header's CRLF is the file's row end, and the output keeps it (issue 14).
    expect(readFileSync(res.out, 'utf8')).toBe(`${['Domain', 'Note', ...columnsFor('profile')].join(',')}\r\n`);
  });
});
