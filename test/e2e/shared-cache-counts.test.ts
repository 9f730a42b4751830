// Two processes on one cache over the same list, each host twice: each run's summary counts a host once,
// from the cache or bought, however the other run's answers reach it. Separate processes (the built bin), as
// two crontab jobs are: a repeat is planned while the other's answer is still in that process's journal, and
// a trial saw "from cache" plus lookups exceed the distinct hosts (6,000 distinct: 2,963 + 3,400).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, startCli } from '../helpers/cli.js';

let sb: Sandbox;
beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ port: 0, rpm: 0, quota: 10_000_000 });
});
afterAll(async () => {
  await sb?.close();
});

describe('two runs on one cache at once', () => {
  it('count each host once in their summaries: from cache plus lookups is the distinct hosts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'di-shared-counts-'));
    const hosts = sb.hostList().slice(0, 5000);
    // Each host twice, in an order shuffled the same way every time (a CRM export's repeats are anywhere).
    const rows = hosts.concat(hosts);
    let seed = 5;
    for (let i = rows.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const j = seed % (i + 1);
      [rows[i], rows[j]] = [rows[j] as string, rows[i] as string];
    }
    const file = join(dir, 'hosts.txt');
    writeFileSync(file, `${rows.join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
    const runs = await Promise.all(['a', 'b'].map((name) => startCli(['batch', file, '-o', join(dir, `${name}.txt`)], { env }).done));
    const figures = runs.map((r) => {
      expect(r.code).toBe(0);
      const m = /distinct ([\d,]+) · from cache ([\d,]+) · lookups ([\d,]+)/.exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      return (m as RegExpExecArray).slice(1).map((s) => Number(s.replaceAll(',', '')));
    });
    expect(sb.charges().total).toBe((figures[0]?.[2] ?? 0) + (figures[1]?.[2] ?? 0));
    for (const [distinct, cached, bought] of figures) {
      expect(distinct).toBe(5000);
      expect((cached ?? 0) + (bought ?? 0)).toBe(5000);
    }
  }, 60_000);
});
