// batch --changes from outside (issue 17): against the sandbox at one release, then the next, every host the
// sandbox moved says so with exactly the fields changesBetween lists, everything else says `same`; the first
// run says `new`; repeats of a host agree; a row served from the cache afterwards says what the refresh said;
// invalid and error rows leave the cells empty; JSON carries a `changes` object; --changes spends nothing more
// (the sandbox's charges). A small dataset keeps it fast.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../src/store/sqlite/cache.js';
import { changesBetween, FIRST_RELEASE, type ReleaseChange, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { tempDir } from '../store/helpers.js';

const HOSTS = 400;
const CHANGE_COLUMNS = ['change', 'changed_fields', 'tech_added', 'tech_removed', 'traffic_band_was', 'previous_fetched_at'];
type Row = Record<string, string>;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS, release: FIRST_RELEASE });
});
afterAll(async () => {
  await sb?.close();
});

/** The expected cells of a host's row, from the answer key's changes of that host. */
function expected(changes: ReleaseChange[]): Pick<Row, 'change' | 'changed_fields' | 'tech_added' | 'tech_removed' | 'traffic_band_was'> {
  if (changes.length === 0) return { change: 'same', changed_fields: '', tech_added: '', tech_removed: '', traffic_band_was: '' };
  const status = changes.find((c) => c.field === 'status');
  const tech = changes.find((c) => c.field === 'technologies');
  const band = changes.find((c) => c.field === 'traffic_band');
  const from = (tech?.from ?? []) as string[];
  const to = (tech?.to ?? []) as string[];
  return {
    change: status === undefined ? 'changed' : status.to === 'missing' ? 'gone' : 'back',
    changed_fields: changes.map((c) => c.field).join(';'),
    tech_added: to.filter((t) => !from.includes(t)).join(';'),
    tech_removed: from.filter((t) => !to.includes(t)).join(';'),
    traffic_band_was: band === undefined ? '' : String(band.from),
  };
}

describe('batch --changes', () => {
  it('a day later, a service counting age_days to the day it answers: the refresh is the same, nothing kept in the history', async () => {
    const dir = tempDir('di-age-');
    const input = join(dir, 'list.txt');
    const hosts = sb.hostList().slice(0, 30);
    writeFileSync(input, `${hosts.join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const run = async (...flags: string[]): Promise<Row[]> => {
      const r = await runInProcess(['batch', input, '--changes', '--format', 'csv', '--quiet', ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      return parse(r.stdout, { columns: true }) as Row[];
    };
    const before = await run();
    sb.setReadings({ ageDrift: 1 });
    try {
      const after = await run('--refresh');
      after.forEach((row, i) => {
        const was = before[i] as Row;
        // The service said something else (age_days moved on by a day), which is no change of the site.
        if (was.age_days !== '') expect(Number(row.age_days)).toBe(Number(was.age_days) + 1);
        expect(row, row.input).toMatchObject({ change: 'same', changed_fields: '' });
      });
      expect(after.some((row) => row.age_days !== '')).toBe(true);
    } finally {
      sb.setReadings({ ageDrift: 0 });
    }
    const cache = await openCache({ dir: env.DOMAIN_INTEL_CACHE_DIR as string });
    try {
      const pasts = await Promise.all(hosts.map((h) => cache.past.history('domain', h)));
      expect(hosts.filter((_, i) => (pasts[i]?.length ?? 0) > 0)).toEqual([]);
    } finally {
      await cache.close();
    }
  });

  it('reports every change the sandbox made between two releases once, with its fields, and nothing else', async () => {
    const changes = changesBetween(FIRST_RELEASE, '2025-11', { hosts: HOSTS });
    const byHost = new Map<string, ReleaseChange[]>();
    for (const c of changes) byHost.set(c.host, [...(byHost.get(c.host) ?? []), c]);
    const moved = [...byHost.keys()].slice(0, 40);
    const kinds = new Set(moved.map((h) => expected(byHost.get(h) ?? []).change));
    expect([...kinds].sort()).toEqual(['back', 'changed', 'gone']); // the input meets every kind of change
    const still = sb
      .hostList()
      .filter((h) => !byHost.has(h))
      .slice(0, 15);
    const hosts = [...moved, ...still, 'nobody-holds-this.example'];
    // Repeats in another spelling (same key), and invalid rows between them.
    const repeats = [...moved.slice(0, 6).map((h) => `https://${h.toUpperCase()}/about`), still[0] as string];
    const cells = [...hosts, 'not a host', ...repeats, ''];
    const dir = tempDir('di-changes-');
    const input = join(dir, 'crm.csv');
    writeFileSync(input, `id,website\n${cells.map((h, i) => `${i},${h}`).join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const run = async (out: string, ...flags: string[]): Promise<Row[]> => {
      const r = await runInProcess(['batch', input, '-o', join(dir, out), '--changes', '--quiet', ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      return parse(readFileSync(join(dir, out), 'utf8'), { columns: true }) as Row[];
    };
    const distinct = hosts.length;

    sb.resetCounters();
    const first = await run('first.csv');
    expect(Object.keys(first[0] as Row).slice(-7)).toEqual(['fetched_at', ...CHANGE_COLUMNS]);
    expect(sb.charges().total).toBe(distinct);
    for (const row of first) {
      if (row.status === 'invalid') expect(CHANGE_COLUMNS.map((c) => row[c]).join('')).toBe('');
      // The cache was empty: every answer is new, repeats included (they were answered by this run).
      else expect(row, row.website).toMatchObject({ change: 'new', changed_fields: '', tech_added: '', previous_fetched_at: '' });
    }

    // Answered from the cache now (as a run resumed after Ctrl-C is): still new, for that fetch was the first.
    sb.resetCounters();
    const again = await run('again.csv');
    expect(sb.charges().total).toBe(0);
    again.forEach((row, i) => {
      for (const c of CHANGE_COLUMNS) expect(row[c], `${row.website} ${c}`).toBe((first[i] as Row)[c]);
    });

    sb.setRelease('2025-11');
    sb.resetCounters();
    const second = await run('second.csv', '--refresh');
    // --changes buys nothing more: every distinct host once, as without it.
    expect(sb.charges().total).toBe(distinct);
    const byKey = new Map<string, Row>();
    second.forEach((row, i) => {
      const before = first[i] as Row;
      expect(row.website).toBe(before.website);
      if (row.status === 'invalid') {
        expect(CHANGE_COLUMNS.map((c) => row[c]).join('')).toBe('');
        return;
      }
      const host = row.host as string;
      expect(row, row.website).toMatchObject(expected(byHost.get(host) ?? []));
      // Compared with the answer held before the refresh: the first run's.
      expect(row.previous_fetched_at).toBe(before.fetched_at);
      const earlier = byKey.get(host);
      if (earlier === undefined) byKey.set(host, row);
      else for (const c of CHANGE_COLUMNS) expect(row[c], `${row.website} ${c}`).toBe(earlier[c]);
    });
    expect(byKey.size).toBe(distinct);

    // Served from the cache now: the history says what the refresh replaced, so the same changes come back.
    sb.resetCounters();
    const third = await run('third.csv');
    expect(sb.charges().total).toBe(0);
    third.forEach((row, i) => {
      const was = second[i] as Row;
      if (row.status === 'invalid') return;
      const kept = expected(byHost.get(row.host as string) ?? []);
      expect(row, row.website).toMatchObject(kept);
      // What the refresh said, previous time included: the cache keeps when each host was fetched before.
      expect(row.previous_fetched_at).toBe(was.previous_fetched_at);
    });

    // JSON: a `changes` object with the same names, lists as arrays; null for invalid rows.
    const nd = await runInProcess(['batch', input, '--changes', '--format', 'ndjson', '--quiet'], { env });
    expect(nd.code, nd.stderr).toBe(0);
    const objects = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; host: string; changes: Record<string, unknown> | null });
    const tech = objects.find((o) => (o.changes?.tech_added as string[] | undefined)?.length);
    const techChange = byHost.get(tech?.host as string)?.find((c) => c.field === 'technologies') as ReleaseChange;
    expect(techChange).toBeDefined();
    expect(Object.keys(tech?.changes ?? {})).toEqual(CHANGE_COLUMNS);
    const [from, to] = [techChange.from as string[], techChange.to as string[]];
    expect(tech?.changes).toMatchObject({
      change: 'changed',
      tech_added: to.filter((t) => !from.includes(t)),
      tech_removed: from.filter((t) => !to.includes(t)),
    });
    expect(Array.isArray(tech?.changes?.changed_fields)).toBe(true);
    expect(objects.filter((o) => o.status === 'invalid').map((o) => o.changes)).toEqual([null, null]);

    // --fields picks change columns like any of ours.
    const picked = await runInProcess(['batch', input, '--changes', '--fields', 'host,change,changed_fields', '--quiet'], { env });
    expect(picked.stdout.split('\n')[0]).toBe('id,website,host,change,changed_fields');
  });

  it('--no-stale --changes compares a refresh with the answer held, which never stands in', async () => {
    const changes = changesBetween('2025-11', '2025-12', { hosts: HOSTS });
    const moved = [...new Set(changes.map((c) => c.host))].slice(0, 20);
    const dir = tempDir('di-changes-');
    const input = join(dir, 'list.txt');
    writeFileSync(input, `${moved.join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    sb.setRelease('2025-11');
    expect((await runInProcess(['batch', input, '--quiet'], { env })).code).toBe(0);
    sb.setRelease('2025-12');
    const r = await runInProcess(['batch', input, '--refresh', '--no-stale', '--changes', '--fields', 'host,change,changed_fields', '--quiet'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Row[];
    expect(rows.map((row) => [row.host, row.change === 'same' ? '' : row.changed_fields])).toEqual(
      moved.map((h) => [
        h,
        changes
          .filter((c) => c.host === h)
          .map((c) => c.field)
          .join(';'),
      ]),
    );
    expect(rows.every((row) => row.change !== 'same' && row.change !== 'new')).toBe(true);
  });

  it('kept in place night after night, writes one set of columns, the change columns with them', async () => {
    sb.setRelease(FIRST_RELEASE);
    const moved = changesBetween(FIRST_RELEASE, '2025-11', { hosts: HOSTS }).find((c) => c.field === 'technologies') as ReleaseChange;
    const dir = tempDir('di-changes-');
    const crm = join(dir, 'crm.csv');
    writeFileSync(crm, `name,website\nA,${moved.host}\nB,${sb.hostList()[1]}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const night = async (...flags: string[]) => {
      const r = await runInProcess(['batch', crm, '--changes', '-o', crm, '--quiet', ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      return readFileSync(crm, 'utf8');
    };
    await night();
    sb.setRelease('2025-11');
    const text = await night('--refresh');
    const header = text.split('\n')[0]?.split(',') ?? [];
    expect(header.slice(0, 2)).toEqual(['name', 'website']);
    expect(header.slice(-7)).toEqual(['fetched_at', ...CHANGE_COLUMNS]);
    expect(header.filter((h) => h === 'change')).toHaveLength(1);
    const rows = parse(text, { columns: true }) as Row[];
    expect(rows.map((r) => [r.name, r.change])).toEqual([
      ['A', 'changed'],
      ['B', 'same'],
    ]);
    expect(rows[0]?.changed_fields?.split(';')).toContain('technologies');
  });

  it('leaves error rows empty, and refuses --changes where it writes nothing', async () => {
    const dir = tempDir('di-changes-');
    const input = join(dir, 'list.txt');
    writeFileSync(input, `${sb.hostList().slice(0, 3).join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    // A budget of nothing on an empty cache: every row is an error, with no change to tell.
    const r = await runInProcess(['batch', input, '--changes', '--max-lookups', '0', '--format', 'ndjson', '--quiet'], { env });
    expect(r.code).not.toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; changes: unknown });
    expect(rows.map((row) => [row.status, row.changes])).toEqual([
      ['error', null],
      ['error', null],
      ['error', null],
    ]);
    const noFlag = await runInProcess(['batch', input, '--fields', 'host,change'], { env });
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toMatch(/--fields change needs --changes/);
    const single = await runInProcess(['traffic', sb.hostList()[0] as string, '--changes'], { env });
    expect(single.code).toBe(2);
    expect(single.stderr).toMatch(/--changes needs --input/);
    const noCache = await runInProcess(['batch', input, '--changes', '--no-cache'], { env });
    expect(noCache.code).toBe(2);
    expect(noCache.stderr).toBe('error: --changes compares each answer with the one the cache held, and --no-cache holds none: drop one of them\n');
  });
});
