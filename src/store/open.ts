// Which store backend keeps what is kept: chosen here, by the store URL's scheme, and nowhere else (lint
// refuses an import of a backend from outside store/). No URL: SQLite in the cache directory, the default.
// A backend is loaded only when chosen, so a command that keeps nothing loads none.
//
// The answers (openStore) and an account (openAccount) open apart, by design: `--no-cache` replaces the
// answers with a throwaway store while the account (quota memo, learned rate, the limiter's slots) stays the
// one every run of the account shares; `cache clear` forgets answers, never the account; and a command that
// sends nothing opens no account. A backend over a network shares one connection pool between the two.
//
// Adding a backend: its folder under store/ exporting a `Backend` (backend.ts), one line in BACKENDS, and the
// option that gives its URL (the option table and the resolver); the contract suite gets a file of its own.
import { UsageError } from '../api/errors.js';
import type { ResolvedConfig } from '../config/resolve.js';
import type { Backend, OpenAccountOptions, OpenStoreOptions, StoreStatus, StoreWhere } from './backend.js';
import type { AccountReads, AccountState, ImportCounts, Store } from './contract.js';

export type { OpenAccountOptions, OpenStoreOptions, StoreStatus, StoreWhere } from './backend.js';

/** The backends by URL scheme; '' is the default (no URL). */
const BACKENDS: Readonly<Record<string, () => Promise<Backend>>> = {
  '': async () => (await import('./sqlite/backend.js')).sqlite,
  postgres: async () => (await import('./postgres/backend.js')).postgres,
  postgresql: async () => (await import('./postgres/backend.js')).postgres,
};

/** The backend a store URL names (none: the default); a scheme no backend serves is a usage error. */
async function backendOf(url: string | undefined): Promise<Backend> {
  const scheme = url === undefined || url === '' ? '' : (/^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? null);
  const load = scheme === null ? undefined : BACKENDS[scheme];
  if (load === undefined) {
    const known = Object.keys(BACKENDS).filter((s) => s !== '');
    throw new UsageError(
      `no store backend for ${scheme === null ? 'a URL without a scheme' : `${scheme}:`}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`,
      'bad_store',
    );
  }
  return load();
}

/** Where the configured store is: its URL (none: SQLite) and the cache directory. */
export function storeWhere(config: Pick<ResolvedConfig, 'cacheDir' | 'store'>): StoreWhere {
  return config.store.url === null ? { dir: config.cacheDir } : { url: config.store.url, dir: config.cacheDir };
}

/** Opens (creating if needed) the answer store. */
export async function openStore(o: OpenStoreOptions): Promise<Store> {
  return (await backendOf(o.url)).openStore(o);
}

/** The answer store by its older name, for library callers: `openStore`. */
export const openCache = (o: OpenStoreOptions): Promise<Store> => openStore(o);

/** Opens (creating if needed) the state of one account (base URL and key). */
export async function openAccount(o: OpenAccountOptions): Promise<AccountState> {
  return (await backendOf(o.url)).openAccount(o);
}

/** The reads of every account (quota memos, learned rates) without opening one or creating anything. */
export async function accountReads(o: StoreWhere): Promise<AccountReads> {
  return (await backendOf(o.url)).accountReads(o);
}

/** Removes the store named by a CacheCorruptError's path, unopened: the way out of a damaged one. */
export async function discardStore(where: StoreWhere, path: string): Promise<string[]> {
  return (await backendOf(where.url)).discard(path);
}

/**
 * The newest catalog cached for any service in the local cache directory (summarize's fallback), or null. A
 * shared store holds one service's answers (its catalog is the store's own): nothing else is looked for then.
 */
export async function anyCachedCatalog(where: StoreWhere): Promise<import('./sqlite/any-catalog.js').FoundCatalog | null> {
  if (where.url !== undefined) return null;
  return (await import('./sqlite/any-catalog.js')).anyCachedCatalog(where.dir);
}

/** What the store holds and who uses it now (`store status`), changing nothing in a shared store. */
export async function storeStatus(where: StoreWhere, service: string): Promise<StoreStatus> {
  return (await backendOf(where.url)).status(where, service);
}

/** Brings the store's schema up to this build's version (`store migrate`): the version found before, and now. */
export async function migrateStore(where: StoreWhere, service: string): Promise<{ before: number; after: number }> {
  return (await backendOf(where.url)).migrate(where, service);
}

/**
 * Copies the local SQLite cache of `service` in `fromDir` (its answers and history) into the shared store at
 * `to` (`store import`). What the store holds already is not added again: importing twice adds nothing.
 */
export async function importLocalCache(fromDir: string, to: StoreWhere, service: string): Promise<ImportCounts> {
  if (to.url === undefined)
    throw new UsageError('store import copies the local cache into a shared store: name it with --store or DOMAIN_INTEL_STORE', 'bad_store');
  await mustHoldCache(fromDir, service);
  // The shared store first: one that cannot be reached leaves the local cache unopened.
  const target = await openStore({ ...to, service });
  try {
    // The source is read, never written: opened read-only, as found (not migrated, its journal not merged).
    const [{ openReadOnly }, { serviceCacheFile }] = await Promise.all([import('./sqlite/export.js'), import('./sqlite/cache.js')]);
    const source = await openReadOnly(fromDir, service, serviceCacheFile(service));
    if (source === null) throw new UsageError(`no domain-intel cache of ${service} in ${fromDir}`, 'bad_store');
    try {
      if (target.importAll === undefined) throw new UsageError('this store cannot be copied into that one', 'bad_store');
      return await target.importAll(source.rows());
    } finally {
      source.close();
    }
  } finally {
    await target.close();
  }
}

/**
 * Refuses, in one line, a `store import` source that holds no local cache of `service` (nothing there, a file,
 * or a directory without the cache file): opening it would create an empty cache there and import nothing.
 */
async function mustHoldCache(dir: string, service: string): Promise<void> {
  const [{ existsSync, statSync }, path, { serviceCacheFile }] = await Promise.all([import('node:fs'), import('node:path'), import('./sqlite/cache.js')]);
  const kind = existsSync(dir) ? (statSync(dir).isDirectory() ? 'dir' : 'file') : 'none';
  if (kind === 'none') throw new UsageError(`no domain-intel cache in ${dir}: it does not exist`, 'bad_store');
  if (kind === 'file')
    throw new UsageError(
      `no domain-intel cache in ${dir}: it is a file; give the directory that holds cache.sqlite (such as ${path.dirname(dir)})`,
      'bad_store',
    );
  if (!['cache.sqlite', serviceCacheFile(service)].some((file) => existsSync(path.join(dir, file))))
    throw new UsageError(`no domain-intel cache in ${dir} (it holds no cache.sqlite)`, 'bad_store');
}
