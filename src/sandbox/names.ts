// Generates the held hostnames: organisations under a mix of public suffixes (including multi-label ones
// like co.uk and com.au, so apex collapse through the public suffix list is exercised), many with several
// subdomains, some held only as www.<apex> (the bare apex then is not held).
import { getDomain } from 'tldts';
import { Rng } from './random.js';

const SYLLABLES = [
  'ac',
  'al',
  'an',
  'ar',
  'bel',
  'bi',
  'bo',
  'bra',
  'ca',
  'cor',
  'da',
  'del',
  'do',
  'el',
  'en',
  'fa',
  'fer',
  'ga',
  'gen',
  'ha',
  'hel',
  'in',
  'io',
  'ka',
  'kor',
  'la',
  'lin',
  'lo',
  'ma',
  'mer',
  'mi',
  'mo',
  'na',
  'nor',
  'no',
  'or',
  'pa',
  'per',
  'pi',
  'qua',
  'ra',
  'ren',
  'ro',
  'sa',
  'sel',
  'si',
  'so',
  'ta',
  'ter',
  'ti',
  'to',
  'tra',
  'u',
  'va',
  'ven',
  'vi',
  'wa',
  'xi',
  'ya',
  'ze',
  'zo',
];
const WORDS = [
  'labs',
  'shop',
  'tech',
  'media',
  'group',
  'health',
  'travel',
  'foods',
  'design',
  'cloud',
  'data',
  'home',
  'studio',
  'works',
  'bank',
  'legal',
  'games',
  'energy',
  'auto',
  'print',
];
/** [suffix, weight] */
const SUFFIXES: readonly (readonly [string, number])[] = [
  ['com', 44],
  ['net', 6],
  ['org', 6],
  ['io', 5],
  ['co', 2],
  ['de', 6],
  ['fr', 3],
  ['nl', 3],
  ['es', 2],
  ['ca', 2],
  ['co.uk', 7],
  ['org.uk', 2],
  ['com.au', 5],
  ['co.jp', 2],
  ['com.br', 3],
  ['co.nz', 1],
];
const SUBDOMAINS = ['www', 'shop', 'blog', 'app', 'docs', 'help', 'store', 'mail', 'en', 'm', 'news', 'careers'];

export interface Organisation {
  apex: string;
  hosts: string[];
}

function label(rng: Rng): string {
  const parts: string[] = [];
  const syllables = rng.int(2, 3);
  for (let i = 0; i < syllables; i++) parts.push(rng.pick(SYLLABLES));
  let name = parts.join('');
  const style = rng.float();
  if (style < 0.2) name = `${name}-${rng.pick(WORDS)}`;
  else if (style < 0.35) name = `${name}${rng.pick(WORDS)}`;
  else if (style < 0.4) name = `${name}${rng.int(2, 99)}`;
  return name;
}

function hostsOf(apex: string, rng: Rng): string[] {
  const shape = rng.float();
  if (shape < 0.5) return [apex];
  if (shape < 0.62) return [`www.${apex}`];
  if (shape < 0.75) return [apex, `www.${apex}`];
  const hosts = [apex];
  if (rng.chance(0.7)) hosts.push(`www.${apex}`);
  const extra = rng.int(1, 4);
  for (let i = 0; i < extra; i++) {
    const sub = rng.pick(SUBDOMAINS);
    const host = rng.chance(0.1) ? `eu.${sub}.${apex}` : `${sub}.${apex}`;
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

/** The organisations whose hosts make up the dataset, in dataset order, `count` hosts in total. */
export function generateOrganisations(seed: number | string, count: number): Organisation[] {
  const rng = Rng.for(seed, 'hosts');
  const seen = new Set<string>();
  const orgs: Organisation[] = [];
  let total = 0;
  let attempts = 0;
  while (total < count) {
    if (++attempts > count * 50 + 1000) throw new RangeError(`cannot generate ${count} distinct hosts`);
    const suffix = rng.weighted(SUFFIXES, ([, weight]) => weight)[0];
    const apex = `${label(rng)}.${suffix}`;
    if (seen.has(apex) || getDomain(apex) !== apex) continue;
    seen.add(apex);
    const hosts = hostsOf(apex, rng).slice(0, count - total);
    orgs.push({ apex, hosts });
    total += hosts.length;
  }
  return orgs;
}
