// A Summary for the report's tests and `npm run test:browser`, computed here from a list of made-up hosts so
// its figures agree with each other (shares of found hosts, counts per distinct host) the way the real
// aggregator's do. Values include the awkward: markup, quotes, a control byte, long and non-Latin names.
import type { Count, Summary } from '../../src/summary/types.js';

interface Host {
  tech: string[];
  platform: string;
  network: string;
  country: string;
  language: string;
  band: string;
  visits: number;
  employees: string;
  status: number;
  redirect: boolean;
  resolves: boolean | null;
}

const TECH = ['WordPress', 'React', 'jQuery', 'Google Analytics', 'Cloudflare', 'Shopify', 'Next.js', 'Stripe', 'HubSpot', 'Vue.js', 'Nginx', 'PHP'];
const HOSTILE = '<img src=x onerror="alert(1)"> & Co\u0007';
const LONG = 'A technology with a name far longer than any label column could hold';
const PLATFORMS = ['WordPress', 'Shopify', 'Wix', 'Squarespace', 'Webflow', 'custom'];
const NETWORKS = ['Cloudflare', 'Amazon', 'Google', 'Fastly', 'OVH', 'Hetzner', 'Akamai'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'NL', 'JP', 'BR', 'IN', 'CA', 'AU', 'ES', 'SE'];
const LANGUAGES = ['en', 'de', 'fr', 'ja', 'pt', 'nl', 'es', 'Ελληνικά'];
const BANDS = ['<1K', '1K-10K', '10K-100K', '100K-1M', '1M-10M', '10M+'];
const RANGES = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000'];
const STATUSES = [200, 301, 403, 404, 500];

// A small deterministic generator (mulberry32): the sample is the same on every run.
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hosts(n: number): Host[] {
  const r = random(18);
  // Skewed picks, so charts have a long tail the way real lists do.
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() ** 2 * list.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const band = Math.min(BANDS.length - 1, Math.floor(r() ** 1.5 * BANDS.length));
    const tech = TECH.filter(() => r() < 0.3);
    if (i % 97 === 0) tech.push(HOSTILE);
    if (i % 61 === 0) tech.push(LONG);
    return {
      tech,
      platform: pick(PLATFORMS),
      network: pick(NETWORKS),
      country: pick(COUNTRIES),
      language: pick(LANGUAGES),
      band: BANDS[band]!,
      visits: Math.round(10 ** (band + 2 + r() * 1.0)),
      employees: pick(RANGES),
      status: pick(STATUSES),
      redirect: r() < 0.2,
      resolves: r() < 0.05 ? null : r() < 0.93,
    };
  });
}

function counts(values: string[], found: number, order?: readonly string[]): Count[] {
  const by = new Map<string, number>();
  for (const v of values) by.set(v, (by.get(v) ?? 0) + 1);
  const list = [...by].map(([value, count]) => ({ value, count, share: count / found }));
  if (order) return list.sort((a, b) => order.indexOf(a.value) - order.indexOf(b.value));
  return list.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function categoryOf(tech: string): string {
  if (tech === 'WordPress' || tech === 'Shopify') return 'cms';
  if (tech === 'Stripe') return 'payments';
  return tech === 'Google Analytics' || tech === 'HubSpot' ? 'analytics' : 'javascript-frameworks';
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** The sample: `found` distinct found hosts, plus rows of the other statuses and a few repeated rows. */
export function sampleSummary(found = 400): Summary {
  const list = hosts(found);
  const visits = list.map((h) => h.visits).sort((a, b) => a - b);
  const rows = { found: found + 25, missing: 31, invalid: 7, error: 3, unknown: 0 };
  return {
    input: { name: 'accounts-2026-11 <q3> & "renewals".csv', format: 'csv', rows: rows.found + rows.missing + rows.invalid + rows.error + rows.unknown },
    generatedAt: '2026-11-24T04:30:00Z',
    rows,
    hosts: { distinct: found + 41, found },
    technologies: counts(
      list.flatMap((h) => h.tech),
      found,
    ),
    categories: counts(
      // A host counts once per category, however many of its technologies fall in it.
      list.flatMap((h) => [...new Set(h.tech.map(categoryOf))]),
      found,
    ),
    platforms: counts(
      list.map((h) => h.platform),
      found,
    ),
    networks: counts(
      list.map((h) => h.network),
      found,
    ),
    countries: counts(
      list.map((h) => h.country),
      found,
    ),
    languages: counts(
      list.map((h) => h.language),
      found,
    ),
    trafficBands: counts(
      list.map((h) => h.band),
      found,
      BANDS,
    ),
    visits: {
      count: visits.length,
      min: visits[0]!,
      p25: percentile(visits, 0.25),
      p50: percentile(visits, 0.5),
      p75: percentile(visits, 0.75),
      p90: percentile(visits, 0.9),
      max: visits.at(-1)!,
    },
    employees: counts(
      list.map((h) => h.employees),
      found,
      RANGES,
    ),
    httpStatus: counts(
      list.map((h) => String(h.status)),
      found,
      STATUSES.map(String),
    ),
    redirects: list.filter((h) => h.redirect).length,
    resolves: {
      yes: list.filter((h) => h.resolves === true).length,
      no: list.filter((h) => h.resolves === false).length,
      unknown: list.filter((h) => h.resolves === null).length,
    },
  };
}

/** A Summary of a file with no rows: every list empty, no visits. */
export function emptySummary(): Summary {
  return {
    input: { name: 'empty.ndjson', format: 'ndjson', rows: 0 },
    generatedAt: '2026-11-24T04:30:00Z',
    rows: { found: 0, missing: 0, invalid: 0, error: 0, unknown: 0 },
    hosts: { distinct: 0, found: 0 },
    technologies: [],
    categories: [],
    platforms: [],
    networks: [],
    countries: [],
    languages: [],
    trafficBands: [],
    visits: null,
    employees: [],
    httpStatus: [],
    redirects: 0,
    resolves: { yes: 0, no: 0, unknown: 0 },
  };
}
