// What changed between two releases of the dataset, host by host and field by field: the answer key a change
// feed's tests check against ("every change reported once, nothing unchanged reported"). Computed by comparing
// the profiles the two releases serve, not by replaying events, so it is what a client can see, and an event
// that changed nothing (a host that left and came back in between) is not listed.
import type { DomainProfile } from '../api/types.js';
import { createDataset } from './dataset.js';
import type { ChangeValue, Dataset, ReleaseChange } from './types.js';

/**
 * A profile as the CLI's columns (domain/fields.ts profileValues, without the row's own fields), less the
 * figures' dates (traffic_as_of, employees_as_of): a date is when its figure was measured, not a change of its
 * own (issue 29). A figure that moved is listed once, its date moving with it; a date alone moving (the asOf
 * reading 'release': every release restates every figure) changes nothing. So the key is the same whatever
 * that reading, which is why it compares the dataset's profiles rather than answers as served.
 */
function columns(p: DomainProfile): Record<string, ChangeValue> {
  return {
    resolves: p.resolves,
    technologies: p.technologies,
    network: p.network,
    platform: p.platform,
    registrar: p.registrar,
    age_days: p.age_days,
    country_iso: p.country_iso,
    lang_norm: p.lang_norm,
    http_status: p.http_status,
    redirect_to: p.redirect_to,
    traffic_visits: p.traffic?.estimated_monthly_visits ?? null,
    traffic_band: p.traffic?.band ?? null,
    employees_low: p.employees?.low ?? null,
    employees_high: p.employees?.high ?? null,
    employees_point: p.employees?.point ?? null,
  };
}

const same = (a: ChangeValue, b: ChangeValue): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x, i) => x === b[i]) : a === b;

/** The changes from dataset `a` to dataset `b`: hosts in `a`'s order, then those only `b` holds. */
export function datasetChanges(a: Dataset, b: Dataset): ReleaseChange[] {
  const changes: ReleaseChange[] = [];
  const hosts = [...new Set([...a.hosts(), ...b.hosts()])];
  for (const host of hosts) {
    const before = a.profile(host);
    const after = b.profile(host);
    if (before === null || after === null) {
      if (before !== after) changes.push({ host, field: 'status', from: before ? 'found' : 'missing', to: after ? 'found' : 'missing' });
      continue;
    }
    const was = columns(before);
    const now = columns(after);
    for (const [field, value] of Object.entries(now)) {
      const from = was[field] ?? null;
      if (!same(from, value)) changes.push({ host, field, from, to: value });
    }
  }
  return changes;
}

/** The changes from release `from` to release `to` (YYYY-MM) of the dataset of `seed` and `hosts` (startSandbox's defaults). */
export function changesBetween(from: string, to: string, options: { seed?: number | string; hosts?: number } = {}): ReleaseChange[] {
  return datasetChanges(createDataset(options.seed ?? 1, options.hosts ?? 5000, from), createDataset(options.seed ?? 1, options.hosts ?? 5000, to));
}
