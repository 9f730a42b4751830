// The catalog, from the local cache when fresh (spec §4 rule 3 advises caching it), else from the service.
import type { CatalogCategory } from '../api/types.js';
import { keptStore } from '../pipeline/kept.js';
import { lookupOne } from '../pipeline/one.js';
import type { Context } from './context.js';

/** Catalogs change with each data release; a week is a fair default age. */
const CATALOG_MAX_AGE_MS = 7 * 86_400_000;

/** The catalog and, when it came from the cache, when it was fetched. */
export async function loadCatalog(ctx: Context, refresh: boolean): Promise<{ categories: CatalogCategory[]; cachedAt: number | null }> {
  const [client, store] = await Promise.all([ctx.client(), ctx.store()]);
  // A cache that cannot be written costs only the catalog's keeping (it is free to fetch again): a warning.
  const kept = { notKept: 0, notKeptCause: null as string | null };
  const r = await lookupOne<CatalogCategory[]>({
    endpoint: 'catalog',
    key: '',
    fetch: (patience) => client.catalog({ patience }),
    store: store && keptStore(store, { stats: kept, clock: Date.now }),
    maxAgeMs: CATALOG_MAX_AGE_MS,
    refresh,
    signal: ctx.interrupted,
  });
  if (kept.notKept > 0) ctx.logger.warn(`${kept.notKeptCause}: the catalog is not kept, and is fetched again next time`);
  return { categories: r.data ?? [], cachedAt: r.cachedAt };
}
