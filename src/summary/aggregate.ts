// Rows in, one Summary out. Rows are counted by status one by one; everything else per distinct found host
// (a host on three rows counts once, with the first row that found it), through the pipeline's seen-sets
// (run/seen-keys.ts: fingerprints, flat memory for millions of hosts) rather than a Set of strings. The tallies are
// keyed by values (technologies, countries, bands...), whose number the service's vocabulary bounds.
import { openSeenSet } from '../run/seen-keys.js';
import type { SummaryRow } from './row.js';
import type { Count, Summary } from './types.js';
import { VisitsSketch } from './visits.js';

/** The service's traffic bands, smallest first: the order the summary lists them in. */
const BAND_ORDER = ['<1K', '1K-10K', '10K-100K', '100K-1M', '1M-10M', '10M+'] as const;

const STATUSES = ['found', 'missing', 'invalid', 'error'] as const;

export interface AggregatorOptions {
  /** Technology name to catalog category (from the cached catalog); without it `categories` is empty. */
  categories?: ReadonlyMap<string, string> | null;
}

export interface Aggregator {
  /** Counts a chunk of rows (a chunk at a time: the seen-sets take keys in arrays). */
  add(rows: readonly SummaryRow[]): void;
  /** The summary of every row added; closes the seen-sets. */
  finish(input: Omit<Summary['input'], 'rows'>, generatedAt: Date): Summary;
}

/** Starts an empty summary. */
export function createAggregator(options: AggregatorOptions = {}): Aggregator {
  const distinct = openSeenSet();
  const found = openSeenSet();
  const rows = { found: 0, missing: 0, invalid: 0, error: 0, unknown: 0 };
  const hosts = { distinct: 0, found: 0 };
  const tally = {
    technologies: new Map<string, number>(),
    categories: new Map<string, number>(),
    platforms: new Map<string, number>(),
    networks: new Map<string, number>(),
    countries: new Map<string, number>(),
    languages: new Map<string, number>(),
    trafficBands: new Map<string, number>(),
    employees: new Map<string, number>(),
    httpStatus: new Map<string, number>(),
  };
  const visits = new VisitsSketch();
  const resolves = { yes: 0, no: 0, unknown: 0 };
  let redirects = 0;
  let total = 0;

  const countHost = (row: SummaryRow): void => {
    hosts.found++;
    const techs = [...new Set(row.technologies)];
    for (const t of techs) bump(tally.technologies, t);
    if (options.categories) {
      const cats = new Set(techs.map((t) => options.categories?.get(t)).filter((c) => c !== undefined));
      for (const c of cats) bump(tally.categories, c);
    }
    bump(tally.platforms, row.platform);
    bump(tally.networks, row.network);
    bump(tally.countries, row.country);
    bump(tally.languages, row.language);
    bump(tally.trafficBands, row.band);
    if (row.visits !== null) visits.add(row.visits);
    // The service's largest range is open-ended (high null): "10001+".
    if (row.employeesLow !== null) bump(tally.employees, row.employeesHigh === null ? `${row.employeesLow}+` : `${row.employeesLow}-${row.employeesHigh}`);
    bump(tally.httpStatus, row.httpStatus === null ? null : String(row.httpStatus));
    if (row.redirect) redirects++;
    if (row.resolves === true) resolves.yes++;
    else if (row.resolves === false) resolves.no++;
    else resolves.unknown++;
  };

  return {
    add(chunk) {
      total += chunk.length;
      const withHost = chunk.filter((r) => r.host !== null);
      for (const r of chunk) {
        const status = (STATUSES as readonly string[]).includes(r.status) ? (r.status as (typeof STATUSES)[number]) : 'unknown';
        rows[status]++;
      }
      const fresh = distinct.add(withHost.map((r) => r.host as string));
      for (const f of fresh) if (f) hosts.distinct++;
      // A host in error on one row and found on another is found: found hosts are met apart from the rest.
      const foundRows = withHost.filter((r) => r.status === 'found');
      const freshFound = found.add(foundRows.map((r) => r.host as string));
      for (let i = 0; i < foundRows.length; i++) if (freshFound[i]) countHost(foundRows[i] as SummaryRow);
    },
    finish(input, generatedAt) {
      distinct.close();
      found.close();
      const of = (map: Map<string, number>, order: (a: Count, b: Count) => number = byCount) => counts(map, hosts.found, order);
      return {
        input: { ...input, rows: total },
        generatedAt: `${generatedAt.toISOString().slice(0, 19)}Z`,
        rows,
        hosts,
        technologies: of(tally.technologies),
        categories: of(tally.categories),
        platforms: of(tally.platforms),
        networks: of(tally.networks),
        countries: of(tally.countries),
        languages: of(tally.languages),
        trafficBands: of(tally.trafficBands, byBand),
        visits: visits.result(),
        employees: of(tally.employees, byRange),
        httpStatus: of(tally.httpStatus, (a, b) => Number(a.value) - Number(b.value)),
        redirects,
        resolves,
      };
    },
  };
}

function bump(map: Map<string, number>, value: string | null): void {
  if (value !== null) map.set(value, (map.get(value) ?? 0) + 1);
}

function counts(map: Map<string, number>, of: number, order: (a: Count, b: Count) => number): Count[] {
  return [...map].map(([value, count]) => ({ value, count, share: of === 0 ? 0 : count / of })).sort(order);
}

/** Count descending, then name (by code point, so the order is the same on every machine). */
function byCount(a: Count, b: Count): number {
  return b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
}

/** Band order; a band the service added since is put after the known ones, by name. */
function byBand(a: Count, b: Count): number {
  const rank = (c: Count) => {
    const i = (BAND_ORDER as readonly string[]).indexOf(c.value);
    return i === -1 ? BAND_ORDER.length : i;
  };
  return rank(a) - rank(b) || byCount(a, b);
}

/** "low-high" ranges (and an open "low+") in numeric order, low first. */
function byRange(a: Count, b: Count): number {
  const ends = (c: Count) => c.value.split('-').map((x) => Number.parseInt(x, 10));
  const [al = 0, ah = Number.POSITIVE_INFINITY] = ends(a);
  const [bl = 0, bh = Number.POSITIVE_INFINITY] = ends(b);
  return al - bl || ah - bh;
}
