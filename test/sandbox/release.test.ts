// The sandbox moves with time (issue 17): a release knob that changes a deterministic part of the dataset from
// month to month, the first release being the dataset as it always was, and changesBetween, the answer key
// the change feed's tests check against. Small datasets keep it fast; the fingerprint is of the default one.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { changesBetween, createDataset, FIRST_RELEASE, type ReleaseChange, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, fakeIo, runInProcess } from '../helpers/cli.js';
import { batch, call } from './helpers.js';

type Data = ReturnType<typeof createDataset>;

/** Everything a dataset serves, hashed: profiles, traffic, employees (held hosts and a subdomain of each), catalog. */
function fingerprint(ds: Data): string {
  const hash = createHash('sha256');
  for (const host of ds.hosts()) hash.update(JSON.stringify([host, ds.profile(host), ds.traffic(host), ds.employees(host), ds.employees(`x.${host}`)]));
  hash.update(JSON.stringify(ds.catalog()));
  return hash.digest('hex');
}

const HOSTS = 1500;
const first = createDataset(1, HOSTS);
const next = createDataset(1, HOSTS, '2025-11');
const later = createDataset(1, HOSTS, '2026-04');
const byField = (changes: ReleaseChange[], field: string) => changes.filter((c) => c.field === field);

describe('data releases', () => {
  it('the first release is the default and is the dataset as it was before releases (fingerprint taken on main at 88e0fcb)', () => {
    expect(FIRST_RELEASE).toBe('2025-10');
    const standard = createDataset(1, 5000);
    expect(standard.release).toBe(FIRST_RELEASE);
    expect(fingerprint(standard)).toBe('ac04d797dae3eefe462abc2bf395e1cd25b5bdb480aa767dc49b01450a457906');
    expect(fingerprint(createDataset(1, 5000, FIRST_RELEASE))).toBe(fingerprint(standard));
    expect(changesBetween(FIRST_RELEASE, FIRST_RELEASE, { hosts: 300 })).toEqual([]);
  });

  it('gives the same data for the same release, whatever order hosts are asked in', () => {
    const again = createDataset(1, HOSTS, '2026-04');
    const hosts = later.hosts();
    expect(again.hosts()).toEqual(hosts);
    expect(again.release).toBe('2026-04');
    for (const host of [...hosts].reverse()) {
      expect(again.profile(host)).toEqual(later.profile(host));
      expect(again.traffic(host)).toEqual(later.traffic(host));
    }
    expect(fingerprint(again)).toBe(fingerprint(later));
    expect(fingerprint(later)).not.toBe(fingerprint(first));
    expect(fingerprint(createDataset(2, HOSTS, '2026-04'))).not.toBe(fingerprint(later));
  });

  it('moves some hosts each month in every way a change feed reports', () => {
    const changes = changesBetween(FIRST_RELEASE, '2026-04', { hosts: HOSTS });
    const techs = byField(changes, 'technologies').map((c) => ({ from: c.from as string[], to: c.to as string[] }));
    expect(techs.some(({ from, to }) => to.some((t) => !from.includes(t)))).toBe(true); // adopted
    expect(techs.some(({ from, to }) => from.some((t) => !to.includes(t)))).toBe(true); // dropped
    // Unknown lists stay unknown: a list is never invented or lost.
    for (const { from, to } of techs) expect(Array.isArray(from) && Array.isArray(to)).toBe(true);
    expect(byField(changes, 'traffic_band').length).toBeGreaterThan(10);
    const redirects = byField(changes, 'redirect_to').filter((c) => c.from === null);
    expect(redirects.length).toBeGreaterThan(0);
    for (const c of redirects) {
      expect(later.profile(c.host)?.http_status).toBe(301);
      expect(c.to).toMatch(/^https:\/\/[a-z0-9.-]+\/$/);
      expect(c.to).not.toBe(`https://${first.apexOf(c.host)}/`);
    }
    expect(byField(changes, 'employees_high').length).toBeGreaterThan(0);
    const status = byField(changes, 'status');
    const gone = status.filter((c) => c.to === 'missing');
    const appeared = status.filter((c) => c.to === 'found');
    expect(gone.length).toBeGreaterThan(0);
    expect(appeared.length).toBeGreaterThan(0);
    for (const c of gone) expect([first.isHeld(c.host), later.isHeld(c.host), later.profile(c.host), later.traffic(c.host)]).toEqual([true, false, null, null]);
    for (const c of appeared) expect([first.isHeld(c.host), later.isHeld(c.host), first.profile(c.host)]).toEqual([false, true, null]);
    // A host gone for a month comes back as it left.
    const months = ['2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03', '2026-04'].map((r) => createDataset(1, HOSTS, r));
    let back = 0;
    for (let m = 1; m + 1 < months.length; m++) {
      const [was, gap, now] = [months[m - 1], months[m], months[m + 1]] as [Data, Data, Data];
      for (const host of was.hosts().filter((h) => !gap.isHeld(h) && now.isHeld(h))) {
        back++;
        // Its organisation's headcount may have moved meanwhile; the host itself did not.
        expect({ ...now.profile(host), employees: null }, host).toEqual({ ...was.profile(host), employees: null });
      }
    }
    expect(back).toBeGreaterThan(0);
    // Some, not most: a release is the previous one plus a few changes.
    const month = new Set(changesBetween(FIRST_RELEASE, '2025-11', { hosts: HOSTS }).map((c) => c.host));
    expect(month.size).toBeGreaterThan(HOSTS * 0.02);
    expect(month.size).toBeLessThan(HOSTS * 0.15);
  });

  it('lists every difference between two releases once, and nothing else', () => {
    const changes = changesBetween(FIRST_RELEASE, '2025-11', { hosts: HOSTS });
    const keys = changes.map((c) => `${c.host} ${c.field}`);
    expect(new Set(keys).size).toBe(keys.length);
    const listed = new Set(changes.map((c) => c.host));
    for (const c of changes) expect(c.from).not.toEqual(c.to);
    for (const host of new Set([...first.hosts(), ...next.hosts()])) {
      const a = first.profile(host);
      const b = next.profile(host);
      if (!listed.has(host)) {
        expect(b, host).toEqual(a);
        continue;
      }
      if (a === null || b === null) {
        expect(changes.filter((c) => c.host === host)).toEqual([{ host, field: 'status', from: a ? 'found' : 'missing', to: b ? 'found' : 'missing' }]);
        continue;
      }
      // Applying the listed changes to the old profile's columns gives the new one's.
      const row = (p: NonNullable<typeof a>) => ({
        technologies: p.technologies,
        platform: p.platform,
        http_status: p.http_status,
        redirect_to: p.redirect_to,
        traffic_visits: p.traffic?.estimated_monthly_visits ?? null,
        traffic_band: p.traffic?.band ?? null,
        employees_low: p.employees?.low ?? null,
        employees_high: p.employees?.high ?? null,
        employees_point: p.employees?.point ?? null,
      });
      const moved: Record<string, unknown> = row(a);
      const fields = changes.filter((x) => x.host === host).map((c) => c.field);
      for (const c of changes.filter((x) => x.host === host)) moved[c.field] = c.to;
      expect(moved, host).toEqual(row(b));
      // Dates are never listed (issue 29): one moves only with its figure, which is listed.
      expect(fields.filter((f) => f.endsWith('_as_of'))).toEqual([]);
      if (a.traffic?.as_of !== b.traffic?.as_of) expect(fields, host).toContain('traffic_visits');
      if (a.employees?.as_of !== b.employees?.as_of)
        expect(
          fields.some((f) => /^employees_(low|high|point)$/.test(f)),
          host,
        ).toBe(true);
      // Fields no release moves never change.
      expect({ ...b, technologies: null, platform: null, http_status: null, redirect_to: null, traffic: null, employees: null }).toEqual({
        ...a,
        technologies: null,
        platform: null,
        http_status: null,
        redirect_to: null,
        traffic: null,
        employees: null,
      });
    }
  });

  it('builds on the month before: two months of changes are the months chained', () => {
    const two = createDataset(1, HOSTS, '2025-12');
    const chained = new Map<string, unknown>();
    for (const c of [...changesBetween(FIRST_RELEASE, '2025-11', { hosts: HOSTS }), ...changesBetween('2025-11', '2025-12', { hosts: HOSTS })]) {
      const key = `${c.host} ${c.field}`;
      if (!chained.has(key)) chained.set(key, c.from);
      chained.set(`${key} to`, c.to);
    }
    for (const c of changesBetween(FIRST_RELEASE, '2025-12', { hosts: HOSTS })) {
      expect(chained.get(`${c.host} ${c.field}`), `${c.host} ${c.field}`).toEqual(c.from);
      expect(chained.get(`${c.host} ${c.field} to`)).toEqual(c.to);
    }
    expect(two.size).toBe(two.hosts().length);
  });

  it('serves traffic series and a catalog that agree with the release', () => {
    for (const host of later.hosts()) {
      const series = later.traffic(host);
      const profile = later.profile(host);
      if (series === null) {
        expect(profile?.traffic).toBeNull();
        continue;
      }
      expect(profile?.traffic).toEqual({ estimated_monthly_visits: series.estimated_monthly_visits, band: series.band, as_of: series.as_of });
      expect(series.history.length).toBeLessThanOrEqual(24);
      expect(series.history.at(-1)).toEqual({ month: series.as_of, visits: series.estimated_monthly_visits });
      // No gaps: one figure per month, in order.
      const months = series.history.map((m) => m.month);
      for (let i = 1; i < months.length; i++) expect(Date.parse(`${months[i]}-01`) - Date.parse(`${months[i - 1]}-01`)).toBeLessThanOrEqual(31 * 86_400_000);
      expect(series.as_of <= '2026-04').toBe(true);
    }
    const counted = new Map<string, number>();
    for (const host of later.hosts()) for (const tech of later.profile(host)?.technologies ?? []) counted.set(tech, (counted.get(tech) ?? 0) + 1);
    for (const entry of later.catalog().flatMap((c) => c.technologies)) expect(entry.domains, entry.tech).toBe(counted.get(entry.tech) ?? 0);
    expect(later.technology('Netscape Enterprise Server')?.domains).toBe(0);
  });

  it.each(['2025-09', '2026-13', '2026-1', '26-01', '2035-11', ''])('refuses release %j', (release) => {
    expect(() => createDataset(1, 10, release)).toThrow(RangeError);
  });
});

describe('a sandbox switching release mid-test', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ hosts: HOSTS });
  });
  afterAll(() => sb.close());
  const admin = (path: string, body?: unknown) => call(sb, `/__sandbox/${path}`, { key: null, method: body === undefined ? 'GET' : 'POST', body });

  it('answers the new release from the next request on, for free, and says what changed', async () => {
    expect(sb.release()).toBe(FIRST_RELEASE);
    const changes = sb.changesBetween(FIRST_RELEASE, '2025-11');
    expect(changes).toEqual(changesBetween(FIRST_RELEASE, '2025-11', { hosts: HOSTS }));
    const band = changes.find((c) => c.field === 'traffic_band') as ReleaseChange;
    const gone = changes.find((c) => c.field === 'status' && c.to === 'missing') as ReleaseChange;
    const fresh = changes.find((c) => c.field === 'status' && c.to === 'found') as ReleaseChange;
    const before = await batch(sb, [band.host, gone.host, fresh.host]);
    expect(before.json).toEqual({ data: [first.profile(band.host), first.profile(gone.host)], missing: [fresh.host] });
    const charged = sb.charges().total;

    expect((await admin('release', { release: '2025-11' })).json).toEqual({ release: '2025-11' });
    expect(sb.charges().total).toBe(charged);
    expect(sb.info()).toMatchObject({ release: '2025-11', hosts: next.size });
    const after = await batch(sb, [band.host, gone.host, fresh.host]);
    expect(after.json).toEqual({ data: [next.profile(band.host), next.profile(fresh.host)], missing: [gone.host] });
    expect((after.json as { data: { traffic: { band: string } }[] }).data[0]?.traffic.band).toBe(band.to);
    expect((await call(sb, `traffic/${band.host}`)).json).toEqual({ data: next.traffic(band.host) });
    expect((await call(sb, `domain/${gone.host}`)).status).toBe(404);
    expect((await admin('hosts')).json).toEqual(next.hosts());
    expect((await admin('changes?from=2025-10')).json).toEqual(changes);
    expect((await admin('release')).json).toEqual({ release: '2025-11' });
  });

  it('differs, to a batch run refreshed after the switch, exactly where changesBetween says, column by column', async () => {
    sb.setRelease(FIRST_RELEASE);
    const changes = sb.changesBetween(FIRST_RELEASE, '2025-11');
    const moved = [...new Set(changes.map((c) => c.host))].slice(0, 40);
    const still = first
      .hosts()
      .filter((h) => !changes.some((c) => c.host === h))
      .slice(0, 20);
    const dir = mkdtempSync(join(tmpdir(), 'di-release-'));
    const input = join(dir, 'crm.csv');
    writeFileSync(input, `id,website\n${[...moved, ...still].map((h, i) => `${i},${h}`).join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const run = async (out: string, ...flags: string[]) => {
      const r = await runInProcess(['batch', input, '-o', join(dir, out), '--format', 'csv', ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      return parse(readFileSync(join(dir, out), 'utf8'), { columns: true }) as Record<string, string>[];
    };
    const before = await run('before.csv');
    sb.setRelease('2025-11');
    sb.resetCounters();
    const after = await run('after.csv', '--refresh');
    // Every host asked once more, and only once: the refresh bought the new release's answers.
    expect(sb.charges().total).toBe(moved.length + still.length);
    const seen = new Set<string>();
    before.forEach((row, i) => {
      const now = after[i] as Record<string, string>;
      const host = row.website as string;
      // A row whose status moved has every column of ours moved with it: the status change alone is listed.
      const differ = Object.keys(row).filter((k) => k !== 'fetched_at' && row[k] !== now[k]);
      // A figure's date is no change of its own (issue 29): under the default reading it moves with its figure.
      const fields = row.status !== now.status ? ['status'] : differ.filter((k) => !k.endsWith('_as_of'));
      if (differ.includes('traffic_as_of') && row.status === now.status) expect(fields, host).toContain('traffic_visits');
      for (const field of fields) seen.add(`${host} ${field}`);
    });
    const expected = changes.filter((c) => moved.includes(c.host)).map((c) => `${c.host} ${c.field}`);
    expect([...seen].sort()).toEqual(expected.sort());
  });

  it('refuses a bad release and keeps serving the one it had', async () => {
    const at = sb.release();
    for (const body of [{ release: '2025-09' }, { release: 202511 }, {}]) expect((await admin('release', body)).status).toBe(400);
    expect((await admin('changes?from=2025-13')).status).toBe(400);
    expect((await admin('changes')).status).toBe(400);
    expect(sb.release()).toBe(at);
    expect(() => sb.setRelease('later')).toThrow(RangeError);
    expect(sb.release()).toBe(at);
  });

  it('starts at the release asked for', async () => {
    const other = await startSandbox({ hosts: 200, release: '2026-02' });
    try {
      expect(other.info().release).toBe('2026-02');
      expect(other.hostList()).toEqual(createDataset(1, 200, '2026-02').hosts());
      expect(other.changesBetween(FIRST_RELEASE)).toEqual(changesBetween(FIRST_RELEASE, '2026-02', { hosts: 200 }));
    } finally {
      await other.close();
    }
    await expect(startSandbox({ release: '2025-9' })).rejects.toThrow(RangeError);
  });
});

describe('domain-intel sandbox --release', () => {
  it('serves the release given', async () => {
    const fake = fakeIo(['sandbox', '--port', '0', '--hosts', '20', '--release', '2026-03'], { env: cliEnv() });
    const done = main(fake.io);
    while (!/^export DOMAIN_INTEL_API_KEY=\S+$/m.test(fake.stdout())) await new Promise((resolve) => setImmediate(resolve));
    const url = /^export DOMAIN_INTEL_BASE_URL=(\S+)$/m.exec(fake.stdout())?.[1]?.replace('/api/v1', '/__sandbox/release') as string;
    expect(await (await fetch(url)).json()).toEqual({ release: '2026-03' });
    expect(fake.stderr()).toContain('release 2026-03');
    fake.signal('SIGINT');
    expect(await done).toBe(0);
  });

  it.each([['2025-9'], ['2025-09'], ['2040-01']])('refuses --release %s as a usage error', async (release) => {
    const r = await runInProcess(['sandbox', '--port', '0', '--release', release], { env: cliEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--release/);
    expect(r.stderr).toMatch(/release must be/);
  });
});
