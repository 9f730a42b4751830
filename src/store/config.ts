// The one config resolver (ARCHITECTURE habit 4): defaults < stored settings < environment < flags, for every
// setting, so `config show` can say where each value came from. Also the value parsers the CLI runs at
// option-parse time, throwing UsageError so the library and the CLI report bad values alike.
import { normaliseBaseUrl } from '../api/base-url.js';
import { UsageError } from '../api/errors.js';
import { PLAN_NAMES, PLANS, type PlanName } from '../api/types.js';
import { checkKeyShape, resolveKey, type ResolvedKey } from './keys.js';
import { cacheDir as defaultCacheDir, type Env } from './paths.js';
import type { SettingsReader } from './settings.js';

// One base-URL rule for the whole project: the client enforces the same function.
export { isLoopbackHost, normaliseBaseUrl } from '../api/base-url.js';

/**
 * Placeholder for the production service. Configurable through --base-url, DOMAIN_INTEL_BASE_URL or
 * `domain-intel config set base-url`, e.g. to point at the local sandbox.
 */
export const DEFAULT_BASE_URL = 'https://api.domain-intel.example/api/v1';
/** Cached answers older than this are fetched again, unless --max-age says otherwise. */
export const DEFAULT_MAX_AGE_MS = 30 * 86_400_000;
export const MINUTE_MS = 60_000;

export const ENV_VARS = {
  key: 'DOMAIN_INTEL_API_KEY',
  baseUrl: 'DOMAIN_INTEL_BASE_URL',
  plan: 'DOMAIN_INTEL_PLAN',
  rpm: 'DOMAIN_INTEL_RPM',
} as const;

/** A request rate: at most `requests` starts in any `windowMs`. */
export interface Rate {
  requests: number;
  windowMs: number;
}

/** Where a resolved value came from. 'plan' means derived from the plan's limit; 'learned' from past 429s. */
export type ConfigSource = 'default' | 'stored' | 'env' | 'flag' | 'plan' | 'learned';

/** Command-line values, already parsed by commander; undefined means "not given". */
export interface ConfigFlags {
  baseUrl?: string | undefined;
  plan?: string | undefined;
  /** --rpm: requests per minute. */
  rpm?: number | undefined;
  /** --rate: requests per window; wins over --rpm. */
  rate?: Rate | string | undefined;
  /** Use this stored key instead of the environment's or the active one. */
  keyName?: string | undefined;
  cacheDir?: string | undefined;
  maxAgeMs?: number | undefined;
  /** false for --no-cache. */
  cache?: boolean | undefined;
}

/** Everything a command needs to talk to the service, resolved once. */
export interface ResolvedConfig {
  baseUrl: string;
  plan: PlanName | null;
  /**
   * Requests allowed per `windowMs` (a minute unless a rate such as 20/1s was given); null when neither a
   * plan nor a rate is known, in which case the run learns the limit from the service's first 429.
   */
  rpm: number | null;
  windowMs: number;
  key: ResolvedKey | null;
  cacheDir: string;
  maxAgeMs: number;
  useCache: boolean;
  sources: { baseUrl: ConfigSource; plan: ConfigSource; rate: ConfigSource; cacheDir: ConfigSource; maxAgeMs: ConfigSource };
}

export interface ResolveConfigOptions {
  flags?: ConfigFlags;
  env?: Env;
  /** Stored settings; null when they could not or should not be read. */
  settings?: SettingsReader | null;
  onWarning?: (message: string) => void;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses a duration such as 500ms, 45s, 90m, 12h, 30d or 2w into ms; throws UsageError. */
export function parseDuration(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/i.exec(value);
  const unit = UNITS[m?.[2]?.toLowerCase() ?? ''];
  if (!m || unit === undefined) {
    throw new UsageError(`expected a duration like 30d, 12h, 90m, 45s or 500ms, got ${JSON.stringify(value)}`, 'bad_duration');
  }
  const ms = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(ms)) throw new UsageError(`duration ${JSON.stringify(value)} is too long`, 'bad_duration');
  return ms;
}

/** Parses a rate such as 300/1m, 20/1s, 300/m or a plain 600 (per minute); throws UsageError. */
export function parseRate(value: string): Rate {
  const m = /^\s*(\d+)\s*(?:\/\s*(\S.*?))?\s*$/.exec(value);
  if (!m) throw new UsageError(`expected a rate like 300/1m, 20/1s or 600 (per minute), got ${JSON.stringify(value)}`, 'bad_rate');
  const requests = Number(m[1]);
  if (!Number.isSafeInteger(requests) || requests < 1) throw new UsageError('a rate needs at least 1 request', 'bad_rate');
  const window = m[2];
  // "300/m" reads as "300 per 1 minute".
  const windowMs = window === undefined ? MINUTE_MS : parseDuration(/^\d/.test(window) ? window : `1${window}`);
  if (windowMs < 10) throw new UsageError('a rate window must be at least 10ms', 'bad_rate');
  return { requests, windowMs };
}

/** Checks a plan name; throws UsageError naming where the bad value came from. */
export function parsePlan(value: string, where = 'plan'): PlanName {
  const plan = value.trim().toLowerCase();
  if ((PLAN_NAMES as string[]).includes(plan)) return plan as PlanName;
  throw new UsageError(`${where}: unknown plan ${JSON.stringify(value)}; expected one of ${PLAN_NAMES.join(', ')}`, 'bad_plan');
}

/** One layer's say on the rate: an explicit rate wins over one derived from the layer's plan. */
function layerRate(rate: Rate | null, plan: PlanName | null): { rate: Rate; derived: boolean } | null {
  if (rate) return { rate, derived: false };
  if (plan) return { rate: { requests: PLANS[plan].perMinute, windowMs: MINUTE_MS }, derived: true };
  return null;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Resolves every setting with one precedence: defaults < stored settings < environment < flags. */
export function resolveConfig(options: ResolveConfigOptions = {}): ResolvedConfig {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const stored = options.settings?.getAll() ?? null;

  const envBaseUrl = nonEmpty(env[ENV_VARS.baseUrl]);
  const envPlanText = nonEmpty(env[ENV_VARS.plan]);
  const envRpmText = nonEmpty(env[ENV_VARS.rpm]);
  const envPlan = envPlanText === undefined ? null : parsePlan(envPlanText, ENV_VARS.plan);
  const envRate = envRpmText === undefined ? null : withWhere(ENV_VARS.rpm, () => parseRate(envRpmText));
  const flagPlan = flags.plan === undefined ? null : parsePlan(flags.plan, '--plan');
  const flagRate =
    typeof flags.rate === 'string'
      ? withWhere('--rate', () => parseRate(flags.rate as string))
      : (flags.rate ?? (flags.rpm === undefined ? null : checkRpm(flags.rpm)));

  // Base URL: every candidate is normalised, so a bad stored value is reported, not silently skipped.
  let baseUrl = DEFAULT_BASE_URL;
  let baseUrlSource: ConfigSource = 'default';
  if (flags.baseUrl !== undefined) [baseUrl, baseUrlSource] = [withWhere('--base-url', () => normaliseBaseUrl(flags.baseUrl as string)), 'flag'];
  else if (envBaseUrl !== undefined) [baseUrl, baseUrlSource] = [withWhere(ENV_VARS.baseUrl, () => normaliseBaseUrl(envBaseUrl)), 'env'];
  else if (stored?.baseUrl) [baseUrl, baseUrlSource] = [withWhere('stored base-url', () => normaliseBaseUrl(stored.baseUrl as string)), 'stored'];

  const [plan, planSource]: [PlanName | null, ConfigSource] = flagPlan
    ? [flagPlan, 'flag']
    : envPlan
      ? [envPlan, 'env']
      : stored?.plan
        ? [stored.plan, 'stored']
        : [null, 'default'];

  // The highest layer that says anything about speed decides it: `--plan business` beats a stored rpm.
  const storedRate = stored?.rpm ? { requests: stored.rpm, windowMs: MINUTE_MS } : null;
  const layers: [ConfigSource, ReturnType<typeof layerRate>][] = [
    ['flag', layerRate(flagRate, flagPlan)],
    ['env', layerRate(envRate, envPlan)],
    ['stored', layerRate(storedRate, stored?.plan ?? null)],
  ];
  // Nothing known: no guess. Assuming the smallest plan would waste most of a larger plan's limit on every
  // run; instead the limiter learns the limit from the first 429 (a pause until its reset, then paced) and
  // the learned figure is stored for next time.
  let rate: { requests: number | null; windowMs: number } = { requests: null, windowMs: MINUTE_MS };
  let rateSource: ConfigSource = 'default';
  const chosen = layers.find(([, l]) => l !== null);
  if (chosen?.[1]) [rate, rateSource] = [chosen[1].rate, chosen[1].derived ? 'plan' : chosen[0]];
  else if (stored?.learnedRpm) [rate, rateSource] = [{ requests: stored.learnedRpm, windowMs: MINUTE_MS }, 'learned'];

  const key = resolveKey({ settings: options.settings ?? null, env, name: flags.keyName ?? null });
  // Stored keys were checked when added; the environment's is only warned about, since the service decides.
  const keyProblem = key?.source === 'env' ? checkKeyShape(key.key) : null;
  if (keyProblem !== null) options.onWarning?.(`${ENV_VARS.key} does not look like an API key: ${keyProblem}`);
  const cacheDir = flags.cacheDir ?? defaultCacheDir(env);
  const maxAgeMs = flags.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  if (!(maxAgeMs >= 0)) throw new UsageError('--max-age must not be negative', 'bad_duration');

  return {
    baseUrl,
    plan,
    rpm: rate.requests,
    windowMs: rate.windowMs,
    key,
    cacheDir,
    maxAgeMs,
    useCache: flags.cache !== false,
    sources: {
      baseUrl: baseUrlSource,
      plan: planSource,
      rate: rateSource,
      cacheDir: flags.cacheDir !== undefined ? 'flag' : nonEmpty(env.DOMAIN_INTEL_CACHE_DIR) !== undefined ? 'env' : 'default',
      maxAgeMs: flags.maxAgeMs !== undefined ? 'flag' : 'default',
    },
  };
}

function checkRpm(rpm: number): Rate {
  if (!Number.isSafeInteger(rpm) || rpm < 1) throw new UsageError('--rpm must be a whole number of at least 1', 'bad_rate');
  return { requests: rpm, windowMs: MINUTE_MS };
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
