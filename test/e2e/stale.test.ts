// A stale answer beats an error row, from the command line (issue 14, deliverable 2): a network outage (the
// base URL of a sandbox that was closed) and a budget, a cache holding answers 40 days old, the summary's
// line, the exit code, the fetched_at column and field, --no-stale, and single lookups.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const DAY = 86_400_000;
let sb: Sandbox;
let deadUrl: string;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
  const dead = await startSandbox({ port: 0 });
  deadUrl = dead.baseUrl;
  await dead.close(); // its port now refuses connections: a network outage
  dir = mkdtempSync(join(tmpdir(), 'di-stale-'));
});
afterAll(async () => {
  await sb?.close();
});

/** A fresh environment whose cache holds `hosts`' answers, fetched `ageMs` ago; returns it and that time. */
async function agedCache(hosts: string[], ageMs: number, baseUrl: string, endpoint = 'domain') {
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  const at = Date.now() - ageMs;
  const cache = await openCache({ dir: env.DOMAIN_INTEL_CACHE_DIR as string, clock: () => at });
  await cache.putMany(
    hosts.map((host) => {
      const body = endpoint === 'domain' ? sb.dataset.profile(host) : sb.dataset.traffic(host);
      return { endpoint, host, status: body === null ? ('missing' as const) : ('found' as const), body };
    }),
  );
  await cache.close();
  return { env, iso: `${new Date(at).toISOString().slice(0, 19)}Z` };
}

function csvFile(name: string, hosts: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `id,website\n${hosts.map((h, i) => `${i},${h}`).join('\n')}\n`);
  return file;
}

describe('batch', () => {
  it('service unreachable: rows get their 40-day-old answers, the summary says so; the row in error makes it exit 7', async () => {
    const hosts = sb.hostList().slice(0, 2);
    const { env, iso } = await agedCache([...hosts, 'not-held-anywhere.example'], 40 * DAY, deadUrl);
    const file = csvFile('outage.csv', [...hosts, 'not-held-anywhere.example', 'never-cached.example']);
    const out = join(dir, 'outage-out.csv');
    const r = await runInProcess(['batch', file, '-o', out, '--retries', '0'], { env });
    expect(r.stderr).toMatch(/3 rows from answers older than 30 days: the service could not be reached/);
    expect(r.stderr).toMatch(
      /1 rows not looked up \(the service could not be reached\); the base URL comes from DOMAIN_INTEL_BASE_URL: [^\n]*; run the same command again/,
    );
    expect(r.code).toBe(7); // rows in error, nothing reached the service: unreachable, as without stale rows
    // A row in error leaves the run incomplete: its rows are in FILE.partial (part A), stale ones with them.
    const lines = readFileSync(`${out}.partial`, 'utf8').trimEnd().split('\n');
    const header = lines[0]?.split(',') ?? [];
    expect(header.at(-1)).toBe('fetched_at');
    // id and host hold no comma, so status is the third cell; fetched_at is the last (other cells may be quoted).
    const cells = lines.slice(1).map((l) => l.split(','));
    expect(cells.map((c) => c[2])).toEqual(['found', 'found', 'missing', 'error']);
    expect(cells.map((c) => c.at(-1))).toEqual([iso, iso, iso, '']);
  });

  it('only stale rows: -o FILE replaced (every row has an answer), exit 4 with a warning to run again; --no-stale makes them errors (exit 7)', async () => {
    const hosts = sb.hostList().slice(2, 4);
    const { env, iso } = await agedCache(hosts, 40 * DAY, deadUrl);
    const file = csvFile('only-stale.csv', hosts);
    const out = join(dir, 'only-stale-out.csv');
    writeFileSync(out, 'what an earlier run wrote\n');
    const r = await runInProcess(['batch', file, '-o', out, '--retries', '0'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/2 rows from answers older than 30 days: the service could not be reached; run the same command again to refresh them/);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n').slice(1);
    expect(rows.map((l) => [l.split(',')[2], l.split(',').at(-1)])).toEqual([
      ['found', iso],
      ['found', iso],
    ]);
    expect(existsSync(`${out}.partial`)).toBe(false);

    const off = await runInProcess(['batch', file, '--retries', '0', '--no-stale'], { env });
    expect(off.code).toBe(7);
    expect(off.stderr).not.toMatch(/older than/);
    expect(
      off.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .every((l) => /,error,/.test(l)),
    ).toBe(true);
  });

  it('--max-lookups reached: the rest keep their old answers; the sandbox charged for the one bought', async () => {
    const hosts = sb.hostList().slice(4, 8);
    const { env, iso } = await agedCache(hosts, 40 * DAY, sb.baseUrl);
    const file = csvFile('budget.csv', hosts);
    sb.resetCounters();
    const r = await runInProcess(['batch', file, '--max-lookups', '1', '--concurrency', '1', '--max-age', '2w', '--format', 'ndjson'], { env });
    expect(sb.charges().total).toBe(1);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/3 rows from answers older than 2 weeks: --max-lookups 1 reached/);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; fetched_at: string });
    expect(rows.map((x) => x.status)).toEqual(['found', 'found', 'found', 'found']);
    expect(rows.filter((x) => x.fetched_at === iso)).toHaveLength(3);
    expect(rows.filter((x) => x.fetched_at > iso)).toHaveLength(1);
  });
});

describe('single lookups', () => {
  it('lookup HOST: the old answer, a warning naming its age, exit 4; JSON carries fetched_at', async () => {
    const host = sb.hostList()[10] as string;
    const { env, iso } = await agedCache([host], 40 * DAY, deadUrl);
    const r = await runInProcess(['lookup', host, '--format', 'json', '--retries', '0'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/the service could not be reached; showing the answer fetched 1 month ago \(older than --max-age 30d\)/);
    const body = JSON.parse(r.stdout) as { data: { domain: string }; fetched_at: string }[];
    expect(body).toMatchObject([{ status: 'found', host, data: { domain: host }, fetched_at: iso }]);

    const off = await runInProcess(['lookup', host, '--format', 'json', '--retries', '0', '--no-stale'], { env });
    expect(off.code).toBe(7);
    expect(off.stdout).toBe('');
  });

  it('traffic HOST under --refresh: a cached answer of yesterday stands in, CSV with fetched_at', async () => {
    const host = sb.hostList().find((h) => sb.dataset.traffic(h) !== null) as string;
    const { env, iso } = await agedCache([host], DAY, deadUrl, 'traffic');
    const r = await runInProcess(['traffic', host, '--refresh', '--format', 'csv', '--retries', '0'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/showing the answer fetched 1 day ago \(--refresh could not replace it\)/);
    const [header, line] = r.stdout.trimEnd().split('\n');
    expect(header?.split(',').at(-1)).toBe('fetched_at');
    expect(line?.split(',').at(-1)).toBe(iso);
  });

  it('a fresh answer from the service: exit 0, fetched_at now', async () => {
    const host = sb.hostList()[11] as string;
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const before = `${new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().slice(0, 19)}Z`;
    const r = await runInProcess(['lookup', host, '--format', 'json'], { env });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { fetched_at: string }[])[0]!.fetched_at >= before).toBe(true);
  });
});
