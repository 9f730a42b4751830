// Resuming a run by running it again. The first run is a real process, killed (SIGKILL) or interrupted
// (SIGINT) halfway, since only a process can be; the re-runs need no process boundary and run in-process.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, runInProcess, startCli, startInProcess } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ port: 0, rpm: 0, latencyMs: 40 });
  dir = mkdtempSync(join(tmpdir(), 'di-resume-'));
});
afterAll(async () => {
  await sb?.close();
});

function inputFile(name: string, hosts: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `website,owner\n${hosts.map((h, i) => `${h},owner ${i}`).join('\n')}\n`);
  return file;
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('resume by re-running', () => {
  it('after kill -9 halfway, the re-run spends only what was not yet answered', async () => {
    sb.resetCounters();
    const hosts = [...sb.hostList().slice(0, 1500), ...sb.hostList().slice(0, 300)];
    const file = inputFile('kill.csv', hosts);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const out = join(dir, 'kill-out.csv');
    const first = startCli(['batch', file, '-o', out, '--concurrency', '2', '--rate', '100000/1m', '--quiet'], { env });
    await waitFor(() => sb.charges().total >= 400);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(out)).toBe(false); // never half-written
    const spentBefore = sb.charges().total;
    expect(spentBefore).toBeLessThan(1500);

    const second = await runInProcess(['batch', file, '-o', out, '--rate', '100000/1m', '--quiet'], { env });
    expect(second.code).toBe(0);
    const total = sb.charges().total;
    // Only the distinct hosts, plus at most the batches that were in flight when the process died.
    expect(total).toBeLessThanOrEqual(1500 + 2 * 100);
    expect(total).toBeGreaterThanOrEqual(1500);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBe(1 + hosts.length);
    expect(lines.slice(1).every((l) => /,found,|,missing,/.test(l))).toBe(true);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);

    sb.resetCounters();
    const third = await runInProcess(['batch', file, '-o', out, '--rate', '100000/1m'], { env });
    expect(third.code).toBe(0);
    expect(sb.charges().total).toBe(0);
    expect(third.stderr).toMatch(/from cache 1,500 · lookups 0 spent/);
  });

  it('an interrupted --refresh says how to resume without buying its answers again, and that command buys none twice', async () => {
    const hosts = sb.hostList().slice(3500, 4500);
    const file = inputFile('refresh.csv', hosts);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const out = join(dir, 'refresh-out.csv');
    // (A cache filled before would hold answers as young as the --max-age advised: the refresh is of an empty one.)
    sb.resetCounters();
    const run = startInProcess(['batch', file, '-o', out, '--refresh', '--concurrency', '1', '--rate', '100000/1m'], { env });
    await waitFor(() => sb.charges().total >= 300);
    run.signal('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    // The same command again would buy every answer again, this run's 300 and more included (a trial paid them twice).
    const advice =
      /interrupted: answers so far are cached; to resume without buying this run's answers again, run the same command with --max-age (\d+m) \(the time since it began\) in place of --refresh/.exec(
        r.stderr,
      );
    expect(advice, r.stderr).not.toBeNull();
    const spent = sb.charges().total;
    sb.resetCounters();
    const resumed = await runInProcess(['batch', file, '-o', out, '--max-age', advice?.[1] as string, '--rate', '100000/1m', '--quiet'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sb.charges().total).toBe(1000 - spent);
  });

  it('Ctrl-C stops sending, lets answers in flight land, writes what it has, summarises and exits 130', async () => {
    sb.resetCounters();
    const hosts = sb.hostList().slice(1500, 3500);
    const file = inputFile('int.csv', hosts);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const out = join(dir, 'int-out.csv');
    const run = startCli(['batch', file, '-o', out, '--concurrency', '1', '--rate', '100000/1m'], { env });
    await waitFor(() => sb.charges().total >= 300);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    // Rows never tried are "not looked up", not errors (issue 16); the stop in plain words.
    const untried = /rows: read [\d,]+ · found [\d,]+ · missing [\d,]+ · invalid 0 · errors 0 · not looked up ([\d,]+) · duplicates 0/.exec(r.stderr);
    expect(untried).not.toBeNull();
    expect(r.stderr).toContain('stopped: interrupted\n');
    const spent = sb.charges().total;
    expect(spent).toBeLessThan(2000);
    // What it has is written, complete and well-formed, beside the -o file it was not allowed to replace
    // (issue 14): a header and every row read so far.
    expect(existsSync(out)).toBe(false);
    const lines = readFileSync(`${out}.partial`, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^website,owner,status,host,/);
    expect(lines.filter((l) => /,found,|,missing,/.test(l)).length).toBe(spent);
    expect(lines.filter((l) => /,error,/.test(l)).length).toBe(Number(untried?.[1]?.replace(/,/g, '')));

    // Everything paid for landed in the cache: the re-run pays only for the rest.
    sb.resetCounters();
    const again = await runInProcess(['batch', file, '-o', out, '--rate', '100000/1m', '--quiet'], { env });
    expect(again.code).toBe(0);
    expect(sb.charges().total).toBe(2000 - spent);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(2001);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });
});
