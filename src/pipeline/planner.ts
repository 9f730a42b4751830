// Planning: what each input row needs. A row is invalid, or answered by what this run already knows (a
// lookup in flight, one that failed, a key the service does not hold), or by the cache, or it needs a
// lookup. Decisions only: the planner reads the store it is given and tells its target what it decided; it
// sends nothing and holds no rows.
import type { AnswerStore } from './answer-store.js';
import type { KindSpec } from './kinds.js';
import { normaliseHost } from './normalise.js';
import type { SeenSet } from './seen.js';
import type { RunStats } from './stats.js';
import type { InputRecord, RowStatus } from './types.js';

/** Rows planned at once: one cache read and one seen-set pass per chunk, not per row. */
export const PLAN_CHUNK = 256;

/** Where the planner's decisions go (the run wires them to the ordered buffer and the dispatcher). */
export interface PlanTarget {
  /** A row whose outcome is known now. */
  settled(record: InputRecord, status: RowStatus, host: string | null, reason: string | null, data: unknown, cached: boolean): void;
  /** True when a lookup of `key` is queued or in flight. */
  waiting(key: string): boolean;
  /** A row that waits for the lookup of `key`: queued now, unless it already is or is in flight. */
  pending(key: string, record: InputRecord, host: string): void;
  /** Why the lookup of `key` failed earlier in this run, if it did. */
  failure(key: string): string | undefined;
  /** Why nothing more is sent, once the run stopped; else null. */
  stopped(): string | null;
}

export interface PlannerOptions {
  spec: KindSpec;
  store: AnswerStore;
  /** Keys met in this run, and which of them the service does not hold. */
  seen: SeenSet;
  stats: RunStats;
  /** Oldest cached answer still used. */
  maxAgeMs: number;
  /** Use only answers fetched during this run. */
  refresh: boolean;
  /** Count what would be looked up; plan no lookup. */
  dryRun: boolean;
  clock: () => number;
}

/** Plans chunks of input rows; counts rows, invalid rows, duplicates, cache hits and lookups needed. */
export class Planner {
  readonly #o: PlannerOptions;
  /** The store held nothing for this endpoint when planning began (see plan). */
  #storeWasEmpty: boolean | null = null;

  constructor(o: PlannerOptions) {
    this.#o = o;
  }

  /** The oldest answer the run takes from the store: --max-age, or under --refresh those of this run only. */
  maxAgeMs(): number {
    return this.#o.refresh ? this.#o.clock() - this.#o.stats.startedAt : this.#o.maxAgeMs;
  }

  /** Plans `chunk` (rows in input order) and hands each decision to `to`. */
  plan(chunk: InputRecord[], to: PlanTarget): void {
    const { spec, seen, stats, dryRun } = this.#o;
    this.#storeWasEmpty ??= this.#o.store.holdsAny?.(spec.endpoint) === false;
    const planned = chunk.map((record) => {
      const n = normaliseHost(record.value);
      return { record, n, key: n.ok ? spec.keyOf(n.host) : null };
    });
    const keys = planned.flatMap((p) => (p.key === null ? [] : [p.key]));
    const fresh = seen.add(keys);
    // A repeat of a host this run already knows the service does not hold is answered from that: a missing
    // answer has no body, so one bit in the seen-set replaces a read of the cache.
    const knownMissing = fresh.map((f, j) => !f && seen.isMissing(keys[j] as string));
    const maxAge = this.maxAgeMs();
    // A host met for the first time in this run cannot be in a store that was empty when the run began (its
    // answers since then are all about hosts met before), so only repeats are looked for there: half the
    // reads of a fresh 1,000,000-row run. A second process filling the same cache meanwhile is not seen here:
    // its answers are caught just before sending (the dispatcher's check, ledger.ts boughtMeanwhile).
    const storeWasEmpty = this.#storeWasEmpty;
    const lookup = keys.filter((k, i) => !knownMissing[i] && !to.waiting(k) && to.failure(k) === undefined && (fresh[i] ? !storeWasEmpty : !dryRun));
    const cached = lookup.length > 0 ? this.#o.store.getMany(spec.endpoint, [...new Set(lookup)], maxAge) : new Map();
    let i = 0;
    for (const { record, n, key } of planned) {
      stats.rows++;
      if (!n.ok || key === null) {
        stats.invalid++;
        to.settled(record, 'invalid', null, n.ok ? 'no registrable domain' : n.reason, null, false);
        continue;
      }
      stats.valid++;
      const j = i++;
      const isNew = fresh[j] === true;
      if (!isNew) stats.duplicates++;
      const host = n.host;
      if (to.waiting(key)) {
        to.pending(key, record, host);
        continue;
      }
      const failed = to.failure(key);
      if (failed !== undefined) {
        to.settled(record, 'error', host, failed, null, false);
        continue;
      }
      if (knownMissing[j]) {
        to.settled(record, 'missing', host, null, null, true);
        continue;
      }
      const hit = cached.get(key);
      if (hit) {
        if (isNew) stats.cacheHits++;
        if (hit.status === 'missing') seen.markMissing(key);
        to.settled(record, hit.status, host, null, hit.status === 'found' ? spec.fanOut(hit.body, host) : null, true);
        continue;
      }
      const stopped = dryRun ? null : to.stopped();
      if (stopped !== null) {
        to.settled(record, 'error', host, stopped, null, false);
        continue;
      }
      // Under --dry-run a repeat of a host to be looked up is neither asked about nor counted again.
      if (isNew || !dryRun) stats.lookupsNeeded++;
      if (!dryRun) to.pending(key, record, host);
    }
    stats.requestsNeeded = Math.ceil(stats.lookupsNeeded / spec.batchSize);
  }
}
