// The catalog, from the local cache when fresh (spec §4 rule 3 advises caching it), else from the service.
import type { CatalogCategory } from '../../api/types.js';
import type { AnswerStore } from '../../store/contract.js';
import { keptStore } from '../../run/failsafe-store.js';
import { lookupOne } from '../../run/single-lookup.js';
import type { Context } from '../context.js';
import { timing } from '../io.js';

/** Catalogs change with each data release; a week is a fair default age. */
const CATALOG_MAX_AGE_MS = 7 * 86_400_000;

/**
 * True when a catalog fetched at `fetchedAt` may predate the data release in force at `now`. The service
 * releases its data monthly (the sandbox's releases are months, YYYY-MM); the spec gives no release date, so
 * a copy fetched in an earlier calendar month (UTC) may be a release behind.
 */
export function mayPredateRelease(fetchedAt: number, now: number): boolean {
  const month = (t: number): number => new Date(t).getUTCFullYear() * 12 + new Date(t).getUTCMonth();
  return month(fetchedAt) < month(now);
}

/** The cached catalog, at any age, or null when none is held (no store, or never fetched): never fetched here. */
export async function cachedCatalog(store: AnswerStore | null): Promise<CatalogCategory[] | null> {
  const hit = (await store?.getMany('catalog', [''], Number.POSITIVE_INFINITY))?.get('');
  return hit !== undefined && Array.isArray(hit.body) ? (hit.body as CatalogCategory[]) : null;
}

/** The catalog and, when it came from the cache, when it was fetched (and why it was not fetched afresh). */
export async function loadCatalog(
  ctx: Context,
  refresh: boolean,
): Promise<{ categories: CatalogCategory[]; cachedAt: number | null; staleCause: string | null }> {
  const [client, store] = await Promise.all([ctx.client(), ctx.store()]);
  // A cache that cannot be written costs only the catalog's keeping (it is free to fetch again): a warning.
  const kept = { notKept: 0, notKeptCause: null as string | null };
  const r = await lookupOne<CatalogCategory[]>({
    endpoint: 'catalog',
    key: '',
    fetch: (patience) => client.catalog({ patience }),
    store: store && keptStore(store, { stats: kept, clock: () => ctx.io.clock.now() }),
    ...timing(ctx.io.clock),
    maxAgeMs: CATALOG_MAX_AGE_MS,
    refresh,
    signal: ctx.interrupted,
    timeoutMs: client.timeoutMs, // the cap on the request's time follows --timeout (api/retry.ts)
  });
  if (kept.notKept > 0) ctx.logger.warn(`${kept.notKeptCause}: the catalog is not kept, and is fetched again next time`);
  return { categories: r.data ?? [], cachedAt: r.cachedAt, staleCause: r.staleCause };
}
