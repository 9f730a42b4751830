// The shared PostgreSQL store from the command line (issue 25): `--store`, DOMAIN_INTEL_STORE and `config set
// store` choose it, and every command that keeps or reads answers works on it: a batch against the sandbox,
// then `cache stats`, `changes`, `quota` and `summarize --from-cache` read what it wrote, in the database (not
// the cache directory, which stays empty). The password is masked wherever the URL is shown, and a store that
// cannot be reached is one line and its exit code, with nothing bought and no store of the run's own.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { cliEnv, runInProcess, startInProcess } from '../helpers/cli.js';
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
    const firstRequests = sb.requests().length;
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
    const requests = firstRequests + sb.requests().length; // the run between bought nothing, and sent nothing
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

    // store status: the account's current window holds every request of the runs above (all within a minute),
    // whichever process made them; no run is alive now.
    const status = await runInProcess(['store', 'status'], { env: viaEnv });
    expect(status.code, status.stderr).toBe(EXIT.OK);
    const st = JSON.parse(status.stdout) as { backend: string; answers: number; machines: unknown[]; window: { accepted: number; windowMs: number } | null };
    expect(st).toMatchObject({ backend: 'postgresql', answers: s.entries, machines: [], window: { accepted: requests, windowMs: 60_000 } });
    // With a password in the URL (the server trusts this test, so it is never asked for): shown masked.
    const secret = 'Wh1spered-pw';
    const withPassword = store.replace('://postgres@', `://postgres:${secret}@`);
    expect(withPassword).not.toBe(store);
    const masked = await runInProcess(['store', 'status', '--store', withPassword], { env });
    expect(masked.code, masked.stderr).toBe(EXIT.OK);
    expect((JSON.parse(masked.stdout) as { where: string }).where).toMatch(/^postgres:\/\/postgres:\*\*\*@/);
    const maskedTable = await runInProcess(['store', 'status', '--store', withPassword], { env, stdoutTTY: true, columns: 200 });
    expect(maskedTable.stdout).toMatch(/store:\s+postgres:\/\/postgres:\*\*\*@/);
    for (const r of [masked, maskedTable]) expect(r.stdout + r.stderr).not.toContain(secret);
    const table = await runInProcess(['store', 'status'], { env: viaEnv, stdoutTTY: true, columns: 200 });
    expect(table.stdout).toMatch(new RegExp(`window:\\s+${requests} requests in the last 1m`));
    expect(table.stdout).toMatch(/runs now:\s+none/);

    // cache prune and clear work on the shared store: its rows go, history with them.
    const prune = await runInProcess(['cache', 'prune', '--max-age', '1d'], { env: viaEnv });
    expect(prune.code, prune.stderr).toBe(EXIT.OK);
    expect(prune.stderr).toMatch(/removed 0 answers older than 1d/);
    const clear = await runInProcess(['cache', 'clear', '--yes'], { env: viaEnv });
    expect(clear.code, clear.stderr).toBe(EXIT.OK);
    expect(clear.stderr).toMatch(new RegExp(`removed ${s.entries} cached answers`));
    expect(await sql(`SELECT 1 FROM ${schema}.answers UNION ALL SELECT 1 FROM ${schema}.history`)).toEqual([]);

    // The local cache, asked for by name, is still the default and holds none of it.
    const local = await runInProcess(['cache', 'stats', '--store', 'sqlite'], { env: viaEnv });
    expect(local.code, local.stderr).toBe(EXIT.OK);
    expect((JSON.parse(local.stdout) as { entries: number }).entries).toBe(0);
  });

  it('store status, migrate and import: a local cache and its history copied in once, a second import adding nothing', async () => {
    const schema = freshSchema();
    const store = urlOf(schema);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    sb.setRelease('2025-10');
    // A local cache with history: a batch, then a refresh at the next release.
    expect((await runInProcess(['batch', input, '-o', join(dir, 'local1.csv'), '--quiet'], { env })).code).toBe(EXIT.OK);
    await pass(Date.now());
    sb.setRelease('2025-11');
    expect((await runInProcess(['batch', input, '-o', join(dir, 'local2.csv'), '--quiet', '--refresh'], { env })).code).toBe(EXIT.OK);
    const local = JSON.parse((await runInProcess(['cache', 'stats'], { env })).stdout) as { entries: number; history: number };
    expect(local.history).toBeGreaterThan(0);

    // Not created yet: status says version 0 and creates nothing; migrate creates it.
    const before = await runInProcess(['store', 'status', '--store', store], { env });
    expect(before.code, before.stderr).toBe(EXIT.OK);
    expect(JSON.parse(before.stdout)).toMatchObject({ backend: 'postgresql', schema, version: 0, answers: 0 });
    expect(await sql(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [schema])).toEqual([]);
    const migrated = await runInProcess(['store', 'migrate', '--store', store], { env });
    expect(migrated.code, migrated.stderr).toBe(EXIT.OK);
    expect(migrated.stderr).toMatch(new RegExp(`brought from version 0 to ${SCHEMA_VERSION}\\b`));
    expect((await runInProcess(['store', 'migrate', '--store', store], { env })).stderr).toMatch(new RegExp(`is up to date \\(version ${SCHEMA_VERSION}\\)`));

    const first = await runInProcess(['store', 'import', '--store', store], { env });
    expect(first.code, first.stderr).toBe(EXIT.OK);
    expect(JSON.parse(first.stdout)).toMatchObject({ answers: local.entries, history: local.history });
    const held = async () =>
      (
        await sql<{ answers: number; history: number }>(
          `SELECT (SELECT count(*)::int FROM ${schema}.answers) AS answers, (SELECT count(*)::int FROM ${schema}.history) AS history`,
        )
      )[0];
    expect(await held()).toEqual({ answers: local.entries, history: local.history });
    // Bodies as kept, key order and all: the shared store answers as the local cache did.
    const [one] = await sql<{ body: string }>(`SELECT body FROM ${schema}.answers WHERE endpoint = 'domain' ORDER BY host LIMIT 1`);
    expect(one?.body.startsWith('{"')).toBe(true);

    const second = await runInProcess(['store', 'import', '--store', store], { env });
    expect(second.code, second.stderr).toBe(EXIT.OK);
    expect(JSON.parse(second.stdout)).toMatchObject({ answers: 0, history: 0 });
    expect(second.stderr).toMatch(/held them all already/);
    expect(await held()).toEqual({ answers: local.entries, history: local.history });

    // The imported answers serve a run on the shared store: nothing bought.
    sb.resetCounters();
    const run = await runInProcess(['batch', input, '-o', join(dir, 'shared.csv'), '--quiet', '--store', store], { env });
    expect(run.code, run.stderr).toBe(EXIT.OK);
    expect(sb.charges().total).toBe(0);
    // `changes` on the shared store sees the imported history as the local one did.
    const changesOf = async (e: Record<string, string | undefined>) =>
      (await runInProcess(['changes', '--all', '--format', 'ndjson'], { env: e })).stdout.split('\n').filter(Boolean).sort();
    expect(await changesOf({ ...env, DOMAIN_INTEL_STORE: store })).toEqual(await changesOf(env));

    const status = await runInProcess(['store', 'status', '--store', store], { env });
    expect(status.code, status.stderr).toBe(EXIT.OK);
    const s = JSON.parse(status.stdout) as { version: number; knownVersion: number; answers: number; history: number; machines: unknown[]; where: string };
    expect(s).toMatchObject({ version: SCHEMA_VERSION, knownVersion: SCHEMA_VERSION, answers: local.entries, history: local.history, machines: [] });
  });

  it('store status shows a run alive while it runs, by machine, and none once it ended', async () => {
    const slow = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS, latencyMs: 400 });
    try {
      const store = urlOf(freshSchema());
      const env = cliEnv({ DOMAIN_INTEL_BASE_URL: slow.baseUrl, DOMAIN_INTEL_API_KEY: slow.key, DOMAIN_INTEL_STORE: store });
      const run = startInProcess(['batch', input, '-o', join(dir, 'slow.csv'), '--quiet', '--concurrency', '1'], { env });
      type Status = { machines: { machine: string; runs: number; buying: number }[] };
      let seen: Status['machines'] = [];
      // Polled, not timed: the run is seen once it takes its first slot, and buying once it asks the store
      // before its first batch.
      const buying = () => seen.some((m) => m.buying > 0);
      for (let i = 0; i < 200 && !buying(); i++) {
        const r = await runInProcess(['store', 'status'], { env });
        if (r.code === EXIT.OK) seen = (JSON.parse(r.stdout) as Status).machines;
        if (!buying()) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Worded on a terminal: a run, and whether it is buying (the run has thousands of ms of lookups left).
      const table = buying() ? await runInProcess(['store', 'status'], { env, stdoutTTY: true, columns: 200 }) : null;
      // The run ends before anything is judged: a failure must not leave it running against a dropped schema.
      expect((await run.done).code).toBe(EXIT.OK);
      expect(table?.stdout).toMatch(/runs now:\s+\S+: 1 run, 1 of them between their first and last batch, seen /);
      expect(seen).toEqual([{ machine: hostname(), runs: 1, buying: 1, lastSeen: expect.any(Number) }]);
      const after = await runInProcess(['store', 'status'], { env });
      expect((JSON.parse(after.stdout) as Status).machines).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it('config set store keeps the URL and masks its password wherever it is shown', async () => {
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const secret = 'Sup3rSecretPw';
    const url = `postgres://intel:${secret}@db.internal:5432/intel?schema=team`;
    const set = await runInProcess(['config', 'set', 'store', url], { env });
    expect(set.code, set.stderr).toBe(EXIT.OK);
    expect(set.stderr).toContain('store set to postgres://intel:***@db.internal:5432/intel?schema=team');
    const show = await runInProcess(['config', 'show'], { env: { ...env, DOMAIN_INTEL_API_KEY: undefined } });
    expect(show.code, show.stderr).toBe(EXIT.OK);
    expect(JSON.parse(show.stdout)).toMatchObject({ store: { url: 'postgres://intel:***@db.internal:5432/intel?schema=team' }, sources: { store: 'stored' } });
    const table = await runInProcess(['config', 'show'], { env: { ...env, DOMAIN_INTEL_API_KEY: undefined }, stdoutTTY: true, columns: 200 });
    expect(table.stdout).toMatch(/store:\s+postgres:\/\/intel:\*\*\*@db\.internal:5432\/intel\?schema=team {2}\(stored\)/);
    for (const r of [set, show, table]) expect(r.stdout + r.stderr).not.toContain(secret);
    // The environment wins over the stored setting, and the flag over both; sqlite names the local cache.
    const viaEnv = await runInProcess(['config', 'show'], { env: { ...env, DOMAIN_INTEL_STORE: 'postgres://other@h/x' } });
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ store: { url: 'postgres://other@h/x' }, sources: { store: 'env' } });
    const local = await runInProcess(['config', 'show', '--store', 'sqlite'], { env: { ...env, DOMAIN_INTEL_STORE: 'postgres://other@h/x' } });
    expect(JSON.parse(local.stdout)).toMatchObject({ store: { url: null }, sources: { store: 'flag' } });
    const bad = await runInProcess(['config', 'set', 'store', `intel:${secret}@db.internal/intel`], { env });
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.stderr).toMatch(/^error: not a store URL: it reads postgres:\/\//);
    expect(bad.stderr).not.toContain(secret);
    // Unset: the local cache again.
    expect((await runInProcess(['config', 'unset', 'store'], { env })).code).toBe(EXIT.OK);
    expect(JSON.parse((await runInProcess(['config', 'show'], { env })).stdout)).toMatchObject({ store: { url: null }, sources: { store: 'default' } });
  });

  it("a store that cannot be reached: one line and exit 13, nothing bought, no store of the run's own", async () => {
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const secret = 'An0therSecret';
    // Nothing listens on port 1: the connection is refused at once.
    const url = `postgres://intel:${secret}@127.0.0.1:1/intel`;
    sb.resetCounters();
    for (const args of [['batch', input, '-o', join(dir, 'never.csv')], ['lookup', hosts[0] as string], ['cache', 'stats'], ['store', 'status'], ['quota']]) {
      const r = await runInProcess([...args, '--store', url], { env });
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(EXIT.STORE);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: cannot use the store postgres:\/\/intel:\*\*\*@127\.0\.0\.1:1\/intel: .*ECONNREFUSED/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    expect(sb.charges()).toMatchObject({ total: 0, requests: 0 });
    expect(existsSync(join(dir, 'never.csv'))).toBe(false);
    // No fallback: nothing was kept in the cache directory instead.
    const cacheDir = env.DOMAIN_INTEL_CACHE_DIR as string;
    expect(existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.sqlite')) : []).toEqual([]);
  });
});
