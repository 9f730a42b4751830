// A single lookup with the same rules as a run: the cache first, then one request with the retry rule, and
// the answer (found or not found: both cost) stored before it is returned. As in a run, a cached answer too
// old to use stands in when a fresh one cannot be had (run/stale-answers.ts), unless the caller turns that off.
import { AbortedError, NotFoundError } from '../api/errors.js';
import { withRetry, type WithRetryOptions } from '../api/retry.js';
import type { ApiResponse, QuotaInfo } from '../api/types.js';
import type { AnswerStore } from '../store/contract.js';
import { failureCause, mayStandIn } from './stale-answers.js';

export interface OneResult<T> {
  status: 'found' | 'missing';
  data: T | null;
  /** Epoch ms of the cached answer, or null when it came from the network now. */
  cachedAt: number | null;
  /** When the answer was fetched from the service (epoch ms): cachedAt, or when it was recorded now. */
  fetchedAt: number;
  quota: QuotaInfo | null;
  /** Why a fresh answer could not be had, when the cached answer is older than maxAgeMs (or --refresh); else null. */
  staleCause: string | null;
}

export interface OneOptions<T> extends WithRetryOptions {
  /** Cache endpoint name: domain, traffic or employees. */
  endpoint: string;
  /** Cache key: the host, or the apex for employees. */
  key: string;
  /** One attempt; `patience` multiplies the client's timeout (retry.ts doubles it after a timeout). */
  fetch: (patience: number) => Promise<ApiResponse<T>>;
  store: AnswerStore | null;
  maxAgeMs: number;
  refresh?: boolean;
  /** An answer older than maxAgeMs (any cached one under refresh) stands in for a failure (default true). */
  stale?: boolean;
}

/** Looks one key up: from the cache when fresh, else from the service (a 404 is cached as missing). */
export async function lookupOne<T>(opts: OneOptions<T>): Promise<OneResult<T>> {
  const stale = opts.stale !== false;
  const now = opts.clock ?? Date.now;
  // With stale answers allowed the cache is read at any age and the age decided here.
  const hit = (await opts.store?.getMany(opts.endpoint, [opts.key], stale ? Number.POSITIVE_INFINITY : opts.maxAgeMs))?.get(opts.key);
  const fresh = hit !== undefined && !opts.refresh && (!stale || hit.fetchedAt >= now() - opts.maxAgeMs);
  if (hit && fresh) return { status: hit.status, data: body<T>(hit), cachedAt: hit.fetchedAt, fetchedAt: hit.fetchedAt, quota: null, staleCause: null };
  try {
    const r = await withRetry(opts.fetch, opts);
    const at = await opts.store?.putMany([{ endpoint: opts.endpoint, host: opts.key, status: 'found', body: r.data }]);
    return { status: 'found', data: r.data, cachedAt: null, fetchedAt: at ?? now(), quota: r.quota, staleCause: null };
  } catch (err) {
    if (err instanceof NotFoundError) {
      const at = await opts.store?.putMany([{ endpoint: opts.endpoint, host: opts.key, status: 'missing', body: null }]);
      return { status: 'missing', data: null, cachedAt: null, fetchedAt: at ?? now(), quota: err.quota, staleCause: null };
    }
    // Ctrl-C on one lookup means stop, not "show me what you have": unlike a run's rows, nothing stands in.
    if (!stale || hit === undefined || err instanceof AbortedError || !mayStandIn(err)) throw err;
    const quota = (err as { quota?: QuotaInfo | null }).quota ?? null;
    return { status: hit.status, data: body<T>(hit), cachedAt: hit.fetchedAt, fetchedAt: hit.fetchedAt, quota, staleCause: failureCause(err) };
  }
}

function body<T>(hit: { status: 'found' | 'missing'; body: unknown }): T | null {
  return hit.status === 'found' ? (hit.body as T) : null;
}
