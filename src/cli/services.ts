// Lazy access to what commands share: settings, configuration, the client, the account state and the cache.
// Each is created on first use, so `keys list` never loads undici and `keys add` never opens SQLite.
import type { DomainIntelClient } from '../api/client.js';
import { InvalidKeyError } from '../api/errors.js';
import type { QuotaInfo } from '../api/types.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Settings } from '../config/settings.js';
import { storageTrouble } from '../store/errors.js';
import { checkKeyShape, KEY_ENV } from '../config/keys.js';
import type { AccountState, Store } from '../store/contract.js';
import type { GivenOptions, Opts } from './options/table.js';
import { type Io, timing } from './io.js';
import type { Logger } from './output/logger.js';
import { ENV_KEY_SOURCE } from './report/hints.js';

export interface Services {
  settings(): Promise<Settings>;
  config(): Promise<ResolvedConfig>;
  /** A client for the configured service; it asks for the key on its first request (InvalidKeyError when none is usable). */
  client(): Promise<DomainIntelClient>;
  /** The state of the account in use (quota memo, learned rate, shared limiter slots); opened with the client. */
  state(): Promise<AccountState>;
  /** The answer store, or null under --no-cache. */
  store(): Promise<Store | null>;
  /** The newest quota seen during this command. */
  readonly quota: QuotaInfo | null;
  /** Where the key in use came from, for messages ('the stored key "work"'); null before config(). */
  readonly keySource: string | null;
  /** The base URL in use and where it came from ('the base URL comes from DOMAIN_INTEL_BASE_URL'), for messages; null before config(). */
  readonly baseUrl: { url: string; source: string; proxy: { shown: string; from: string } | null } | null;
}

export interface ServiceDeps {
  opts: Opts<string>;
  /** The options typed on the command line (not commander's defaults): the flags layer of the config. */
  flags: GivenOptions;
  env: NodeJS.ProcessEnv;
  /** The clock the client reads and waits on, and the dispatcher its requests go through (tests). */
  io: Pick<Io, 'clock' | 'dispatcher'>;
  logger: Logger;
  /** The key is added here once known, so every message can mask it. */
  secrets: string[];
  /** Registers work to run when the command ends (closing the client and the cache). */
  onClose(fn: () => Promise<void> | void): void;
}

/** The services of one command, none created yet. */
export function createServices({ opts, flags, env, io, logger, secrets, onClose }: ServiceDeps): Services {
  let settingsP: Promise<Settings> | undefined;
  let configP: Promise<ResolvedConfig> | undefined;
  let clientP: Promise<DomainIntelClient> | undefined;
  let storeP: Promise<Store | null> | undefined;
  let stateP: Promise<AccountState> | undefined;
  let keySource: string | null = null;
  let baseUrl: Services['baseUrl'] = null;
  let lastQuota: QuotaInfo | null = null;

  const services: Services = {
    get quota() {
      return lastQuota;
    },
    get keySource() {
      return keySource;
    },
    get baseUrl() {
      return baseUrl;
    },
    settings() {
      settingsP ??= import('../config/settings.js').then((m) => m.openSettings({ env, onWarning: (w) => logger.warn(w) }));
      return settingsP;
    },
    config() {
      configP ??= (async () => {
        const [{ resolveConfig }, settings] = await Promise.all([import('../config/resolve.js'), services.settings()]);
        const config = resolveConfig({
          flags,
          env,
          settings,
          onWarning: (w) => logger.warn(w),
        });
        if (config.key) {
          secrets.push(config.key.key);
          keySource = config.key.source === 'env' ? ENV_KEY_SOURCE : `the stored key "${config.key.name ?? ''}"`;
        }
        const { url, shown, from } = config.proxy;
        const proxy = url !== null && shown !== null && from !== null ? { shown, from } : null;
        baseUrl = { url: config.baseUrl, source: BASE_URL_SOURCE[config.sources.baseUrl], proxy };
        const { proxyPassword } = await import('../config/proxy.js');
        // Kept off every message as the key is: the proxy's password, and a store URL's (shown masked anyway).
        for (const password of [proxyPassword(config.proxy.url), proxyPassword(config.store.url)]) if (password !== null) secrets.push(password);
        return config;
      })();
      return configP;
    },
    client() {
      clientP ??= (async () => {
        // The module loads while the settings are read and the state file opens, not after: each waits on the disk.
        const [config, { DomainIntelClient }, state] = await Promise.all([services.config(), import('../api/client.js'), services.state()]);
        const noted = recorder(state, logger, io.clock);
        noteProxy(config, logger);
        const client = new DomainIntelClient({
          baseUrl: config.baseUrl,
          proxy: config.proxy.url,
          // Asked for on the first request that must go: answers the cache holds are served without a key.
          apiKey: () => requireKey(config),
          timeoutMs: opts.timeout,
          windowMs: config.windowMs,
          ...timing(io.clock),
          ...(io.dispatcher ? { dispatcher: io.dispatcher } : {}),
          onQuota: (q) => {
            lastQuota = q;
            noted.quota(q);
          },
          onResponse: (r) => {
            logger.debug(`${r.method} ${r.path} -> ${r.status ?? r.error ?? '?'} in ${r.ms} ms`);
            noted.response(r.status);
          },
        });
        // Registered after the state's closer, so it runs first: answers in flight land and are noted.
        onClose(() => client.close());
        return client;
      })();
      return clientP;
    },
    state() {
      stateP ??= (async () => {
        const [config, { openAccount, storeWhere }, { memoryAccount }, { CacheCorruptError, CacheUnavailableError }] = await Promise.all([
          services.config(),
          import('../store/open.js'),
          import('../store/account.js'),
          import('../store/errors.js'),
        ]);
        // Without a usable key nothing will be sent (the client refuses before its first request): the
        // account is unknown, so nothing is read or kept for it.
        if (usableKey(config) === null) return memoryAccount(config.baseUrl, '');
        const key = requireKey(config);
        try {
          // In the cache directory even under --no-cache: the quota and the limiter are not answers.
          // Said under --debug only: when its disk fills, the cache's own warning (answers not kept) is the one warning
          // the run gives; the state file's trouble costs pacing shared with other runs, not money.
          const state = await openAccount({ ...storeWhere(config), baseUrl: config.baseUrl, key, onTrouble: (w) => logger.debug(w) });
          onClose(() => state.close());
          return state;
        } catch (err) {
          // Under --no-cache (the way out the error itself suggests) what is kept between runs is not worth
          // failing a lookup for: go on without it, and say so once. With the cache, the error stands.
          if (config.useCache || !(err instanceof CacheUnavailableError || err instanceof CacheCorruptError)) throw err;
          logger.warn(
            `${err.message.split('; ')[0]}; going on without it: no quota memo or learned rate is kept, and the rate limit is not shared with other runs`,
          );
          return memoryAccount(config.baseUrl, key);
        }
      })();
      return stateP;
    },
    store() {
      storeP ??= (async () => {
        const [config, { openStore, storeWhere }] = await Promise.all([services.config(), import('../store/open.js')]);
        if (!config.useCache) return null;
        const cache = await openStore({ ...storeWhere(config), service: config.baseUrl });
        onClose(() => cache.close());
        return cache;
      })();
      return storeP;
    },
  };
  return services;
}

/**
 * The proxy requests go through, said under --debug; and a warning when the key would cross it in clear: a
 * plain http:// base URL goes through a proxy as requests it reads (headers and all), not a sealed tunnel.
 */
function noteProxy(config: ResolvedConfig, logger: Logger): void {
  const p = config.proxy;
  if (p.bypassedBy !== null) logger.debug(`NO_PROXY holds ${p.bypassedBy}: ${config.baseUrl} is reached directly, not through ${p.shown}`);
  if (p.url === null) return;
  logger.debug(`requests go through the proxy ${p.shown} (from ${p.from})`);
  if (new URL(config.baseUrl).protocol === 'http:') {
    logger.warn(
      `the API key crosses the proxy ${p.shown} in clear: the base URL ${config.baseUrl} is plain http; use an https:// base URL, or NO_PROXY to go direct`,
    );
  }
}

/** Where a base URL came from, as a message says it (ResolvedConfig.sources.baseUrl). */
const BASE_URL_SOURCE: Readonly<Record<ResolvedConfig['sources']['baseUrl'], string>> = {
  default: 'no base URL was set, so the built-in default is used',
  stored: 'the base URL comes from the stored setting (config set base-url)',
  env: 'the base URL comes from DOMAIN_INTEL_BASE_URL',
  flag: 'the base URL comes from --base-url',
  plan: 'the base URL comes from the plan',
};

/** The key when there is one of the right shape (spec §5.2), else null. */
function usableKey(config: ResolvedConfig): string | null {
  return config.key && checkKeyShape(config.key.key) === null ? config.key.key : null;
}

/**
 * The key to send: refused (InvalidKeyError, exit 6) when there is none or it is not of the shape §5.2 gives
 * (a fixed prefix and 48 hexadecimal characters), before anything is sent: a malformed key can only be
 * answered 401, and a batch would spend its first request learning that.
 */
function requireKey(config: ResolvedConfig): string {
  if (!config.key) {
    throw new InvalidKeyError('no API key: store one with `domain-intel keys add` (reads stdin) or set DOMAIN_INTEL_API_KEY', { code: 'invalid_key' });
  }
  const problem = checkKeyShape(config.key.key);
  if (problem === null) return config.key.key;
  const where = config.key.source === 'env' ? KEY_ENV : `the stored key "${config.key.name ?? ''}"`;
  throw new InvalidKeyError(`${where} is not an API key (nothing was sent): ${problem}`, { code: 'malformed_key' });
}

/**
 * Notes every metered answer's quota in the account state as it arrives (one small write), so a killed run
 * still leaves it. A write that fails mid-run (disk full, a lock held too long) costs only the memo: it is
 * warned about once and the paid run goes on.
 */
function recorder(state: AccountState, logger: Logger, clock: Io['clock']): { response(status: number | null): void; quota(q: QuotaInfo): void } {
  let warned = false;
  // The response being handled: the client reports a response's status, then (at once, in the same
  // synchronous step) its quota headers if it had any.
  let current = { headers: false };
  const attempt = (write: Promise<void>) => {
    write.catch((err: unknown) => {
      const trouble = storageTrouble(err) ?? (err as Error).message;
      if (!warned) logger.debug(`the account state file cannot be written (${trouble}): the quota seen in this run is not kept for the next`);
      warned = true;
    });
  };
  return {
    response(status) {
      const response = { headers: false };
      current = response;
      if (status !== 402) return;
      // A microtask later this 402 is known to have carried no quota headers or some. Without any it means
      // nothing is left; with them it may still show lookups left (a batch larger than what remains).
      const at = clock.now();
      queueMicrotask(() => {
        if (!response.headers) attempt(state.noteExhausted(at));
      });
    },
    quota(q) {
      current.headers = true;
      attempt(state.noteQuota(q));
    },
  };
}
