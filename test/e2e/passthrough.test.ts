// Issue 14, deliverable 5: the user's own cells come out as they went in. A CRM export (BOM, CRLF, phone
// numbers and tags that start like formulas, Müller) through `batch -o FILE` is compared byte for byte with
// what it must become: the input's cells, BOM and row ends, with our columns added. Our columns are chosen
// with --fields status so the expected bytes can be written out whole.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const BOM = '\ufeff';
let sb: Sandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
let hosts: string[];
let n = 0;

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  dir = mkdtempSync(join(tmpdir(), 'di-passthrough-'));
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  hosts = sb.hostList().slice(0, 4);
});
afterAll(async () => {
  await sb?.close();
});

const status = (host: string): string => (sb.dataset.isHeld(host) ? 'found' : 'missing');

/** Writes `text` to a new file in the temp dir; returns its path. */
function file(text: string, ext = 'csv'): string {
  const path = join(dir, `in-${++n}.${ext}`);
  writeFileSync(path, text);
  return path;
}

/** Runs `batch IN -o OUT --fields status ...more`; returns the output file's bytes and the run. */
async function batch(input: string, more: string[] = []): Promise<{ out: Buffer; code: number; stderr: string }> {
  const out = join(dir, `out-${++n}.csv`);
  const r = await runInProcess(['batch', input, '-o', out, '--fields', 'status', ...more], { env });
  expect(r.code, r.stderr).toBe(0);
  return { out: readFileSync(out), code: r.code, stderr: r.stderr };
}

describe('input cells, BOM and row ends pass through batch', () => {
  it('a CRM export: BOM, CRLF, formula-like cells, quoted commas and line breaks come out byte for byte', async () => {
    const [a, b, c] = hosts;
    const rows = [
      ['Name', 'Phone', 'Website', 'Note'],
      ['Müller', '+1 555 0100', a!, '-VIP-'],
      ['"Acme, Inc."', '-5', b!, '@channel'],
      ['Jörg', '=SUM(A1)', c!, '"two\r\nlines"'],
    ];
    const text = `${BOM}${rows.map((r) => r.join(',')).join('\r\n')}\r\n`;
    const input = file(text);
    const before = readFileSync(input);
    const { out } = await batch(input);
    const expected = `${BOM}${[
      `${rows[0]!.join(',')},status`,
      `${rows[1]!.join(',')},${status(a!)}`,
      `${rows[2]!.join(',')},${status(b!)}`,
      `${rows[3]!.join(',')},${status(c!)}`,
    ].join('\r\n')}\r\n`;
    expect(out.toString('utf8')).toBe(expected);
    expect(out.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    expect(readFileSync(input).equals(before)).toBe(true);
  });

  it("--neutralise-input prefixes ' to the user's formula-like cells (not numbers), keeping BOM and CRLF", async () => {
    const [a] = hosts;
    const input = file(`${BOM}Website,Phone,Tag\r\n${a},+1 555 0100,@channel\r\n${a},-5,-VIP-\r\n`);
    const { out } = await batch(input, ['--neutralise-input']);
    expect(out.toString('utf8')).toBe(`${BOM}Website,Phone,Tag,status\r\n${a},'+1 555 0100,'@channel,${status(a!)}\r\n${a},-5,'-VIP-,${status(a!)}\r\n`);
  });

  it('LF without a BOM stays so; --bom adds one; a BOM already there is not doubled', async () => {
    const [a] = hosts;
    const lf = file(`domain,x\n${a},=1\n`);
    const plain = `domain,x,status\n${a},=1,${status(a!)}\n`;
    expect((await batch(lf)).out.toString('utf8')).toBe(plain);
    expect((await batch(lf, ['--bom'])).out.toString('utf8')).toBe(BOM + plain);
    const withBom = file(`${BOM}domain,x\n${a},=1\n`);
    expect((await batch(withBom, ['--bom'])).out.toString('utf8')).toBe(BOM + plain);
  });

  it('TSV with CRLF comes out as TSV with CRLF', async () => {
    const [a, b] = hosts;
    const input = file(`url\tnote\r\n${a}\t+44 20 7946 0000\r\n${b}\ta,b\r\n`, 'tsv');
    const { out } = await batch(input);
    expect(out.toString('utf8')).toBe(`url\tnote\tstatus\r\n${a}\t+44 20 7946 0000\t${status(a!)}\r\n${b}\ta,b\t${status(b!)}\r\n`);
  });

  it('a newline list on stdin: BOM and CRLF kept, each line as read in the input column', async () => {
    const [a, b] = hosts;
    const r = await runInProcess(['batch', '-', '--fields', 'status'], { env, input: Buffer.from(`${BOM}${a}\r\n  ${b}  \r\n`) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${BOM}input,status\r\n${a},${status(a!)}\r\n  ${b}  ,${status(b!)}\r\n`);
  });

  it('JSON and NDJSON never carry a BOM: the input one is dropped and --bom does nothing there', async () => {
    const [a] = hosts;
    const input = file(`${BOM}domain,note\r\n${a},@x\r\n`);
    for (const format of ['json', 'ndjson']) {
      const r = await runInProcess(['batch', input, '--format', format, '--bom', '--fields', 'status'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.startsWith(BOM)).toBe(false);
      expect(r.stdout).not.toContain('\r');
      const first = format === 'json' ? (JSON.parse(r.stdout) as unknown[])[0] : JSON.parse(r.stdout.trim());
      expect(first).toEqual({ line: 2, status: status(a!) });
    }
    const whole = await runInProcess(['batch', input, '--format', 'ndjson'], { env });
    expect((JSON.parse(whole.stdout.trim()) as { input: Record<string, string> }).input).toEqual({ domain: a, note: '@x' });
  });

  it('a single lookup in CSV takes --bom too', async () => {
    const [a] = hosts;
    const r = await runInProcess(['lookup', a!, '--format', 'csv', '--bom'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(`${BOM}input,status,`)).toBe(true);
    const without = await runInProcess(['lookup', a!, '--format', 'csv'], { env });
    expect(without.stdout.startsWith('input,status,')).toBe(true);
  });
});
