// A single lookup with the same rules as a run: the cache first, then one request with the retry rule, and
// the answer (found or not found: both cost) stored before it is returned.
import { NotFoundError } from '../api/errors.js';
import { withRetry, type WithRetryOptions } from '../api/retry.js';
import type { ApiResponse, QuotaInfo } from '../api/types.js';
import type { AnswerStore } from './answer-store.js';

export interface OneResult<T> {
  status: 'found' | 'missing';
  data: T | null;
  /** Epoch ms of the cached answer, or null when it came from the network now. */
  cachedAt: number | null;
  quota: QuotaInfo | null;
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
}

/** Looks one key up: from the cache when fresh, else from the service (a 404 is cached as missing). */
export async function lookupOne<T>(opts: OneOptions<T>): Promise<OneResult<T>> {
  if (opts.store && !opts.refresh) {
    const hit = opts.store.getMany(opts.endpoint, [opts.key], opts.maxAgeMs).get(opts.key);
    if (hit) return { status: hit.status, data: hit.status === 'found' ? (hit.body as T) : null, cachedAt: hit.fetchedAt, quota: null };
  }
  try {
    const r = await withRetry(opts.fetch, opts);
    opts.store?.putMany([{ endpoint: opts.endpoint, host: opts.key, status: 'found', body: r.data }]);
    return { status: 'found', data: r.data, cachedAt: null, quota: r.quota };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    opts.store?.putMany([{ endpoint: opts.endpoint, host: opts.key, status: 'missing', body: null }]);
    return { status: 'missing', data: null, cachedAt: null, quota: err.quota };
  }
}
