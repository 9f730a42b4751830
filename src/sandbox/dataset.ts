// The deterministic dataset behind the sandbox. Each host's fields come from a PRNG stream keyed by
// (seed, purpose, host), so a host's profile does not depend on the order it is asked for, and the
// organisation-level facts (registrar, age, employees) come from a stream keyed by the apex, so every host
// under one apex agrees on them. Those streams give the first release; a later one replays the months since
// on top (release.ts: technologies, traffic, redirects, presence, headcount), per host, on first use.
import { getDomain } from 'tldts';
import type { CatalogCategory, DomainProfile, EmployeeEstimate, EmployeesResult, TechnologyCount, TrafficHistory, TrafficMonth } from '../api/types.js';
import { CATEGORIES, CATEGORY_PICKS, TECHNOLOGIES, compareNames, techsInPrimary, techsListedIn } from './catalog.js';
import { generateOrganisations } from './names.js';
import { Rng } from './random.js';
import { band, employeesCourse, FIRST_RELEASE, HEADCOUNTS, type HostCourse, hostCourse, newHostsPerMonth, releaseOffset, shiftMonth } from './release.js';
import type { Dataset } from './types.js';

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
/** Returns `value`, or null with probability `p`: unknown fields really are null (§2). */
function orNull<T>(rng: Rng, p: number, value: () => T): T | null {
  return rng.chance(p) ? null : value();
}

/**
 * Builds the dataset for a seed at a release (release.ts): `hosts` held hostnames at the first release, with
 * profiles, traffic, employees and a catalog; a later release has moved some of them, and holds a few more.
 */
export function createDataset(seed: number | string = 1, hosts = 5000, release: string = FIRST_RELEASE): Dataset {
  if (!Number.isInteger(hosts) || hosts < 0) throw new RangeError(`hosts must be a non-negative integer, got ${hosts}`);
  const offset = releaseOffset(release);
  const perMonth = newHostsPerMonth(hosts);
  // The hosts that appear later are the generator's next ones: its first `hosts` are the same whatever the
  // count (only the last organisation may gain subdomains, which then appear like new hosts).
  const orgs = generateOrganisations(seed, hosts + perMonth * offset);
  const everyHost: string[] = [];
  const apexByHost = new Map<string, string>();
  const orgApexes = new Set<string>();
  /** The organisations of the first release: a redirect's target is drawn among them, at every release. */
  const firstOrgs: typeof orgs = [];
  for (const org of orgs) {
    if (everyHost.length < hosts) firstOrgs.push(org);
    // Every organisation generated has a host that appears by this release, so its employees are answered.
    orgApexes.add(org.apex);
    for (const host of org.hosts) {
      everyHost.push(host);
      apexByHost.set(host, org.apex);
    }
  }
  /** Months after the first release when a host appears: 0 for the first release's, then `perMonth` a month. */
  const appearsAt = (index: number): number => (index < hosts ? 0 : 1 + Math.floor((index - hosts) / perMonth));

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
    const asOf = shiftMonth(FIRST_RELEASE, -lag);
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
    const month = shiftMonth(FIRST_RELEASE, -rng.int(0, 8));
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
          : `https://${rng.pick(firstOrgs).apex}/`;
    const course = courseOf(host);
    const { technologies, traffic } = course;
    // A host that starts redirecting answered before and did not redirect; one already redirecting keeps its target.
    const starts = course.redirectTo !== null && status !== null && redirectTo === null;
    return {
      domain: host,
      resolves,
      technologies: technologies && [...technologies],
      network: resolves === false ? null : orNull(rng, 0.15, () => rng.pick(NETWORKS)),
      platform: platformOf(host, technologies),
      registrar,
      age_days: ageDays,
      country_iso: country,
      lang_norm: orNull(rng, 0.15, () => (rng.chance(0.1) ? 'en' : (COUNTRY_LANG[country ?? 'US'] ?? 'en'))),
      http_status: starts ? 301 : status,
      redirect_to: starts ? course.redirectTo : redirectTo,
      traffic: traffic && { estimated_monthly_visits: traffic.estimated_monthly_visits, band: traffic.band, as_of: traffic.as_of },
      employees: employeesAt(apex),
    };
  }

  // At the first release nothing has moved: the generators' answers as they always were, nothing replayed.
  const courses = new Map<string, HostCourse>();
  const indexOf = offset === 0 ? null : new Map(everyHost.map((host, i) => [host, i]));
  function courseOf(host: string): HostCourse {
    const known = courses.get(host);
    if (known) return known;
    const start = { technologies: technologiesOf(host, resolvesOf(host)), traffic: trafficOf(host), appearsAt: appearsAt(indexOf?.get(host) ?? 0) };
    if (offset === 0) return { held: true, ...start, redirectTo: null };
    const apex = apexByHost.get(host);
    const elsewhere = (rng: Rng): string => {
      const target = rng.pick(firstOrgs).apex;
      return target === apex ? `www.${target}` : target;
    };
    const course = hostCourse(seed, host, offset, { ...start, elsewhere });
    courses.set(host, course);
    return course;
  }
  const employeesAt = (apex: string): EmployeeEstimate | null => employeesCourse(seed, apex, offset, employeesOfApex(apex));
  const isHeld = offset === 0 ? (host: string): boolean => apexByHost.has(host) : (host: string): boolean => apexByHost.has(host) && courseOf(host).held;
  const hostList = offset === 0 ? everyHost : everyHost.filter(isHeld);

  let counts: Map<string, number> | null = null;
  function techCounts(): Map<string, number> {
    if (counts) return counts;
    counts = new Map(TECHNOLOGIES.map((tech) => [tech.name, 0]));
    for (const host of hostList) {
      for (const name of courseOf(host).technologies ?? []) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    return counts;
  }

  return {
    seed,
    size: hostList.length,
    release,
    hosts: () => [...hostList],
    isHeld,
    apexOf: (host) => apexByHost.get(host) ?? getDomain(host),
    profile(host) {
      const apex = apexByHost.get(host);
      return apex === undefined || !isHeld(host) ? null : profileOf(host, apex);
    },
    traffic: (host) => (isHeld(host) ? structuredClone(courseOf(host).traffic) : null),
    // A host gone at this release still gets its organisation's figure: the firm did not go with one website.
    employees(host): EmployeesResult | null {
      const apex = apexByHost.get(host) ?? getDomain(host);
      if (apex === null || !orgApexes.has(apex)) return null;
      const figure = employeesAt(apex);
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
