// Two cron jobs on one account and one cache directory (issue 13): real processes, since each has its own
// SQLite connections, limiter and event loop. Their lists overlap by half; together they must buy each host
// once (each claims a batch's hosts before it looks for them in the cache, so not even what was in flight at
// the same moment is bought twice) and, with the plan known, trip no 429 although each alone would use the
// whole rate.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, startCli } from '../helpers/cli.js';

let sb: Sandbox;
const dir = mkdtempSync(join(tmpdir(), 'di-cooperate-'));
beforeAll(async () => {
  assertBuilt();
  // 60 requests a second: 150 batches take 2.5 s shared, so both runs are at it together most of the time.
  sb = await startSandbox({ port: 0, rpm: 60, windowMs: 1000, latencyMs: 20 });
});
afterAll(async () => {
  await sb?.close();
});

function list(name: string, from: number, to: number): string {
  const file = join(dir, name);
  const hosts = Array.from({ length: to - from }, (_, i) => `site-${from + i}.example.com`);
  writeFileSync(file, `domain\n${hosts.join('\n')}\n`);
  return file;
}

describe('two processes, one account, one cache', () => {
  it('lists of 10,000 overlapping by 5,000 are charged 15,000, with no 429', async () => {
    const a = list('a.csv', 0, 10_000);
    const b = list('b.csv', 5000, 15_000);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const pace = ['--rate', '60/1s', '--concurrency', '4'];
    const runA = startCli(['batch', a, '-o', join(dir, 'a-out.csv'), ...pace], { env });
    const runB = startCli(['batch', b, '-o', join(dir, 'b-out.csv'), ...pace], { env });
    const [ra, rb] = await Promise.all([runA.done, runB.done]);
    expect(ra.stderr).toMatch(/errors 0/);
    expect([ra.code, rb.code], `${ra.stderr}\n${rb.stderr}`).toEqual([0, 0]);
    const charged = sb.charges();
    expect(charged.rateLimited).toBe(0);
    expect(charged.total).toBe(15_000);
    expect(Math.max(...Object.values(charged.byHost))).toBe(1);
    // What each summary says it spent adds up to what the service charged.
    const spent = (s: string) => Number((/lookups ([\d,]+) spent/.exec(s)?.[1] ?? 'NaN').replace(/,/g, ''));
    expect(spent(ra.stderr) + spent(rb.stderr)).toBe(charged.total);
    for (const out of ['a-out.csv', 'b-out.csv']) {
      const lines = readFileSync(join(dir, out), 'utf8').trimEnd().split('\n');
      expect(lines.length).toBe(10_001);
      expect(lines.slice(1).every((l) => /,missing,/.test(l))).toBe(true);
    }
  }, 60_000);
});
