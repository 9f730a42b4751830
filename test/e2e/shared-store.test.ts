// The shared PostgreSQL store from the command line (issue 25): `--store`, DOMAIN_INTEL_STORE and `config set
// store` choose it, and every command that keeps or reads answers works on it: a batch against the sandbox,
// then `cache stats`, `changes`, `quota` and `summarize --from-cache` read what it wrote, in the database (not
// the cache directory, which stays empty). The password is masked wherever the URL is shown, and a store that
// cannot be reached is one line and its exit code, with nothing bought and no store of the run's own.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { freshSchema, PG_URL, sql, urlOf } from '../store/postgres-helpers.js';

const HOSTS = 60;
let sb: Sandbox;
let dir: string;
let input: string;
let hosts: string[];

/** Waits for the clock to pass `t`: a moment strictly between two runs, not a timing assertion. */
async function pass(t: number): Promise<void> {
  while (Date.now() <= t + 1) await new Promise((r) => setTimeout(r, 2));
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS, release: '2025-10' });
  hosts = sb.hostList().slice(0, 40);
  dir = mkdtempSync(join(tmpdir(), 'di-shared-'));
  input = join(dir, 'leads.csv');
  writeFileSync(input, `id,website\n${hosts.map((h, i) => `${i},${h}`).join('\n')}\n`);
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(PG_URL === null)('a shared PostgreSQL store from the command line', () => {
  it('batch --store keeps answers and history in the database; cache stats, changes, quota and summarize --from-cache read them there', async () => {
    const schema = freshSchema();
    const store = urlOf(schema);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    sb.resetCounters();
    const first = await runInProcess(['batch', input, '-o', join(dir, 'first.csv'), '--quiet', '--store', store], { env });
    expect(first.code, first.stderr).toBe(EXIT.OK);
    expect(sb.charges().total).toBe(hosts.length);
    // In the database, not in the cache directory.
    expect((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.answers WHERE endpoint = 'domain'`))[0]?.n).toBe(hosts.length);
    const cacheDir = env.DOMAIN_INTEL_CACHE_DIR as string;
    expect(existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.sqlite')) : []).toEqual([]);

    // The same file again through the environment: every answer from the store, nothing bought.
    const viaEnv = { ...env, DOMAIN_INTEL_STORE: store };
    sb.resetCounters();
    const again = await runInProcess(['batch', input, '-o', join(dir, 'again.csv'), '--quiet'], { env: viaEnv });
    expect(again.code, again.stderr).toBe(EXIT.OK);
    expect(sb.charges().total).toBe(0);

    // A new release refreshed: the history is kept by the store's trigger, and `changes` reads it.
    await pass(Date.now());
    sb.setRelease('2025-11');
    const refreshed = await runInProcess(['batch', input, '-o', join(dir, 'second.csv'), '--quiet', '--refresh'], { env: viaEnv });
    expect(refreshed.code, refreshed.stderr).toBe(EXIT.OK);
    const history = (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.history`))[0]?.n ?? 0;
    expect(history).toBeGreaterThan(0);

    const stats = await runInProcess(['cache', 'stats'], { env: viaEnv });
    expect(stats.code, stats.stderr).toBe(EXIT.OK);
    const s = JSON.parse(stats.stdout) as { path: string; entries: number; history: number; byEndpoint: Record<string, number> };
    expect(s.byEndpoint.domain).toBe(hosts.length);
    expect(s.history).toBe(history);
    expect(s.path).toContain(schema);

    const changes = await runInProcess(['changes', '--all', '--format', 'ndjson'], { env: { ...viaEnv, DOMAIN_INTEL_API_KEY: undefined } });
    expect(changes.code, changes.stderr).toBe(EXIT.OK);
    const events = changes.stdout.split('\n').filter(Boolean);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(hosts).toContain((JSON.parse(e) as { host: string }).host);

    // The quota memo is the account's in the database: the sandbox's last figure.
    const quota = await runInProcess(['quota'], { env: viaEnv });
    expect(quota.code, quota.stderr).toBe(EXIT.OK);
    const [account] = (JSON.parse(quota.stdout) as { accounts: { baseUrl: string; remaining: number; inUse: boolean }[] }).accounts;
    expect(account).toMatchObject({ baseUrl: sb.baseUrl, inUse: true });
    const [row] = await sql<{ remaining: number }>(`SELECT remaining::int FROM ${schema}.quota`);
    expect(account?.remaining).toBe(row?.remaining);

    // summarize --from-cache: the hosts of a list, answered from the store alone (nothing sent).
    sb.resetCounters();
    const summary = await runInProcess(['summarize', input, '--from-cache', '--format', 'json'], { env: viaEnv });
    expect(summary.code, summary.stderr).toBe(EXIT.OK);
    const found = (parse(readFileSync(join(dir, 'second.csv'), 'utf8'), { columns: true }) as Record<string, string>[]).filter((r) => r.status === 'found');
    expect((JSON.parse(summary.stdout) as { rows: { found: number } }).rows.found).toBe(found.length);
    expect(sb.charges()).toMatchObject({ total: 0, requests: 0 });

    // The local cache, asked for by name, is still the default and holds none of it.
    const local = await runInProcess(['cache', 'stats', '--store', 'sqlite'], { env: viaEnv });
    expect(local.code, local.stderr).toBe(EXIT.OK);
    expect((JSON.parse(local.stdout) as { entries: number }).entries).toBe(0);
  });
});
