// Lazy access to what commands share: settings, configuration, the client and the cache. Each is created
// on first use, so `keys list` never loads undici and `lookup` never opens SQLite unless it needs to.
import type { DomainIntelClient } from '../api/client.js';
import { InvalidKeyError } from '../api/errors.js';
import type { QuotaInfo } from '../api/types.js';
import type { AnswerCache } from '../store/cache.js';
import type { ResolvedConfig } from '../store/config.js';
import type { Settings } from '../store/settings.js';
import type { GivenOptions, Opts } from './options.js';
import type { Logger } from './output/logger.js';

export interface Services {
  settings(): Promise<Settings>;
  config(): Promise<ResolvedConfig>;
  /** A client for the configured service; throws InvalidKeyError when there is no key. */
  client(): Promise<DomainIntelClient>;
  /** The answer cache, or null under --no-cache. */
  store(): Promise<AnswerCache | null>;
  /** The newest quota seen during this command. */
  readonly quota: QuotaInfo | null;
  /** Where the key in use came from, for messages ('the stored key "work"'); null before config(). */
  readonly keySource: string | null;
}

export interface ServiceDeps {
  opts: Opts<string>;
  /** The options typed on the command line (not commander's defaults): the flags layer of the config. */
  flags: GivenOptions;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** The key is added here once known, so every message can mask it. */
  secrets: string[];
  /** Registers work to run when the command ends (closing the client and the cache). */
  onClose(fn: () => Promise<void> | void): void;
}

/** The services of one command, none created yet. */
export function createServices({ opts, flags, env, logger, secrets, onClose }: ServiceDeps): Services {
  let settingsP: Promise<Settings> | undefined;
  let configP: Promise<ResolvedConfig> | undefined;
  let clientP: Promise<DomainIntelClient> | undefined;
  let storeP: Promise<AnswerCache | null> | undefined;
  let keySource: string | null = null;
  let lastQuota: QuotaInfo | null = null;

  const services: Services = {
    get quota() {
      return lastQuota;
    },
    get keySource() {
      return keySource;
    },
    settings() {
      settingsP ??= import('../store/settings.js').then((m) => m.openSettings({ env, onWarning: (w) => logger.warn(w) }));
      return settingsP;
    },
    config() {
      configP ??= (async () => {
        const [{ resolveConfig }, settings] = await Promise.all([import('../store/config.js'), services.settings()]);
        const config = resolveConfig({
          flags,
          env,
          settings,
          onWarning: (w) => logger.warn(w),
        });
        if (config.key) {
          secrets.push(config.key.key);
          keySource = config.key.source === 'env' ? 'the key in DOMAIN_INTEL_API_KEY' : `the stored key "${config.key.name ?? ''}"`;
        }
        return config;
      })();
      return configP;
    },
    client() {
      clientP ??= (async () => {
        // The module loads while the settings are read, not after: each import() waits on the disk.
        const [config, { DomainIntelClient }] = await Promise.all([services.config(), import('../api/client.js')]);
        if (!config.key) {
          throw new InvalidKeyError('no API key: store one with `domain-intel keys add` (reads stdin) or set DOMAIN_INTEL_API_KEY', { code: 'invalid_key' });
        }
        const client = new DomainIntelClient({
          baseUrl: config.baseUrl,
          apiKey: config.key.key,
          timeoutMs: opts.timeout,
          windowMs: config.windowMs,
          onQuota: (q) => {
            lastQuota = q;
          },
          onResponse: (r) => logger.debug(`${r.method} ${r.path} -> ${r.status ?? r.error ?? '?'} in ${r.ms} ms`),
        });
        onClose(async () => {
          await client.close();
          // Kept in the cache file (even under --no-cache), not the settings file: see recordLastQuota.
          if (lastQuota) await (await import('../store/quota-memo.js')).recordLastQuota({ dir: config.cacheDir }, lastQuota);
        });
        return client;
      })();
      return clientP;
    },
    store() {
      storeP ??= (async () => {
        const [config, { openCache }] = await Promise.all([services.config(), import('../store/cache.js')]);
        if (!config.useCache) return null;
        const cache = await openCache({ dir: config.cacheDir });
        onClose(() => cache.close());
        return cache;
      })();
      return storeP;
    },
  };
  return services;
}
