// Persistent settings and API keys: a thin typed layer over conf. The file holds secrets, so it is kept
// 0600 in a 0700 directory, and values read back are checked because users may edit the file by hand.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { UsageError } from '../api/errors.js';
import { PLAN_NAMES, type PlanName } from '../api/types.js';
import { CONFIG_FILE_NAME, configDir, type Env } from './paths.js';
import { secureDir, secureFile } from './settings-modes.js';

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
  /** The forward proxy (password and all: the file is 0600), or `none`. */
  proxy: string | null;
  /** The store URL (a shared PostgreSQL database, password and all: the file is 0600), or null for SQLite. */
  store: string | null;
  // A learned rate is kept per account in the state file (store/sqlite/state.ts). An older build stored
  // `learnedRpm` here: like any field not listed, it is ignored without a warning.
}

type SettingName = keyof StoredSettings;

/** Typed access to the stored settings. */
export interface Settings {
  /** Path of the settings file (':memory:' for memorySettings). */
  readonly path: string;
  /** Reads one setting; invalid stored values read as their default (with a warning). */
  get<K extends SettingName>(name: K): StoredSettings[K];
  /** Writes one setting (through conf, started on the first write); null removes it from the file. */
  set<K extends SettingName>(name: K, value: StoredSettings[K]): Promise<void>;
  /** Every setting at once (one file read). */
  getAll(): StoredSettings;
}

/** The read side only, for code that must not write settings. */
export type SettingsReader = Pick<Settings, 'get' | 'getAll'>;

export interface OpenSettingsOptions {
  env?: Env;
  onWarning?: (message: string) => void;
}

/** Raw storage under the typed layer: the settings file (read directly, written by conf), or memory. */
interface Backend {
  /** Everything stored, read afresh (another process may have changed it). */
  read(): Record<string, unknown>;
  set(name: string, value: unknown): Promise<void>;
  delete(name: string): Promise<void>;
}

const DEFAULTS: StoredSettings = {
  keys: {},
  activeKey: null,
  plan: null,
  rpm: null,
  baseUrl: null,
  proxy: null,
  store: null,
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
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
  proxy: (v) => (isStringOrNull(v) ? v : undefined),
  store: (v) => (isStringOrNull(v) ? v : undefined),
};

const NAMES = Object.keys(DEFAULTS) as SettingName[];

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
    get: (name) => {
      const store = backend.read();
      return read(name, Object.hasOwn(store, name) ? store[name] : undefined);
    },
    async set(name, value) {
      if (value === null) return backend.delete(name);
      if (CHECK[name](value) === undefined) throw new UsageError(`invalid value for setting "${name}"`, 'bad_setting');
      await backend.set(name, value);
    },
    getAll() {
      const store = backend.read();
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
    read: () => structuredClone(data),
    set: async (name, value) => {
      data[name] = structuredClone(value);
    },
    delete: async (name) => void delete data[name],
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
  // A file holding JSON that is no object of settings (an array, a number) is ignored as a whole, and said so
  // once, as a setting of the wrong type is; it is never written to (conf would drop what it stored there).
  let other: string | null = null;
  const read = () =>
    readStore(file, (what) => {
      if (other === null) onWarning(`ignoring ${file}: it holds ${what}, not an object of settings`);
      other = what;
    });
  // The file is read once now, so a damaged one is reported before the command does anything.
  try {
    read();
  } catch (err) {
    throw badFile(file, err);
  }
  const conf = confThread(dir, file);
  const refused = (): never => {
    throw badFile(file, new Error(`it holds ${other}, not an object of settings`));
  };
  const backend: Backend = {
    read,
    set: (name, value) => (other === null ? conf.set(name, value) : refused()),
    delete: (name) => (other === null ? conf.delete(name) : refused()),
  };
  return createSettings(backend, file, onWarning);
}

/**
 * The settings file as conf's `store` reads it: a missing file is empty, one that does not parse throws
 * JSON.parse's SyntaxError (conf runs with clearInvalidConfig: false), an object becomes a plain object, and
 * any other JSON value is empty, told to `other` (what it holds, in words).
 *
 * Reads bypass conf on purpose. Importing conf (ajv, semver, atomically...) costs ~115 ms of a ~200 ms
 * `lookup`, which only needs the key, plan, rate and base URL. conf remains the only writer; it is given an
 * explicit cwd and configName, so its file is plain JSON at a known path that can be read like this.
 */
function readStore(file: string, other: (what: string) => void): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Object.create(null) as Record<string, unknown>;
    throw err;
  }
  const parsed: unknown = JSON.parse(text);
  if (!isObject(parsed)) other(Array.isArray(parsed) ? 'a JSON array' : parsed === null ? 'null' : `a JSON ${typeof parsed}`);
  return Object.assign(Object.create(null) as Record<string, unknown>, isObject(parsed) ? parsed : {});
}

const badFile = (file: string, err: unknown): UsageError =>
  new UsageError(`cannot read settings file ${file}: ${(err as Error).message}. Fix it by hand or move it away (it may hold your API keys)`, 'bad_config');

/** Changes sent to conf's thread, answered in order with nothing or the error. */
type Change = { name: string; value?: unknown };
type Answer = { error?: string; code?: string };

// conf's thread. conf writes through `atomically`, whose exit hook (when-exit) is installed on import and
// answers SIGINT by raising it again: in the main thread, one Ctrl-C would reach the CLI twice, and the second
// ends a run before its answers land. Signals are not delivered to a worker thread, so there the hook stays
// inert and the CLI's own handlers alone do the orderly shutdown. An eval'd script, so the bundle needs no
// entry of its own.
const CONF_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const answer = (err) => parentPort.postMessage(err ? { error: String(err.message), code: err.code } : {});
import(workerData.conf).then(({ default: Conf }) => {
  const conf = new Conf(workerData.options);
  parentPort.on('message', ({ name, value }) => {
    try {
      if (value === undefined) conf.delete(name);
      else conf.set(name, value);
      answer();
    } catch (err) {
      answer(err);
    }
  });
  answer();
}).catch(answer);
`;

/** conf, in its own thread started on the first write: every change to the settings file goes through it. */
function confThread(dir: string, file: string): Pick<Backend, 'set' | 'delete'> {
  const options = {
    // cwd and configName put conf's file at `file` (CONFIG_FILE_NAME), where readStore reads it.
    cwd: dir,
    configName: 'config',
    projectName: 'domain-intel',
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    // Never wipe a file we cannot parse: it may hold the user's only copy of a key.
    clearInvalidConfig: false,
  };
  let worker: Worker | undefined;
  let opened: Promise<void> | undefined;
  const waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  const answered = () => new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
  const open = async (): Promise<void> => {
    // Loaded here, not at the top: `lookup` reads settings but never writes them.
    const { Worker } = await import('node:worker_threads');
    const conf = pathToFileURL(createRequire(import.meta.url).resolve('conf')).href;
    worker = new Worker(CONF_THREAD, { eval: true, workerData: { conf, options } });
    worker.on('message', (a: Answer) => {
      const w = waiting.shift();
      // Idle, the thread must not keep the process alive; a pending change does (see send).
      if (waiting.length === 0) worker?.unref();
      if (a.error === undefined) w?.resolve();
      else w?.reject(Object.assign(new Error(a.error), a.code === undefined ? {} : { code: a.code }));
    });
    const fail = (err: Error) => {
      for (const w of waiting.splice(0)) w.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the settings writer stopped')));
    try {
      await answered();
    } catch (err) {
      throw badFile(file, err);
    }
  };
  const send = async (change: Change): Promise<void> => {
    opened ??= open();
    await opened;
    worker?.ref();
    const done = answered();
    worker?.postMessage(change);
    try {
      await done;
    } catch (err) {
      // A full disk or a read-only directory is met by users: name the file, not "unexpected failure".
      throw new UsageError(`cannot write the settings file ${file}: ${(err as Error).message}`, 'bad_config');
    }
  };
  return { set: (name, value) => send({ name, value }), delete: (name) => send({ name }) };
}
