// --dry-run (issue 16): figures with thousands separators; the cost weighed against the quota last seen (the
// account's memo) and the plan's monthly allowance, with a warning when it exceeds either; --json giving the
// same figures as the text; the text wrapped at its separators on a narrow terminal. In-process, against the
// sandbox (a dry run sends nothing).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseBaseUrl } from '../../src/api/base-url.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openAccountState } from '../../src/store/sqlite/state.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const HOUR = 3_600_000;
let sb: Sandbox;
let file: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 2500 });
  const dir = mkdtempSync(join(tmpdir(), 'di-dry-'));
  const hosts = sb.hostList().slice(0, 2100);
  // 2,100 distinct hosts, 300 of them again, 10 rows with no host: 2,410 rows.
  const rows = [...hosts, ...hosts.slice(0, 300), ...Array.from({ length: 10 }, () => '!!!')];
  file = join(dir, 'in.csv');
  writeFileSync(file, `website\n${rows.join('\n')}\n`);
});
afterAll(() => sb?.close());

const envOf = () => cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });

/** Plants the quota an earlier run saw, `ageMs` ago. */
async function plantMemo(env: NodeJS.ProcessEnv, remaining: number, ageMs: number): Promise<void> {
  const state = await openAccountState({ dir: env.DOMAIN_INTEL_CACHE_DIR as string }, normaliseBaseUrl(sb.baseUrl), sb.key);
  const reset = new Date(Date.now() + 7 * 24 * HOUR);
  await state.noteQuota({ limit: 50_000, remaining, reset, resetRaw: reset.toISOString(), seenAt: Date.now() - ageMs });
  await state.close();
}

const json = async (env: NodeJS.ProcessEnv, ...flags: string[]) => {
  const r = await runInProcess(['--json', 'batch', file, '--dry-run', ...flags], { env });
  expect(r.code, r.stderr).toBe(0);
  return { plan: JSON.parse(r.stdout) as Record<string, unknown>, stderr: r.stderr };
};

describe('batch --dry-run', () => {
  it('grouped figures; over the plan: a warning; --json gives the same figures, the one estimate', async () => {
    const env = envOf();
    const r = await runInProcess(['batch', file, '--dry-run', '--plan', 'pro'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // 22 requests (the quota unknown: the first asks about one host, then 21 of up to 100) at 60 a minute: no
    // window to wait, about 50 ms each.
    expect(r.stderr.split('\n')).toEqual([
      'rows: read 2,410 · valid 2,400 · invalid 10 · duplicates 300',
      'hosts: distinct 2,100 · from cache 0 · lookups needed 2,100',
      'requests needed 22 · estimated time 1.1s',
      'quota: not seen lately (the run checks at its first answer) · plan pro: 2,000 a month',
      'warning: this run needs 2,100 lookups, more than the 2,000 a month plan pro allows',
      '',
    ]);
    const { plan, stderr } = await json(env, '--plan', 'pro');
    expect(plan).toEqual({
      rows: 2410,
      valid: 2400,
      invalid: 10,
      duplicates: 300,
      distinct_hosts: 2100,
      cache_hits: 0,
      lookups_needed: 2100,
      requests_needed: 22,
      estimated_ms: 1100,
      quota_remaining: null,
      quota_seen_at: null,
      quota_trusted: false,
      plan: 'pro',
      monthly_allowance: 2000,
      over_quota: false,
      over_plan: true,
    });
    expect(stderr).toBe('warning: this run needs 2,100 lookups, more than the 2,000 a month plan pro allows\n');
    expect(sb.requests()).toHaveLength(0);
  });

  it('says the requests the run then sends, as the service counts them: quota unknown, remembered and covering, stdin', async () => {
    const hosts = sb.hostList().slice(0, 250);
    const small = join(mkdtempSync(join(tmpdir(), 'di-dry-')), 'small.csv');
    writeFileSync(small, `website\n${hosts.join('\n')}\n`);
    const cases = [
      // The quota unknown: the first request asks about one host, then 249 go in 3.
      { name: 'quota unknown', args: [small], input: undefined, memo: false, requests: 4 },
      // A quota seen a minute ago that covers the run: whole batches from the first.
      { name: 'quota remembered', args: [small], input: undefined, memo: true, requests: 3 },
      // stdin is not weighed ahead: whole batches, the quota checked by the service's 402.
      { name: 'stdin', args: ['-'], input: `${hosts.join('\n')}\n`, memo: false, requests: 3 },
    ];
    for (const c of cases) {
      const env = envOf();
      if (c.memo) await plantMemo(env, 40_000, 60_000);
      const dry = await runInProcess(['--json', 'batch', ...c.args, '--dry-run'], { env, input: c.input });
      expect(dry.code, dry.stderr).toBe(0);
      sb.resetCounters();
      const run = await runInProcess(['batch', ...c.args, '-o', join(tmpdir(), `di-dry-${process.pid}-req.csv`), '--quiet'], { env, input: c.input });
      expect(run.code, run.stderr).toBe(0);
      const sent = sb.requests().filter((e) => e.operation !== null).length;
      expect({ case: c.name, said: (JSON.parse(dry.stdout) as { requests_needed: number }).requests_needed, sent }).toEqual({
        case: c.name,
        said: c.requests,
        sent: c.requests,
      });
    }
  });

  it('the estimate counts the requests an earlier run sent within the window: they hold its slots (a trial: told 400ms, took 56 s)', async () => {
    const env = envOf();
    const hosts = sb.hostList();
    const [first, second] = [hosts.slice(0, 250), hosts.slice(250, 750)].map((list, i) => {
      const path = join(mkdtempSync(join(tmpdir(), 'di-dry-')), `window-${i}.csv`);
      writeFileSync(path, `website\n${list.join('\n')}\n`);
      return path;
    });
    // 4 requests (the quota unknown: one host first, then 249 in 3) of the 6 a minute allows.
    const run = await runInProcess(['batch', first as string, '-o', join(tmpdir(), `di-dry-${process.pid}-w.csv`), '--rpm', '6', '--quiet'], { env });
    expect(run.code, run.stderr).toBe(0);
    // 5 requests (the quota just seen covers them): 2 go at once, 3 once the first run's oldest slot frees, a
    // minute after it was taken. Not 5 x 50 ms.
    const dry = await runInProcess(['--json', 'batch', second as string, '--dry-run', '--rpm', '6'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout) as { requests_needed: number; estimated_ms: number };
    expect(plan.requests_needed).toBe(5);
    expect(plan.estimated_ms).toBeGreaterThan(50_000);
    expect(plan.estimated_ms).toBeLessThanOrEqual(60_000 + 6 * 50);
  });

  it('the estimate waits a window for each further window of requests, in the text and the JSON alike', async () => {
    const env = envOf();
    // 22 requests at 6 a minute: 3 more windows, then 6 requests of about 50 ms.
    const r = await runInProcess(['batch', file, '--dry-run', '--rpm', '6'], { env });
    expect(r.stderr).toContain('requests needed 22 · estimated time 3m 00s\n');
    expect((await json(env, '--rpm', '6')).plan.estimated_ms).toBe(180_300);
    const off = await runInProcess(['batch', file, '--dry-run', '--rpm', '0'], { env });
    expect(off.stderr).toContain('estimated time unknown (pacing off: --rpm 0)');
    expect((await json(env, '--rpm', '0')).plan.estimated_ms).toBeNull();
    const none = await runInProcess(['batch', file, '--dry-run'], { env });
    expect(none.stderr).toContain('estimated time unknown (no rate known: set --plan or --rpm)');
  });

  it('a quota seen minutes ago: compared, and a warning when the run needs more; the monthly limit the service gave', async () => {
    const env = envOf();
    await plantMemo(env, 1_500, 5 * 60_000);
    const r = await runInProcess(['batch', file, '--dry-run', '--rpm', '600'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('\nquota: 1,500 left (seen 5 minutes ago) · 50,000 a month\n');
    expect(r.stderr).toContain(
      'warning: this run needs 2,100 lookups but only 1,500 are left (seen 5 minutes ago) · if its first answer says so too, the run asks on a terminal and is refused elsewhere, unless --allow-partial (it then stops when they are spent)\n',
    );
    expect(r.stderr).not.toContain('a month plan');
    // The real run asks the service (one host, which it needs anyway) and refuses on what it says, grouped as well.
    sb.setRemaining(1_500);
    sb.resetCounters();
    const runEnv = envOf();
    await plantMemo(runEnv, 1_500, 5 * 60_000);
    const run = await runInProcess(['batch', file, '-o', join(tmpdir(), `di-dry-${process.pid}.csv`), '--rpm', '600'], { env: runEnv });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('error: this run needs 2,099 lookups but only 1,499 are left; add --allow-partial');
    expect(sb.charges()).toMatchObject({ requests: 1, total: 1 });
    sb.setRemaining(50_000);
    const { plan } = await json(env, '--rpm', '600');
    expect(plan).toMatchObject({ quota_remaining: 1500, quota_trusted: true, plan: null, monthly_allowance: 50_000, over_quota: true, over_plan: false });
    expect(Date.now() - Date.parse(plan.quota_seen_at as string)).toBeGreaterThanOrEqual(5 * 60_000);
    const partial = await runInProcess(['batch', file, '--dry-run', '--rpm', '600', '--allow-partial'], { env });
    expect(partial.stderr).toContain('(seen 5 minutes ago) · with --allow-partial the run stops when they are spent\n');
    // --max-lookups caps what the run can cost: within the quota, no warning.
    const capped = await runInProcess(['batch', file, '--dry-run', '--rpm', '600', '--max-lookups', '1000'], { env });
    expect(capped.stderr).toContain('hosts: distinct 2,100 · from cache 0 · lookups needed 2,100 · --max-lookups stops at 1,000\n');
    expect(capped.stderr).not.toContain('warning');
  });

  it('none left: says the run stops at its first request, not that it asks', async () => {
    const env = envOf();
    await plantMemo(env, 0, 60_000);
    const r = await runInProcess(['batch', file, '--dry-run', '--rpm', '600'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'warning: this run needs 2,100 lookups but only 0 are left (seen 1 minute ago) · the run stops at its first request unless lookups were added since (a refused request costs nothing)\n',
    );
    expect(r.stderr).not.toContain('asks on a terminal');
  });

  it('a quota seen hours ago is shown for what it is; enough left: no warning', async () => {
    const env = envOf();
    await plantMemo(env, 1_500, 3 * HOUR);
    const r = await runInProcess(['batch', file, '--dry-run', '--rpm', '600'], { env });
    expect(r.stderr).toContain('\nquota: 1,500 left when seen 3 hours ago (the run checks at its first answer) · 50,000 a month\n');
    expect(r.stderr).toContain('warning: this run needs 2,100 lookups but only 1,500 are left (when seen 3 hours ago)');
    expect((await json(env, '--rpm', '600')).plan).toMatchObject({ quota_remaining: 1500, quota_trusted: false, over_quota: true });
    const plenty = envOf();
    await plantMemo(plenty, 40_000, 60_000);
    const ok = await runInProcess(['batch', file, '--dry-run', '--rpm', '600'], { env: plenty });
    expect(ok.stderr).toContain('\nquota: 40,000 left (seen 1 minute ago) · 50,000 a month\n');
    expect(ok.stderr).not.toContain('warning');
  });

  it('wraps its lines and warnings at the separators on a narrow terminal, never mid-number (40, 60, 120 columns)', async () => {
    const env = envOf();
    await plantMemo(env, 1_500, 5 * 60_000);
    const at = async (columns: number) =>
      (await runInProcess(['batch', file, '--dry-run', '--plan', 'pro'], { env, stderrTTY: true, columns })).stderr.trimEnd().split('\n');
    expect(await at(120)).toEqual([
      'rows: read 2,410 · valid 2,400 · invalid 10 · duplicates 300',
      'hosts: distinct 2,100 · from cache 0 · lookups needed 2,100',
      'requests needed 22 · estimated time 1.1s',
      'quota: 1,500 left (seen 5 minutes ago) · plan pro: 2,000 a month',
      'warning: this run needs 2,100 lookups but only 1,500 are left (seen 5 minutes ago) ·',
      '  if its first answer says so too, the run asks on a terminal and is refused elsewhere, unless --allow-partial (it then',
      '  stops when they are spent)',
      'warning: this run needs 2,100 lookups, more than the 2,000 a month plan pro allows',
    ]);
    // A line of exactly 60 columns fits; a longer one breaks at a separator, else between words.
    expect(await at(60)).toEqual([
      'rows: read 2,410 · valid 2,400 · invalid 10 · duplicates 300',
      'hosts: distinct 2,100 · from cache 0 · lookups needed 2,100',
      'requests needed 22 · estimated time 1.1s',
      'quota: 1,500 left (seen 5 minutes ago) ·',
      '  plan pro: 2,000 a month',
      'warning: this run needs 2,100 lookups but only 1,500 are',
      '  left (seen 5 minutes ago) ·',
      '  if its first answer says so too, the run asks on a',
      '  terminal and is refused elsewhere, unless --allow-partial',
      '  (it then stops when they are spent)',
      'warning: this run needs 2,100 lookups, more than the 2,000 a',
      '  month plan pro allows',
    ]);
    const narrow = await at(40);
    for (const line of narrow) expect(line.length).toBeLessThanOrEqual(40);
    expect(narrow.slice(0, 2)).toEqual(['rows: read 2,410 · valid 2,400 ·', '  invalid 10 · duplicates 300']);
    // No figure is cut across lines.
    const joined = narrow.map((l) => l.trim()).join(' ');
    for (const figure of ['2,410', '2,400', '2,100', '1,500', '2,000']) expect(joined).toContain(figure);
  });
});
