// The end-of-run summary (issue 16): rows and distinct hosts on labelled lines, rows a stop left untried
// counted as "not looked up" (not errors, not red), the stop in plain words, where the rows went and how many,
// where to find invalid rows, and every line wrapped at its separators on a narrow terminal. In-process
// against the sandbox.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess, startInProcess } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
let file: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 2000, latencyMs: 5 });
  dir = mkdtempSync(join(tmpdir(), 'di-summary-'));
  const hosts = sb.hostList().slice(0, 1200);
  // 1,200 distinct hosts, 100 of them again, 3 rows with no host: 1,303 rows.
  file = join(dir, 'in.csv');
  writeFileSync(file, `website\n${[...hosts, ...hosts.slice(0, 100), '!!!', '!!!', '!!!'].join('\n')}\n`);
});
afterAll(() => sb?.close());

const envOf = (extra: Record<string, string> = {}) => cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, ...extra });
const lines = (stderr: string) => stderr.trimEnd().split('\n');

async function waitFor(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

describe('the run summary', () => {
  it('a complete run: rows and hosts apart, the file and its row count named, where invalid rows are', async () => {
    const env = envOf();
    const out = join(dir, 'out.csv');
    const r = await runInProcess(['batch', file, '-o', out, '--prefix', 'di_'], { env });
    expect(r.code, r.stderr).toBe(0);
    const said = lines(r.stderr);
    expect(said[0]).toMatch(/^rows: read 1,303 · found ([\d,]+) · missing ([\d,]+) · invalid 3 · errors 0 · duplicates 100$/);
    const [, found, missing] = /found ([\d,]+) · missing ([\d,]+)/.exec(said[0] ?? '') ?? [];
    expect(Number(found?.replace(',', '')) + Number(missing?.replace(',', ''))).toBe(1300);
    expect(said[1]).toBe(`hosts: distinct 1,200 · from cache 0 · lookups ${sb.charges().total.toLocaleString('en-US')} spent`);
    expect(said).toContain(`wrote 1,303 rows to ${out}`);
    expect(said.at(-1)).toBe('invalid rows: di_status "invalid" on their rows, the di_reason column says why · --strict exits 3 when there are any');
    // As said: 1,303 rows under the header, the invalid ones marked in that column.
    const csv = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(csv).toHaveLength(1304);
    expect(csv[0]).toMatch(/^website,di_status,/);
    expect(csv.filter((l) => l.startsWith('!!!,invalid,'))).toHaveLength(3);

    // Again, to stdout as JSON under --strict: from the cache, stdout named, JSON's own key names, exit 3.
    const again = await runInProcess(['batch', file, '--format', 'json', '--strict'], { env });
    expect(again.code).toBe(3);
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(/^rows: read 1,303 · /),
      'hosts: distinct 1,200 · from cache 1,200 · lookups 0 spent',
      expect.stringMatching(/^requests 0 · /),
      'wrote 1,303 rows to stdout',
      'invalid rows: status "invalid" on their rows, the reason column says why',
      'warning: 3 invalid rows (--strict)',
    ]);
  });

  it('--max-lookups: the rest "not looked up", not errors, and never red; the warning says so', async () => {
    const env = { ...envOf() };
    delete env.NO_COLOR;
    const small = join(dir, 'small.csv');
    writeFileSync(small, `website\n${sb.hostList().slice(1500, 1530).join('\n')}\n`);
    const r = await runInProcess(['batch', small, '-o', join(dir, 'small-out.csv'), '--max-lookups', '10', '--concurrency', '1'], {
      env,
      stderrTTY: true,
      columns: 200,
    });
    expect(r.code).toBe(4);
    const plain = r.stderr.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/rows: read 30 · found \d+ · missing \d+ · invalid 0 · errors 0 · not looked up 20 · duplicates 0\n/);
    expect(plain).toContain('stopped: --max-lookups 10 reached\n');
    expect(plain).toContain(
      'warning: 20 rows not looked up (--max-lookups 10 reached); the same command buys up to 10 more of them; raise --max-lookups for all\n',
    );
    expect(r.stderr).toContain('\x1b[33mnot looked up 20\x1b[39m');
    expect(r.stderr).not.toContain('\x1b[31m'); // no red: nothing failed
  });

  it('Ctrl-C under --no-cache: rows never tried are "not looked up", the stop in plain words, nothing said to be cached', async () => {
    const big = join(dir, 'big.csv');
    writeFileSync(big, `website\n${sb.hostList().join('\n')}\n`);
    const charged = sb.charges().total;
    const run = startInProcess(['batch', big, '-o', join(dir, 'big-out.csv'), '--no-cache', '--concurrency', '1'], { env: envOf() });
    await waitFor(() => sb.charges().total >= charged + 100);
    run.signal('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    const m = /rows: read ([\d,]+) · found [\d,]+ · missing [\d,]+ · invalid 0 · errors 0 · not looked up ([\d,]+) · duplicates 0/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.stderr).toContain('\nstopped: interrupted\n');
    expect(r.stderr).toContain('warning: interrupted: answers so far are not kept (--no-cache); a re-run pays for them again\n');
    expect(r.stderr).not.toMatch(/are cached|rows in error/);
  });

  it('wraps each line at its separators to the terminal (40, 60, 120 columns), never inside a figure', async () => {
    const env = envOf();
    // The summary follows the progress line drawn on the same terminal (cleared before it).
    const at = async (columns: number) => {
      const { stderr } = await runInProcess(['batch', file, '-o', join(dir, `w${columns}.csv`)], { env, stderrTTY: true, columns });
      return lines(stderr.slice(stderr.lastIndexOf('rows: read')));
    };
    const wide = await at(120);
    expect(wide[0]).toBe('rows: read 1,303 · found 1,300 · missing 0 · invalid 3 · errors 0 · duplicates 100');
    expect(wide[1]).toBe('hosts: distinct 1,200 · from cache 0 · lookups 1,200 spent');
    expect(wide).toContain('invalid rows: status "invalid" on their rows, the reason column says why · --strict exits 3 when there are any');
    const mid = await at(60);
    expect(mid.slice(0, 2)).toEqual(['rows: read 1,303 · found 1,300 · missing 0 · invalid 3 ·', '  errors 0 · duplicates 100']);
    expect(mid.slice(-2)).toEqual(['invalid rows: status "invalid" on their rows, the reason', '  column says why · --strict exits 3 when there are any']);
    const narrow = await at(40);
    expect(narrow.slice(0, 4)).toEqual([
      'rows: read 1,303 · found 1,300 ·',
      '  missing 0 · invalid 3 · errors 0 ·',
      '  duplicates 100',
      'hosts: distinct 1,200 ·',
    ]);
    for (const [width, said] of [
      [40, narrow],
      [60, mid],
      [120, wide],
    ] as const) {
      for (const line of said) expect(line.length, line).toBeLessThanOrEqual(width);
      // Every figure whole on its line: no line begins or ends inside a number.
      for (const line of said) expect(line).not.toMatch(/^\s*[\d,]*,\d|\d,$/);
    }
  });
});
