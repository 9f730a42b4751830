// The one config resolver (ARCHITECTURE habit 4): defaults < stored settings < environment < flags, for every
// option of the table (cli/options/table.ts) that maps to a stored setting or an environment variable, so `config
// show` can say where each value came from.
import { normaliseBaseUrl } from '../api/base-url.js';
import { UsageError } from '../api/errors.js';
import { PLANS, type PlanName } from '../api/types.js';
import { resolveKey, type ResolvedKey } from './keys.js';
import { cacheDir as defaultCacheDir, type Env } from './paths.js';
import { normaliseProxyUrl, proxyVariables, type ResolvedProxy, resolveProxy } from './proxy.js';
import { checkStoreUrl, maskUrl } from './store-url.js';
import type { SettingsReader, StoredSettings } from './settings.js';
import { type ConfigFlags, SETTINGS, type SettingKey } from './settings-table.js';
import { DEFAULT_MAX_AGE_MS, MINUTE_MS, parsePlan, parseRate, type Rate } from './values.js';

export type { ConfigFlags } from './settings-table.js';

/** Where a resolved value came from. 'plan' means derived from the plan's limit. */
type ConfigSource = 'default' | 'stored' | 'env' | 'flag' | 'plan';

/** Everything a command needs to talk to the service, resolved once. */
export interface ResolvedConfig {
  baseUrl: string;
  plan: PlanName | null;
  /**
   * Requests allowed per `windowMs` (a minute unless a rate such as 20/1s was given); null when neither a
   * plan nor a rate is known, in which case the run uses what this account learned before (the account state
   * file, store/sqlite/state.ts), or learns the limit from the service's first 429.
   */
  rpm: number | null;
  windowMs: number;
  key: ResolvedKey | null;
  cacheDir: string;
  maxAgeMs: number;
  useCache: boolean;
  /** The forward proxy requests to the base URL go through, or none (proxy.ts). */
  proxy: ResolvedProxy;
  /**
   * Where answers, history and the account are kept: `url` a shared store's (PostgreSQL), null for SQLite in
   * `cacheDir` (the default); `shown` is the URL with its password masked, for every message and listing.
   */
  store: { url: string | null; shown: string | null };
  sources: { baseUrl: ConfigSource; plan: ConfigSource; rate: ConfigSource; cacheDir: ConfigSource; maxAgeMs: ConfigSource; store: ConfigSource };
}

export interface ResolveConfigOptions {
  /** Only what was given on the command line: commander's defaults would hide the lower layers. */
  flags?: ConfigFlags;
  env?: Env;
  /** Stored settings; null when they could not or should not be read. */
  settings?: SettingsReader | null;
  onWarning?: (message: string) => void;
}

/** What one layer says about the settings; a key is absent where the layer is silent. */
interface Said {
  baseUrl?: string;
  plan?: PlanName;
  /** The rate (from --rate too); null: no pacing. */
  rpm?: Rate | null;
  /** A proxy URL as stored, or `none`; the environment's and the flag's are read by proxy.ts. */
  proxy?: string;
  /** A store URL; null: the local SQLite cache (`sqlite`). */
  store?: string | null;
}
type Layer = [source: 'flag' | 'env' | 'stored', said: Said];

/**
 * How a setting reads from the text of an environment variable (`where`) and from the settings file, and
 * what `config set` stores for a text.
 */
const READ: {
  [K in SettingKey]: { text(value: string, where: string): Said[K]; stored(settings: StoredSettings): Said[K]; set(value: string): StoredSettings[K] };
} = {
  baseUrl: {
    text: (url, where) => withWhere(where, () => normaliseBaseUrl(url)),
    stored: ({ baseUrl }) => (baseUrl ? withWhere('stored base-url', () => normaliseBaseUrl(baseUrl)) : undefined),
    set: normaliseBaseUrl,
  },
  plan: { text: parsePlan, stored: ({ plan }) => plan ?? undefined, set: (plan) => parsePlan(plan) },
  // Its environment is HTTPS_PROXY, HTTP_PROXY and NO_PROXY, read by resolveProxy, not a variable of ours.
  proxy: { text: (proxy) => proxy, stored: ({ proxy }) => proxy ?? undefined, set: (proxy) => (isNone(proxy) ? 'none' : normaliseProxyUrl(proxy, 'proxy')) },
  // A URL's form is checked here; which backend serves its scheme, when the store opens (store/open.ts).
  store: {
    text: (url, where) => withWhere(where, () => checkStoreUrl(url)),
    stored: ({ store }) => (store ? withWhere('stored store', () => checkStoreUrl(store)) : undefined),
    set: (url) => checkStoreUrl(url),
  },
  // DOMAIN_INTEL_RPM also takes a rate such as 20/1s; a stored rpm is per minute.
  rpm: {
    text: (rpm, where) => withWhere(where, () => parseRate(rpm)),
    stored: ({ rpm }) => (rpm ? perMinute(rpm) : undefined),
    set: (rpm) => {
      if (!/^\d+$/.test(rpm) || Number(rpm) < 1) throw new UsageError(`rpm must be a whole number of at least 1, got ${JSON.stringify(rpm)}`);
      return Number(rpm);
    },
  },
};

/** The options that are also settings: `config set <name>` takes the long flag's name (base-url). */
const settingRows = (Object.entries(SETTINGS) as [SettingKey, (typeof SETTINGS)[SettingKey]][]).map(([setting, s]) => ({ setting, env: s.env, name: s.name }));

/** The names `config set` and `config unset` take. */
export const SETTING_NAMES = settingRows.map((row) => row.name);

/** The stored setting a `config set|unset` name stands for; throws UsageError for any other name. */
export function settingNamed(name: string | undefined): SettingKey {
  const row = settingRows.find((r) => r.name === name);
  if (!row) throw new UsageError(`unknown setting ${JSON.stringify(name)}; settable: ${SETTING_NAMES.join(', ')}`);
  return row.setting;
}

/** The environment variables that override a `config set|unset` name (DOMAIN_INTEL_BASE_URL for base-url). */
export function settingEnvs(name: string | undefined): readonly string[] {
  if (name === 'proxy') return proxyVariables('https:');
  const env = settingRows.find((r) => r.name === name)?.env;
  return env === undefined ? [] : [env];
}

/** Checks a value for `config set`, as it will be stored; throws UsageError. */
export function settingValue<K extends SettingKey>(key: K, value: string): StoredSettings[K] {
  return READ[key].set(value);
}

/** Resolves every setting with one precedence: defaults < stored settings < environment < flags. */
export function resolveConfig(options: ResolveConfigOptions = {}): ResolvedConfig {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const stored = options.settings?.getAll() ?? null;

  // Every candidate is checked, so a bad stored or environment value is reported, not silently skipped.
  const fromEnv: Said = {};
  const fromStored: Said = {};
  for (const { setting, env: name } of settingRows) {
    const text = name === undefined ? undefined : nonEmpty(env[name]);
    if (text !== undefined && name !== undefined) assign(fromEnv, setting, READ[setting].text(text, name));
    if (stored) assign(fromStored, setting, READ[setting].stored(stored));
  }
  const layers: Layer[] = [
    ['flag', fromFlags(flags)],
    ['env', fromEnv],
    ['stored', fromStored],
  ];
  const first = <K extends keyof Said>(key: K) => layers.find(([, said]) => said[key] !== undefined);

  const baseUrlLayer = first('baseUrl');
  const storeLayer = first('store');
  const storeUrl = storeLayer?.[1].store ?? null;
  const planLayer = first('plan');
  // The highest layer that says anything about speed decides it: `--plan business` beats a stored rpm, and
  // within a layer an explicit rate beats the one its plan implies.
  const speedLayer = layers.find(([, said]) => said.rpm !== undefined || said.plan !== undefined);
  // Nothing known: no guess. Assuming the smallest plan would waste most of a larger plan's limit on every
  // run; instead the limiter learns the limit from the first 429 (a pause until its reset, then paced) and
  // the learned figure is stored for next time, per account in the state file (not here: it is the
  // service's word on one base URL and key, not a setting).
  let rate: { requests: number | null; windowMs: number } = { requests: null, windowMs: MINUTE_MS };
  let rateSource: ConfigSource = 'default';
  if (speedLayer) {
    const [source, said] = speedLayer;
    if (said.rpm !== undefined) [rate, rateSource] = [said.rpm ?? rate, source];
    else if (said.plan) [rate, rateSource] = [perMinute(PLANS[said.plan].perMinute), 'plan'];
  }

  // Its shape is checked when a request must go (cli/services.ts): a malformed key is refused then, before
  // anything is sent, and commands that send nothing (config show, answers from the cache) need none.
  const key = resolveKey({ settings: options.settings ?? null, env });
  const maxAgeMs = flags.maxAge ?? DEFAULT_MAX_AGE_MS;
  const baseUrl = baseUrlLayer?.[1].baseUrl ?? SETTINGS.baseUrl.default;
  const proxy = resolveProxy({ flag: flags.proxy, stored: fromStored.proxy, env, baseUrl });
  if (!(maxAgeMs >= 0)) throw new UsageError('--max-age must not be negative', 'bad_duration');

  return {
    baseUrl,
    plan: planLayer?.[1].plan ?? null,
    rpm: rate.requests,
    windowMs: rate.windowMs,
    key,
    cacheDir: defaultCacheDir(env),
    maxAgeMs,
    useCache: flags.cache !== false,
    proxy,
    store: { url: storeUrl, shown: storeUrl === null ? null : maskUrl(storeUrl) },
    sources: {
      baseUrl: baseUrlLayer?.[0] ?? 'default',
      plan: planLayer?.[0] ?? 'default',
      rate: rateSource,
      cacheDir: nonEmpty(env.DOMAIN_INTEL_CACHE_DIR) !== undefined ? 'env' : 'default',
      maxAgeMs: flags.maxAge !== undefined ? 'flag' : 'default',
      store: storeLayer?.[0] ?? 'default',
    },
  };
}

/** The flags layer: commander parsed the values already, except the base URL (see its row in the table). */
function fromFlags(flags: ConfigFlags): Said {
  const said: Said = {};
  if (flags.baseUrl !== undefined) said.baseUrl = withWhere('--base-url', () => normaliseBaseUrl(flags.baseUrl as string));
  if (flags.plan !== undefined) said.plan = flags.plan;
  // --rpm 0 means no pacing: the limiter runs open and learns from a 429 if one comes. --rate wins over --rpm.
  if (flags.rpm !== undefined) said.rpm = flags.rpm === 0 ? null : perMinute(flags.rpm);
  if (flags.rate !== undefined) said.rpm = flags.rate;
  if (flags.store !== undefined) said.store = withWhere('--store', () => checkStoreUrl(flags.store as string));
  return said;
}

function assign<K extends keyof Said>(said: Said, key: K, value: Said[K]): void {
  if (value !== undefined) said[key] = value;
}

function perMinute(requests: number): Rate {
  return { requests, windowMs: MINUTE_MS };
}

function isNone(value: string): boolean {
  return value.trim().toLowerCase() === 'none';
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

// Prefixes a UsageError with the flag or variable that carried the bad value, so the user knows what to fix.
function withWhere<T>(where: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${where}: ${err.message}`, err.code);
    throw err;
  }
}
