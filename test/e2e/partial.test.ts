// -o FILE is replaced only by a complete run (issue 14): every way a run ends short leaves FILE byte for byte
// as it was, puts the rows it has in FILE.partial (same format), says so, and exits as it did before. Runs
// are in-process against the sandbox, except Ctrl-C and SIGTERM, which need a real process.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, runInProcess, startCli } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
let out: string;
let env: NodeJS.ProcessEnv;
/** What FILE held before each run: a good earlier output, CRLF and all, which no incomplete run may touch. */
const BEFORE = Buffer.from('website,owner,status\r\nkept.example,me,found\r\n');

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'di-partial-'));
  out = join(dir, 'out.csv');
  writeFileSync(out, BEFORE);
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
  sb.resetCounters();
  sb.setRemaining(50_000);
  return () => rmSync(dir, { recursive: true, force: true });
});

function inputFile(hosts: string[]): string {
  const file = join(dir, 'in.csv');
  writeFileSync(file, `website,owner\n${hosts.map((h, i) => `${h},owner ${i}`).join('\n')}\n`);
  return file;
}

const batch = (file: string, ...flags: string[]) => runInProcess(['batch', file, '-o', out, '--rate', '100000/1m', ...flags], { env });

/** The data lines of a CSV output, and how many of them are answered (found or missing) or in error. */
function rowsOf(path: string): { lines: string[]; answered: number; errors: number } {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n').slice(1);
  return { lines, answered: lines.filter((l) => /,(found|missing),/.test(l)).length, errors: lines.filter((l) => /,error,/.test(l)).length };
}

/** FILE is as it was, byte for byte, and FILE.partial holds a header and `rows` rows of this run. */
function expectKept(rows: number): void {
  expect(readFileSync(out).equals(BEFORE)).toBe(true);
  const partial = readFileSync(`${out}.partial`, 'utf8');
  expect(partial.split('\n')[0]).toMatch(/^website,owner,status,host,/);
  expect(rowsOf(`${out}.partial`).lines).toHaveLength(rows);
  expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
}

const keptLine = (reason: string, rows: number, again = 'run the same command again to finish') =>
  `${out} unchanged (incomplete: ${reason}); ${rows} rows in ${out}.partial; ${again}`;

describe('an incomplete run keeps FILE and writes FILE.partial', () => {
  it('402 (the quota spent mid-run): exit 5, FILE unchanged, every paid answer in FILE.partial; the re-run completes FILE and removes the partial', async () => {
    const file = inputFile(sb.hostList().slice(0, 30));
    sb.setRemaining(10);
    const r = await batch(file, '--allow-partial');
    expect(r.code).toBe(5);
    expectKept(30);
    expect(r.stderr).toContain(keptLine("the month's lookups are spent", 30, 'run the same command again once the quota renews (or with a pack) to finish'));
    // The rest is in the partial, not in FILE: the quota's error says where.
    expect(r.stderr).toMatch(new RegExp(`error: stopped by the monthly quota: 20 rows not looked up; ${out.replaceAll('.', '\\.')}\\.partial holds the rest`));
    // The summary counts them as not looked up, not as errors, and says why in plain words (issue 16).
    expect(r.stderr).toMatch(/rows: read 30 · found \d+ · missing \d+ · invalid 0 · errors 0 · not looked up 20 · duplicates 0\n/);
    expect(r.stderr).toContain("stopped: the month's lookups are spent\n");
    expect(rowsOf(`${out}.partial`).answered).toBe(sb.charges().total);
    expect(sb.charges().total).toBe(10);

    sb.setRemaining(50_000);
    sb.resetCounters();
    const again = await batch(file);
    expect(again.code).toBe(0);
    expect(sb.charges().total).toBe(20);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(rowsOf(out)).toMatchObject({ answered: 30, errors: 0 });
    expect(again.stderr).not.toContain('unchanged');
  });

  it('--max-lookups reached: exit 4, FILE unchanged, the rows in FILE.partial', async () => {
    const file = inputFile(sb.hostList().slice(100, 130));
    const r = await batch(file, '--max-lookups', '10');
    expect(r.code).toBe(4);
    expectKept(30);
    // Not 'run the same command again to finish': that run stops at the budget again (a trial found).
    expect(r.stderr).toContain(keptLine('--max-lookups 10 reached', 30, 'the same command buys up to 10 more of them; raise --max-lookups for all'));
    expect(rowsOf(`${out}.partial`)).toMatchObject({ answered: 10, errors: 20 });
    expect(sb.charges().total).toBe(10);
  });

  it('a network outage: exit 7, FILE unchanged, the error rows in FILE.partial', async () => {
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as { port: number }).port;
    await new Promise((ok) => server.close(ok));
    env.DOMAIN_INTEL_BASE_URL = `http://127.0.0.1:${port}/api/v1`;
    const file = inputFile(sb.hostList().slice(200, 220));
    const r = await batch(file, '--retries', '0');
    expect(r.code).toBe(7);
    expectKept(20);
    expect(rowsOf(`${out}.partial`)).toMatchObject({ answered: 0, errors: 20 });
    // The run stopped sending at the refusal (no retry can mend it): the kept line says why in those words.
    expect(r.stderr).toContain(keptLine('the service could not be reached', 20));
  });

  it('some rows in error (503s, no retries): exit 4, FILE unchanged, answered and error rows in FILE.partial, answers as charged', async () => {
    const flaky = await startSandbox({ port: 0, rpm: 0, seed: 7, faults: { unavailable: 0.5 } });
    try {
      env.DOMAIN_INTEL_BASE_URL = flaky.baseUrl;
      env.DOMAIN_INTEL_API_KEY = flaky.key;
      const file = inputFile(flaky.hostList().slice(0, 600));
      const r = await batch(file, '--retries', '0', '--concurrency', '1');
      const rows = rowsOf(`${out}.partial`);
      expect(rows.errors).toBeGreaterThan(0);
      expect(rows.answered).toBe(flaky.charges().total);
      expect(rows.answered).toBeGreaterThan(0);
      expect(r.code).toBe(4);
      expectKept(600);
      expect(r.stderr).toContain(keptLine(`${rows.errors} rows in error`, 600));
    } finally {
      await flaky.close();
    }
  });

  it('with no FILE before, an incomplete run writes none and says "not written"; JSON partials are whole documents', async () => {
    rmSync(out);
    const file = inputFile(sb.hostList().slice(300, 330));
    const r = await batch(file, '--max-lookups', '5', '--format', 'json');
    expect(r.code).toBe(4);
    expect(existsSync(out)).toBe(false);
    const rows = JSON.parse(readFileSync(`${out}.partial`, 'utf8')) as { status: string }[];
    expect(rows).toHaveLength(30);
    expect(rows.filter((x) => x.status === 'error')).toHaveLength(25);
    expect(r.stderr).toContain(`${out} not written (incomplete: --max-lookups 5 reached); 30 rows in ${out}.partial`);
  });

  it('an input that fails mid-file (an unclosed quote): exit 2 naming the line, FILE unchanged, the rows answered before it in FILE.partial', async () => {
    const hosts = sb.hostList().slice(0, 1200);
    const file = join(dir, 'in.csv');
    const rows = hosts.map((h, i) => `${h},owner ${i}`);
    // Line 1,002 opens a quote nothing closes: the reader fails there, after lookups for the rows before it.
    rows.splice(1000, 0, `${hosts[0]},"never closed`);
    writeFileSync(file, `website,owner\n${rows.join('\n')}\n`);
    for (const format of ['csv', 'json']) {
      rmSync(`${out}.partial`, { force: true });
      sb.resetCounters();
      const r = await runInProcess(['batch', file, '-o', out, '--format', format, '--rate', '100000/1m', '--no-cache'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${file}:1002: unclosed quote`);
      expect(readFileSync(out).equals(BEFORE)).toBe(true);
      const charged = sb.charges().total;
      expect(charged).toBeGreaterThan(0);
      // Every paid answer is in the partial (with --no-cache, nowhere else), as a whole document.
      const partial = readFileSync(`${out}.partial`, 'utf8');
      const answered =
        format === 'csv' ? rowsOf(`${out}.partial`).answered : (JSON.parse(partial) as { status: string }[]).filter((x) => x.status === 'found').length;
      expect(answered).toBe(charged);
      expect(r.stderr).toMatch(
        new RegExp(`${out.replaceAll('.', '\\.')} unchanged \\(incomplete: .*\\); [\\d,]+ rows in ${out.replaceAll('.', '\\.')}\\.partial`),
      );
    }
  });

  it('--quiet still says FILE was kept, as a warning', async () => {
    const file = inputFile(sb.hostList().slice(400, 410));
    const r = await batch(file, '--max-lookups', '3', '--quiet');
    expect(r.code).toBe(4);
    expectKept(10);
    expect(r.stderr).toContain(
      `warning: ${keptLine('--max-lookups 3 reached', 10, 'the same command buys up to 3 more of them; raise --max-lookups for all')}`,
    );
    expect(r.stderr).not.toMatch(/rows \d+ · valid/);
  });

  it('--replace-incomplete: the incomplete output replaces FILE (no partial), exit as before', async () => {
    writeFileSync(`${out}.partial`, 'an earlier partial\n');
    const file = inputFile(sb.hostList().slice(500, 520));
    const r = await batch(file, '--max-lookups', '5', '--replace-incomplete');
    expect(r.code).toBe(4);
    expect(rowsOf(out)).toMatchObject({ answered: 5, errors: 15 });
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(r.stderr).not.toContain('unchanged');
    expect(r.stderr).toContain(`${out} replaced by an incomplete run (--replace-incomplete: --max-lookups 5 reached)`);
  });

  it('a complete run replaces FILE; invalid rows do not make it incomplete', async () => {
    const file = inputFile([...sb.hostList().slice(600, 610), 'not a host!']);
    const r = await batch(file);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('replaced'); // a clean run's replacement goes without saying
    expect(rowsOf(out).lines).toHaveLength(11);
    expect(readdirSync(dir).sort()).toEqual(['cache', 'in.csv', 'out.csv']);
  });
});

describe('signals (a real process, a slow sandbox)', () => {
  let slow: Sandbox;
  beforeAll(async () => {
    assertBuilt();
    slow = await startSandbox({ port: 0, rpm: 0, latencyMs: 40 });
  });
  afterAll(async () => {
    await slow?.close();
  });

  async function waitFor(cond: () => boolean): Promise<void> {
    const until = Date.now() + 10_000;
    while (!cond()) {
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)('%s: exit 130, FILE byte for byte, every paid answer in FILE.partial', async (signal) => {
    slow.resetCounters();
    const from = ['SIGINT', 'SIGTERM', 'SIGHUP'].indexOf(signal) * 1500;
    const hosts = slow.hostList().slice(from, from + 1500);
    const file = inputFile(hosts);
    const spawnEnv = { ...env, DOMAIN_INTEL_BASE_URL: slow.baseUrl, DOMAIN_INTEL_API_KEY: slow.key };
    const run = startCli(['batch', file, '-o', out, '--concurrency', '1', '--rate', '100000/1m'], { env: spawnEnv });
    await waitFor(() => slow.charges().total >= 200);
    run.child.kill(signal);
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(readFileSync(out).equals(BEFORE)).toBe(true);
    const rows = rowsOf(`${out}.partial`);
    expect(rows.answered).toBe(slow.charges().total);
    expect(rows.answered).toBeLessThan(1500);
    expect(r.stderr).toContain(`${out} unchanged (incomplete: interrupted); ${rows.lines.length.toLocaleString('en-US')} rows in ${out}.partial\n`);
    // How to resume is said once, by the exit's warning.
    expect(r.stderr.match(/run the same command again/g)).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});
