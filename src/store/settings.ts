// Persistent settings and API keys: a thin typed layer over one JSON file. The file holds secrets, so it is
// kept 0600 in a 0700 directory, and values read back are checked because users may edit the file by hand.
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../api/errors.js';
import { PLAN_NAMES, type PlanName, type QuotaInfo } from '../api/types.js';
import { CONFIG_FILE_NAME, configDir, type Env } from './paths.js';
import { fileBackend, type Backend } from './settings-file.js';

/** Quota as last reported by the service, stored so `status` can show it without spending a lookup. */
export interface LastQuota {
  limit: number | null;
  remaining: number | null;
  /** ISO instant, when the reset header could be parsed. */
  reset: string | null;
  /** The reset header exactly as received. */
  resetRaw: string | null;
  /** Epoch ms when it was observed. */
  seenAt: number;
}

/** Everything the settings file holds. */
export interface StoredSettings {
  /** API keys by name. */
  keys: Record<string, string>;
  /** Name of the key used when DOMAIN_INTEL_API_KEY is not set. */
  activeKey: string | null;
  plan: PlanName | null;
  /** Requests per minute chosen by the user. */
  rpm: number | null;
  baseUrl: string | null;
  lastQuota: LastQuota | null;
  /** Requests per minute the service was observed to allow (learned from 429s). */
  learnedRpm: number | null;
}

export type SettingName = keyof StoredSettings;

/** Typed access to the stored settings. */
export interface Settings {
  /** Path of the settings file (':memory:' for memorySettings). */
  readonly path: string;
  /** Reads one setting; invalid stored values read as their default (with a warning). */
  get<K extends SettingName>(name: K): StoredSettings[K];
  /** Writes one setting; null removes it from the file. */
  set<K extends SettingName>(name: K, value: StoredSettings[K]): void;
  /** Every setting at once (one file read). */
  getAll(): StoredSettings;
}

/** The read side only, for code that must not write settings. */
export type SettingsReader = Pick<Settings, 'get' | 'getAll'>;

export interface OpenSettingsOptions {
  env?: Env;
  onWarning?: (message: string) => void;
}

const DEFAULTS: StoredSettings = {
  keys: {},
  activeKey: null,
  plan: null,
  rpm: null,
  baseUrl: null,
  lastQuota: null,
  learnedRpm: null,
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
const isCount = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0);
const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';

// Each validator returns the clean value or undefined when the stored value is unusable.
const CHECK: { [K in SettingName]: (v: unknown) => StoredSettings[K] | undefined } = {
  keys: (v) => {
    if (!isObject(v)) return undefined;
    // A prototype-less copy, so names such as 'constructor' never resolve to Object's members.
    const out = Object.create(null) as Record<string, string>;
    for (const [name, key] of Object.entries(v)) if (typeof key === 'string') out[name] = key;
    return out;
  },
  activeKey: (v) => (isStringOrNull(v) ? v : undefined),
  plan: (v) => (v === null || PLAN_NAMES.includes(v as PlanName) ? (v as PlanName | null) : undefined),
  rpm: (v) => (v === null || isRate(v) ? v : undefined),
  baseUrl: (v) => (isStringOrNull(v) ? v : undefined),
  lastQuota: (v) => {
    if (v === null) return null;
    if (!isObject(v) || !isCount(v.limit) || !isCount(v.remaining)) return undefined;
    if (!isStringOrNull(v.reset) || !isStringOrNull(v.resetRaw) || typeof v.seenAt !== 'number') return undefined;
    return { limit: v.limit, remaining: v.remaining, reset: v.reset, resetRaw: v.resetRaw, seenAt: v.seenAt };
  },
  learnedRpm: (v) => (v === null || isRate(v) ? v : undefined),
};

const NAMES = Object.keys(DEFAULTS) as SettingName[];

/** Converts the client's QuotaInfo into its stored form (dates as ISO strings). */
export function toLastQuota(q: QuotaInfo): LastQuota {
  const reset = q.reset !== null && !Number.isNaN(q.reset.getTime()) ? q.reset.toISOString() : null;
  return { limit: q.limit, remaining: q.remaining, reset, resetRaw: q.resetRaw, seenAt: q.seenAt };
}

function createSettings(backend: Backend, file: string, onWarning: (m: string) => void): Settings {
  const warned = new Set<string>();
  const read = <K extends SettingName>(name: K, raw: unknown): StoredSettings[K] => {
    if (raw === undefined) return cloneDefault(name);
    const value = CHECK[name](raw);
    if (value !== undefined) return value;
    if (!warned.has(name)) {
      warned.add(name);
      onWarning(`ignoring invalid "${name}" in ${file}`);
    }
    return cloneDefault(name);
  };
  return {
    path: file,
    get: (name) => read(name, backend.get(name)),
    set(name, value) {
      if (value === null) return backend.delete(name);
      if (CHECK[name](value) === undefined) throw new UsageError(`invalid value for setting "${name}"`, 'bad_setting');
      backend.set(name, value);
    },
    getAll() {
      const store = backend.store;
      const out = {} as Record<SettingName, unknown>;
      for (const name of NAMES) out[name] = read(name, store[name]);
      return out as unknown as StoredSettings;
    },
  };
}

function cloneDefault<K extends SettingName>(name: K): StoredSettings[K] {
  return (name === 'keys' ? Object.create(null) : DEFAULTS[name]) as StoredSettings[K];
}

/** Settings held in memory only: for tests and for callers that must not touch the user's files. */
export function memorySettings(initial: Partial<StoredSettings> = {}, onWarning: (m: string) => void = () => {}): Settings {
  const data: Record<string, unknown> = structuredClone({ ...initial });
  const backend: Backend = {
    get: (name) => structuredClone(data[name]),
    set: (name, value) => void (data[name] = structuredClone(value)),
    delete: (name) => void delete data[name],
    get store() {
      return structuredClone(data);
    },
  };
  return createSettings(backend, ':memory:', onWarning);
}

/** Opens the settings file (creating its directory 0700), fixing loose permissions with a warning. */
export async function openSettings(options: OpenSettingsOptions = {}): Promise<Settings> {
  const env = options.env ?? process.env;
  const onWarning = options.onWarning ?? (() => {});
  const dir = configDir(env);
  const file = path.join(dir, CONFIG_FILE_NAME);
  try {
    secureDir(dir, onWarning);
    secureFile(file, onWarning);
  } catch (err) {
    throw new UsageError(`cannot prepare settings directory ${dir}: ${(err as Error).message}`, 'bad_config');
  }
  // The file is read once now, so a damaged one is reported before the command does anything.
  const backend = fileBackend(file);
  try {
    void backend.store;
  } catch (err) {
    throw new UsageError(
      `cannot read settings file ${file}: ${(err as Error).message}. Fix it by hand or move it away (it may hold your API keys)`,
      'bad_config',
    );
  }
  return createSettings(backend, file, onWarning);
}

// Unix permission bits mean nothing on Windows, where the profile directory's ACL protects the file.
const CHECK_MODES = process.platform !== 'win32';
const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(4, '0');

function secureDir(dir: string, onWarning: (m: string) => void): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return;
  }
  if (!stat.isDirectory()) throw new Error('not a directory');
  if (CHECK_MODES && (stat.mode & 0o077) !== 0) {
    fs.chmodSync(dir, 0o700);
    onWarning(`fixed permissions on ${dir} (were ${octal(stat.mode)})`);
  }
}

function secureFile(file: string, onWarning: (m: string) => void): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // created 0600 on first write
    throw err;
  }
  if (CHECK_MODES && (stat.mode & 0o077) !== 0) {
    fs.chmodSync(file, 0o600);
    onWarning(`fixed permissions on ${file} (were ${octal(stat.mode)})`);
  }
}
