// The deterministic dataset behind the sandbox. Each host's fields come from a PRNG stream keyed by
// (seed, purpose, host), so a host's profile does not depend on the order it is asked for, and the
// organisation-level facts (registrar, age, employees) come from a stream keyed by the apex, so every host
// under one apex agrees on them.
import { getDomain } from 'tldts';
import type { CatalogCategory, DomainProfile, EmployeeEstimate, EmployeesResult, TechnologyCount, TrafficHistory, TrafficMonth } from '../api/types.js';
import { CATEGORIES, CATEGORY_PICKS, TECHNOLOGIES, compareNames, techsInPrimary, techsListedIn } from './catalog.js';
import { generateOrganisations } from './names.js';
import { Rng } from './random.js';
import type { Dataset } from './types.js';

/** Month of the data release: the newest `as_of` a traffic figure can have. */
const RELEASE_MONTH = '2025-10';

const NETWORKS = [
  'Cloudflare, Inc.',
  'Amazon.com, Inc.',
  'Google LLC',
  'Microsoft Corporation',
  'Hetzner Online GmbH',
  'OVH SAS',
  'DigitalOcean, LLC',
  'Fastly, Inc.',
  'Akamai Technologies, Inc.',
  'Linode, LLC',
  'IONOS SE',
  'Shopify, Inc.',
  'Automattic, Inc.',
  'Squarespace, Inc.',
];
const REGISTRARS = [
  'GoDaddy.com, LLC',
  'NameCheap, Inc.',
  'Tucows Domains Inc.',
  'MarkMonitor Inc.',
  'Gandi SAS',
  'IONOS SE',
  'Key-Systems GmbH',
  'Network Solutions, LLC',
  'Google LLC',
  'Cloudflare, Inc.',
  'OVH SAS',
];
const SUFFIX_COUNTRY: Record<string, string> = {
  de: 'DE',
  fr: 'FR',
  nl: 'NL',
  es: 'ES',
  ca: 'CA',
  'co.uk': 'GB',
  'org.uk': 'GB',
  'com.au': 'AU',
  'co.jp': 'JP',
  'com.br': 'BR',
  'co.nz': 'NZ',
};
const GENERIC_COUNTRIES = ['US', 'US', 'US', 'US', 'US', 'US', 'GB', 'DE', 'FR', 'IN', 'CA', 'AU', 'NL', 'SE', 'BR', 'JP'];
const COUNTRY_LANG: Record<string, string> = {
  US: 'en',
  GB: 'en',
  AU: 'en',
  CA: 'en',
  NZ: 'en',
  IN: 'en',
  DE: 'de',
  FR: 'fr',
  NL: 'nl',
  ES: 'es',
  BR: 'pt',
  JP: 'ja',
  SE: 'sv',
};
const STATUSES: readonly (readonly [number, number])[] = [
  [200, 80],
  [301, 6],
  [302, 3],
  [403, 4],
  [404, 2],
  [500, 2],
  [503, 1],
];
/** Headcount buckets [low, high, weight]; high null is open-ended. */
const HEADCOUNTS: readonly (readonly [number, number | null, number])[] = [
  [1, 10, 30],
  [11, 50, 25],
  [51, 200, 18],
  [201, 500, 10],
  [501, 1000, 7],
  [1001, 5000, 6],
  [5001, 10000, 2],
  [10001, null, 2],
];
const BANDS: readonly (readonly [number, string])[] = [
  [1_000, '<1K'],
  [10_000, '1K-10K'],
  [100_000, '10K-100K'],
  [1_000_000, '100K-1M'],
  [10_000_000, '1M-10M'],
];

/** Returns `value`, or null with probability `p`: unknown fields really are null (§2). */
function orNull<T>(rng: Rng, p: number, value: () => T): T | null {
  return rng.chance(p) ? null : value();
}

function band(visits: number): string {
  for (const [below, label] of BANDS) if (visits < below) return label;
  return '10M+';
}

function shiftMonth(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) + delta;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Builds the dataset for a seed: `hosts` held hostnames with profiles, traffic, employees and a catalog. */
export function createDataset(seed: number | string = 1, hosts = 5000): Dataset {
  if (!Number.isInteger(hosts) || hosts < 0) throw new RangeError(`hosts must be a non-negative integer, got ${hosts}`);
  const orgs = generateOrganisations(seed, hosts);
  const hostList: string[] = [];
  const apexByHost = new Map<string, string>();
  const orgApexes = new Set<string>();
  for (const org of orgs) {
    orgApexes.add(org.apex);
    for (const host of org.hosts) {
      hostList.push(host);
      apexByHost.set(host, org.apex);
    }
  }

  const suffixOf = (apex: string): string => apex.slice(apex.indexOf('.') + 1);

  // Own stream, so the catalog counts can be computed without building whole profiles.
  const resolvesOf = (host: string): boolean | null => {
    const rng = Rng.for(seed, 'resolves', host);
    return orNull(rng, 0.1, () => rng.chance(0.92));
  };

  function technologiesOf(host: string, resolves: boolean | null): string[] | null {
    const rng = Rng.for(seed, 'tech', host);
    if (rng.chance(resolves === false ? 0.5 : 0.12)) return null;
    const names = new Set<string>();
    for (const category of CATEGORIES) {
      const [present, max] = CATEGORY_PICKS[category] ?? [0, 0];
      if (!rng.chance(present)) continue;
      const pool = techsInPrimary(category);
      const picks = rng.int(1, max);
      for (let i = 0; i < picks; i++) names.add(rng.weighted(pool, (tech) => tech.weight).name);
    }
    return [...names].sort(compareNames);
  }

  function platformOf(host: string, techs: string[] | null): string | null {
    const rng = Rng.for(seed, 'platform', host);
    const platforms = TECHNOLOGIES.filter((tech) => tech.platform === true);
    if (techs === null) return rng.chance(0.6) ? null : rng.weighted(platforms, (tech) => tech.weight).name;
    if (rng.chance(0.1)) return null; // detected, but not classified as a platform this release
    // A shop platform outranks the CMS it runs on (WooCommerce over WordPress).
    const shop = platforms.find((tech) => tech.categories[0] === 'ecommerce' && techs.includes(tech.name));
    const cms = platforms.find((tech) => tech.categories[0] === 'cms' && techs.includes(tech.name));
    return (shop ?? cms)?.name ?? null;
  }

  function trafficOf(host: string): TrafficHistory | null {
    const rng = Rng.for(seed, 'traffic', host);
    if (rng.chance(0.22)) return null;
    const months = rng.int(6, 24);
    const lag = rng.weighted([0, 1, 2], (l) => (l === 0 ? 80 : l === 1 ? 15 : 5));
    const asOf = shiftMonth(RELEASE_MONTH, -lag);
    let visits = Math.round(10 ** (1.5 + rng.float() * 6.5));
    const history: TrafficMonth[] = [];
    for (let i = months - 1; i >= 0; i--) {
      history.push({ month: shiftMonth(asOf, -i), visits });
      visits = Math.max(0, Math.round(visits * (0.85 + rng.float() * 0.3)));
    }
    const latest = history[history.length - 1] as TrafficMonth;
    return { host, estimated_monthly_visits: latest.visits, band: band(latest.visits), as_of: asOf, history };
  }

  function employeesOfApex(apex: string): EmployeeEstimate | null {
    const rng = Rng.for(seed, 'employees', apex);
    if (rng.chance(0.2)) return null;
    const [low, high] = rng.weighted(HEADCOUNTS, ([, , weight]) => weight);
    const point = rng.chance(0.25) ? rng.int(low, high ?? low * 3) : null;
    const month = shiftMonth(RELEASE_MONTH, -rng.int(0, 8));
    const asOf = `${month}-${String(rng.int(1, 28)).padStart(2, '0')}`;
    // A few figures are only known as an upper bound.
    return { apex, low: rng.chance(0.03) ? null : low, high, point, as_of: asOf };
  }

  function profileOf(host: string, apex: string): DomainProfile {
    const rng = Rng.for(seed, 'profile', host);
    const org = Rng.for(seed, 'org', apex);
    const registrar = orNull(org, 0.15, () => org.pick(REGISTRARS));
    const ageDays = orNull(org, 0.15, () => org.int(20, 11_000));
    const country = orNull(rng, 0.15, () => SUFFIX_COUNTRY[suffixOf(apex)] ?? rng.pick(GENERIC_COUNTRIES));
    const resolves = resolvesOf(host);
    const status = resolves === false ? null : orNull(rng, 0.15, () => rng.weighted(STATUSES, ([, w]) => w)[0]);
    const redirects = status === 301 || status === 302 || (status === 200 && rng.chance(0.08));
    const redirectTo = !redirects
      ? null
      : host.startsWith('www.')
        ? `https://${apex}/`
        : rng.chance(0.8)
          ? `https://www.${host}/`
          : `https://${rng.pick(orgs).apex}/`;
    const technologies = technologiesOf(host, resolves);
    const traffic = trafficOf(host);
    return {
      domain: host,
      resolves,
      technologies,
      network: resolves === false ? null : orNull(rng, 0.15, () => rng.pick(NETWORKS)),
      platform: platformOf(host, technologies),
      registrar,
      age_days: ageDays,
      country_iso: country,
      lang_norm: orNull(rng, 0.15, () => (rng.chance(0.1) ? 'en' : (COUNTRY_LANG[country ?? 'US'] ?? 'en'))),
      http_status: status,
      redirect_to: redirectTo,
      traffic: traffic && { estimated_monthly_visits: traffic.estimated_monthly_visits, band: traffic.band, as_of: traffic.as_of },
      employees: employeesOfApex(apex),
    };
  }

  let counts: Map<string, number> | null = null;
  function techCounts(): Map<string, number> {
    if (counts) return counts;
    counts = new Map(TECHNOLOGIES.map((tech) => [tech.name, 0]));
    for (const host of hostList) {
      for (const name of technologiesOf(host, resolvesOf(host)) ?? []) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    return counts;
  }

  return {
    seed,
    size: hostList.length,
    release: RELEASE_MONTH,
    hosts: () => [...hostList],
    isHeld: (host) => apexByHost.has(host),
    apexOf: (host) => apexByHost.get(host) ?? getDomain(host),
    profile(host) {
      const apex = apexByHost.get(host);
      return apex === undefined ? null : profileOf(host, apex);
    },
    traffic: (host) => (apexByHost.has(host) ? trafficOf(host) : null),
    employees(host): EmployeesResult | null {
      const apex = apexByHost.get(host) ?? getDomain(host);
      if (apex === null || !orgApexes.has(apex)) return null;
      const figure = employeesOfApex(apex);
      if (figure === null) return null;
      return { host, apex, estimated_employees: { low: figure.low, high: figure.high, point: figure.point }, as_of: figure.as_of };
    },
    technology(name): TechnologyCount | null {
      const domains = techCounts().get(name);
      return domains === undefined ? null : { tech: name, domains };
    },
    catalog(): CatalogCategory[] {
      const all = techCounts();
      return CATEGORIES.map((category) => ({
        category,
        technologies: techsListedIn(category).map((tech) => ({ tech: tech.name, domains: all.get(tech.name) ?? 0 })),
      }));
    },
  };
}
