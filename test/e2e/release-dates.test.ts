// A change feed without date noise (issue 29): against a sandbox whose every monthly release restates every
// estimate as of its month (the asOf reading 'release', as the tryout's service did), `batch --changes` and
// `changes` report no change for a host whose figures stood, though its traffic_as_of and employees_as_of
// moved, and exactly the moved figures (changesBetween, the answer key) for the others: one change per
// figure, never one for its date. The traffic series gains the release's month the same way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesBetween, FIRST_RELEASE, type ReleaseChange, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const HOSTS = 400;
const NEXT = '2025-11';
type Row = Record<string, string>;

let sb: Sandbox;
let dir: string;
let env: Record<string, string | undefined>;
/** The answer key for the release, by host. */
const byHost = new Map<string, ReleaseChange[]>();
let moved: string[];
let still: string[];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS, release: FIRST_RELEASE, asOf: 'release' });
  for (const c of changesBetween(FIRST_RELEASE, NEXT, { hosts: HOSTS })) byHost.set(c.host, [...(byHost.get(c.host) ?? []), c]);
  const held = new Set(sb.hostList());
  // Hosts the release moved (held before: a host new in the release has no answer to compare), and hosts it
  // moved nothing of: the tryout's month, in which only dates moved.
  moved = [...byHost.keys()].filter((h) => held.has(h)).slice(0, 40);
  still = sb
    .hostList()
    .filter((h) => !byHost.has(h))
    .slice(0, 60);
  dir = mkdtempSync(join(tmpdir(), 'di-dates-'));
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

function list(name: string, hosts: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `company,website\n${hosts.map((h, i) => `c${i},${h}`).join('\n')}\n`);
  return file;
}

async function rows(args: string[]): Promise<Row[]> {
  const r = await runInProcess([...args, '--quiet'], { env });
  expect(r.code, r.stderr).toBe(0);
  return parse(r.stdout, { columns: true }) as Row[];
}

const events = async (file: string) => {
  const r = await runInProcess(['changes', file, '--format', 'ndjson'], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { host: string; field: string; from: unknown; to: unknown });
};

describe('a monthly release that restates every date', () => {
  it('batch --changes and changes: nothing for the hosts whose figures stood, exactly the moved figures for the rest', async () => {
    sb.setRelease(FIRST_RELEASE);
    const stillFile = list('still.csv', still);
    const allFile = list('all.csv', [...moved, ...still]);
    const first = await rows(['batch', allFile, '--changes']);
    expect(first.every((r) => r.change === 'new')).toBe(true);

    sb.setRelease(NEXT);
    const second = await rows(['batch', allFile, '--changes', '--refresh']);
    // The dates did move: the release restated them (else this test would prove nothing).
    const datesMoved = second.filter((r, i) => r.traffic_as_of !== '' && r.traffic_as_of !== first[i]?.traffic_as_of);
    expect(datesMoved.length).toBeGreaterThan(30);
    expect(second.filter((r, i) => r.employees_as_of !== '' && r.employees_as_of !== first[i]?.employees_as_of).length).toBeGreaterThan(30);
    for (const row of second) {
      const changes = byHost.get(row.website as string) ?? [];
      const fields = changes.map((c) => c.field);
      if (changes.length === 0) expect(row, row.website).toMatchObject({ change: 'same', changed_fields: '' });
      else expect(row.changed_fields?.split(';'), row.website).toEqual(fields);
      expect(row.changed_fields).not.toMatch(/as_of/);
    }
    expect(second.filter((r) => r.change === 'same')).toHaveLength(still.length);

    // The feed agrees: no event for a host whose figures stood; the answer key's events for the rest, once each.
    expect(await events(stillFile)).toEqual([]);
    const key = (c: { host: string; field: string; from: unknown; to: unknown }) => JSON.stringify([c.host, c.field, c.from, c.to]);
    const all = await events(allFile);
    expect(all.map(key).sort()).toEqual(
      moved
        .flatMap((h) => byHost.get(h) ?? [])
        .map(key)
        .sort(),
    );

    // Served from the cache the next night: the history rule says the same.
    const again = await rows(['batch', allFile, '--changes']);
    expect(again.map((r) => [r.website, r.change, r.changed_fields])).toEqual(second.map((r) => [r.website, r.change, r.changed_fields]));
  });

  it('traffic --changes: a series that gained the release month on the same figure is the same', async () => {
    sb.setRelease(FIRST_RELEASE);
    // Hosts whose traffic the release did not move (their profile's figure and band stand).
    const steady = still.slice(0, 20);
    const file = list('traffic.csv', steady);
    const first = await rows(['traffic', '--input', file, '--changes']);
    sb.setRelease(NEXT);
    const second = await rows(['traffic', '--input', file, '--changes', '--refresh']);
    const withSeries = second.filter((r) => r.status === 'found');
    expect(withSeries.length).toBeGreaterThan(5);
    for (const [i, row] of second.entries()) {
      if (row.status !== 'found') continue;
      // The series did gain the month, and the figure's date moved with it.
      expect(row.traffic_as_of).toBe(NEXT);
      expect(row.traffic_history).not.toBe(first[i]?.traffic_history);
      expect(row, row.website).toMatchObject({ change: 'same', changed_fields: '' });
    }
  });
});
