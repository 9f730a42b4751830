// Shared set-up for the cache tests: a cache on a hand-moved clock, a profile body, a file that is no database.
import type { AnswerStore, StoredAnswer } from '../../src/store/contract.js';
import type { AnswerCache } from '../../src/store/sqlite/cache.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { tempDir } from './helpers.js';

export const DAY = 86_400_000;

/** A profile body as the service gives it. */
export const profile = (domain: string) => ({ domain, resolves: true, technologies: ['Nginx'], traffic: null, employees: null });

/** Text long enough to hold an SQLite header, which it is not. */
export const NOT_A_DATABASE = 'this is not a database, just text that is long enough to hold a header '.repeat(20);

/** A cache whose clock the test moves by hand. */
export async function clockedCache(dir = tempDir()): Promise<{ cache: AnswerCache; clock: { now: number }; dir: string }> {
  const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
  const cache = await openCache({ dir, clock: () => clock.now });
  return { cache, clock, dir };
}

/** Stores one answer, as a single lookup does. */
export async function putOne(cache: AnswerStore, endpoint: string, host: string, status: 'found' | 'missing', body: unknown): Promise<void> {
  await cache.putMany([{ endpoint, host, status, body }]);
}

/** The answer held for one host, if fetched within `maxAgeMs`, else null. */
export async function get(store: AnswerStore, endpoint: string, host: string, maxAgeMs: number): Promise<StoredAnswer | null> {
  return (await store.getMany(endpoint, [host], maxAgeMs)).get(host) ?? null;
}
