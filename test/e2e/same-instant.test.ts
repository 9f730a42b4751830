// Two runs of one account on one machine started at the same instant (two crontab lines at `0 2 * * *`), on
// one cache directory (issue 26, item 6): each believed itself alone, bought without claiming, and the same
// batch was bought twice in 3 of 5 tries. Real processes, since each has its own SQLite connections and event
// loop; five tries, each on a fresh cache; what was bought twice is what the sandbox charged twice.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, startCli } from '../helpers/cli.js';

const TRIES = 5;
const HOSTS = 600;

let sb: Sandbox;
beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ port: 0, rpm: 0, quota: 1_000_000, latencyMs: 40 });
});
afterAll(async () => {
  await sb?.close();
});

describe('two runs started at the same instant on one cache', () => {
  it(`buy no host twice, in ${TRIES} tries of the same list`, async () => {
    for (let t = 0; t < TRIES; t++) {
      // A fresh settings and cache directory each try, shared by the two runs (the same user's crontab).
      const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
      const dir = env.DOMAIN_INTEL_CONFIG_DIR as string;
      const hosts = Array.from({ length: HOSTS }, (_, i) => `try-${t}-site-${i}.example.com`);
      const list = join(dir, '..', 'list.csv');
      writeFileSync(list, `domain\n${hosts.join('\n')}\n`);
      sb.resetCounters();
      const runs = ['a', 'b'].map((name) => startCli(['batch', list, '-o', join(dir, '..', `${name}.csv`)], { env }));
      const done = await Promise.all(runs.map((r) => r.done));
      for (const r of done) expect(r.code, r.stderr).toBe(0);

      const charged = sb.charges();
      const twice = Object.entries(charged.byHost).filter(([, n]) => n > 1);
      expect(twice, `try ${t + 1}: hosts bought twice`).toEqual([]);
      expect(charged.total, `try ${t + 1}`).toBe(HOSTS);
      // What the two summaries say they spent adds up to what the service charged.
      const spent = (s: string) => Number((/lookups ([\d,]+) spent/.exec(s)?.[1] ?? '0').replace(/,/g, ''));
      expect(spent((done[0] as { stderr: string }).stderr) + spent((done[1] as { stderr: string }).stderr)).toBe(HOSTS);
    }
  }, 120_000);
});
