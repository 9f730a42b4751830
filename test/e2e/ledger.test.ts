// The ledger through the CLI: the summary's "spent" is what the sandbox charged, under the readings that used
// to make it lie (an all-absent batch answered 404, a batch served in part over quota).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function setUp(options: SandboxOptions, hosts: (sb: Sandbox) => string[]) {
  sb = await startSandbox({ port: 0, rpm: 0, ...options });
  dir = mkdtempSync(join(tmpdir(), 'di-ledger-'));
  const file = join(dir, 'in.txt');
  writeFileSync(file, `${hosts(sb).join('\n')}\n`);
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
  const run = (...flags: string[]) => runInProcess(['batch', file, '-o', join(dir as string, 'out.csv'), '--rate', '100000/1m', ...flags], { env });
  return { sb, run };
}

describe('batch: spent is what was charged', () => {
  it('an all-absent batch answered 404 not_found: 150 spent, every row missing, exit 0; a re-run spends 0', async () => {
    const { sb, run } = await setUp({ allAbsent: 'not-found' }, () => Array.from({ length: 150 }, (_, i) => `absent-${i}.example`));
    const first = await run();
    expect(first.code).toBe(0);
    expect(sb.charges().total).toBe(150);
    expect(first.stderr).toMatch(
      /rows: read 150 · found 0 · missing 150 · invalid 0 · errors 0 · duplicates 0\nhosts: distinct 150 · from cache 0 · lookups 150 spent/,
    );
    sb.resetCounters();
    const second = await run();
    expect(second.code).toBe(0);
    expect(sb.charges().total).toBe(0);
    expect(second.stderr).toMatch(/hosts: distinct 150 · from cache 150 · lookups 0 spent/);
  });

  it('a batch served in part over quota: spent is what was served, the rest reported unanswered', async () => {
    // 100 ms a request: time to spend the account down while the first whole batch's answer is on its way.
    const { sb, run } = await setUp({ overQuota: 'partial', latencyMs: 100 }, (s) => s.hostList().slice(0, 400));
    sb.setRemaining(1000);
    // The first batch goes alone (slow start) and tells the quota; as it lands, another client spends the
    // account down to 150. Two batches then go out at once believing 900 are left: one served, one served 50
    // of 100 (the rest in neither list). --allow-partial: the run is not weighed against the quota up front.
    let before = -1;
    const spend = setInterval(() => {
      if (before >= 0 || !sb.requests().some((q) => q.hosts.length === 100)) return;
      before = sb.charges().total;
      sb.setRemaining(150);
    }, 5);
    const r = await run('--allow-partial').finally(() => clearInterval(spend));
    expect(before).toBeGreaterThanOrEqual(100);
    expect(sb.charges().total).toBe(before + 150);
    expect(r.stderr).toContain(`lookups ${before + 150} spent`);
    expect(r.stderr).toContain('unanswered 50: left out of');
    expect(r.code).not.toBe(0);
  });
});
