import { getDomain } from 'tldts';
import { describe, expect, it } from 'vitest';
import { isPlausibleHostname } from '../../src/api/hostname.js';
import { PROFILE_FIELDS } from '../../src/api/types.js';
import { createDataset } from '../../src/sandbox/index.js';

const ds = createDataset(1, 5000);
const hosts = ds.hosts();

describe('dataset', () => {
  it('holds the requested number of distinct, lower-case, plausible hosts', () => {
    expect(hosts).toHaveLength(5000);
    expect(ds.size).toBe(5000);
    expect(new Set(hosts).size).toBe(5000);
    for (const host of hosts) {
      expect(isPlausibleHostname(host)).toBe(true);
      expect(ds.isHeld(host)).toBe(true);
    }
  });

  it('is the same for the same seed and different for another', () => {
    const again = createDataset(1, 5000);
    expect(again.hosts()).toEqual(hosts);
    for (const host of hosts.slice(0, 200)) {
      expect(again.profile(host)).toEqual(ds.profile(host));
      expect(again.traffic(host)).toEqual(ds.traffic(host));
      expect(again.employees(host)).toEqual(ds.employees(host));
    }
    expect(again.catalog()).toEqual(ds.catalog());
    expect(createDataset('1', 50).hosts()).toEqual(createDataset(1, 50).hosts());
    expect(createDataset(2, 50).hosts()).not.toEqual(createDataset(1, 50).hosts());
  });

  it('has subdomains under shared apexes and multi-label public suffixes', () => {
    const apexes = new Map<string, string[]>();
    for (const host of hosts) {
      const apex = ds.apexOf(host);
      expect(apex).toBe(getDomain(host));
      apexes.set(apex as string, [...(apexes.get(apex as string) ?? []), host]);
    }
    expect([...apexes.values()].filter((list) => list.length >= 3).length).toBeGreaterThan(100);
    for (const prefix of ['www.', 'shop.', 'blog.', 'app.']) expect(hosts.some((h) => h.startsWith(prefix))).toBe(true);
    for (const suffix of ['.co.uk', '.com.au']) expect(hosts.filter((h) => h.endsWith(suffix)).length).toBeGreaterThan(50);
    // Some organisations are held only as www.<apex>.
    expect(hosts.some((h) => h.startsWith('www.') && !ds.isHeld(h.slice(4)))).toBe(true);
  });

  it('gives every profile every field, with nullable fields sometimes null', () => {
    const nulls = new Map<string, number>();
    for (const host of hosts) {
      const profile = ds.profile(host);
      expect(profile).not.toBeNull();
      expect(Object.keys(profile as object).sort()).toEqual([...PROFILE_FIELDS].sort());
      expect(profile?.domain).toBe(host);
      for (const [field, value] of Object.entries(profile as object)) if (value === null) nulls.set(field, (nulls.get(field) ?? 0) + 1);
    }
    for (const field of PROFILE_FIELDS.filter((f) => f !== 'domain')) {
      expect(nulls.get(field) ?? 0, field).toBeGreaterThan(100);
    }
    expect(ds.profile('not-held.example')).toBeNull();
  });

  it('lists technologies alphabetically, from the catalog', () => {
    const names = new Set(ds.catalog().flatMap((c) => c.technologies.map((t) => t.tech)));
    for (const host of hosts.slice(0, 1000)) {
      const techs = ds.profile(host)?.technologies;
      if (!techs) continue;
      expect(techs).toEqual([...techs].sort(new Intl.Collator('en', { sensitivity: 'base' }).compare));
      for (const tech of techs) expect(names.has(tech)).toBe(true);
    }
  });

  it('embeds the latest month of the traffic series', () => {
    let withTraffic = 0;
    for (const host of hosts.slice(0, 500)) {
      const profile = ds.profile(host);
      const series = ds.traffic(host);
      if (series === null) {
        expect(profile?.traffic).toBeNull();
        continue;
      }
      withTraffic++;
      expect(series.host).toBe(host);
      expect(series.history.length).toBeGreaterThanOrEqual(6);
      expect(series.history.length).toBeLessThanOrEqual(24);
      const last = series.history.at(-1);
      expect(last?.month).toBe(series.as_of);
      expect(last?.visits).toBe(series.estimated_monthly_visits);
      expect(series.as_of).toMatch(/^\d{4}-\d{2}$/);
      expect(profile?.traffic).toEqual({ estimated_monthly_visits: series.estimated_monthly_visits, band: series.band, as_of: series.as_of });
    }
    expect(withTraffic).toBeGreaterThan(300);
  });

  it('gives every host under one apex the same employee figure, held or not', () => {
    const apex = hosts.map((h) => ds.apexOf(h)).find((a) => a !== null && ds.employees(a) !== null && hosts.filter((h) => h.endsWith(`.${a}`)).length >= 2);
    expect(apex).toBeDefined();
    const figure = ds.employees(apex as string);
    const under = hosts.filter((h) => ds.apexOf(h) === apex);
    for (const host of [...under, `random.sub.${apex}`]) {
      const result = ds.employees(host);
      expect(result?.host).toBe(host);
      expect(result?.apex).toBe(apex);
      expect(result?.estimated_employees).toEqual(figure?.estimated_employees);
      expect(result?.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    for (const host of under) {
      const embedded = ds.profile(host)?.employees;
      expect(embedded).toEqual({ apex, ...figure?.estimated_employees, as_of: figure?.as_of });
    }
    expect(ds.employees('nobody-holds-this.example')).toBeNull();
    const profiles = hosts.map((h) => ds.profile(h)?.employees).filter((e) => e != null);
    expect(profiles.some((e) => e.high === null)).toBe(true);
    expect(profiles.some((e) => e.point !== null)).toBe(true);
    expect(profiles.filter((e) => e.point === null).length).toBeGreaterThan(profiles.length / 2);
  });

  it('has a catalog with awkward names, a zero count and counts that match the profiles', () => {
    const catalog = ds.catalog();
    expect(catalog.length).toBeGreaterThanOrEqual(10);
    const all = catalog.flatMap((c) => c.technologies);
    expect(all.length).toBeGreaterThanOrEqual(60);
    for (const name of ['Node.js', 'Google Tag Manager', 'C++ Runtime', 'TCP/IP Stack', 'AT&T CDN', 'ASP.NET']) {
      expect(
        all.some((t) => t.tech === name),
        name,
      ).toBe(true);
    }
    expect(all.some((t) => t.domains === 0)).toBe(true);
    const counted = new Map<string, number>();
    for (const host of hosts) for (const tech of ds.profile(host)?.technologies ?? []) counted.set(tech, (counted.get(tech) ?? 0) + 1);
    for (const entry of all) {
      expect(entry.domains, entry.tech).toBe(counted.get(entry.tech) ?? 0);
      expect(ds.technology(entry.tech)).toEqual(entry);
    }
    expect(ds.technology('node.js')).toBeNull();
  });

  it('builds small and empty datasets', () => {
    expect(createDataset(7, 1).hosts()).toHaveLength(1);
    expect(createDataset(7, 0).hosts()).toEqual([]);
    expect(() => createDataset(7, -1)).toThrow(RangeError);
  });
});
