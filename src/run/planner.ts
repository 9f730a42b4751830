// Planning: what each input row needs. A row is invalid, or answered by what this run already knows (a
// lookup in flight, one that failed, a key the service does not hold), or by the cache, or it needs a
// lookup. Decisions only: the planner reads the store it is given and tells its target what it decided; it
// sends nothing and holds no rows. With stale answers allowed it reads the store at any age and decides the
// age itself: an answer too old to use still stands in for an error (the run stopped, the key failed), and
// goes with a key queued, for its rows should the lookup fail (run/waiting-rows.ts, run/stale-answers.ts). Under --changes it reads
// at any age too, with or without stale answers: the answer held goes with the key queued, to compare the
// refreshed one with (row-change.ts); under --no-stale it never stands in.
import type { AnswerStore, StoredAnswer } from '../store/contract.js';
import type { KindSpec } from '../domain/kinds.js';
import { normaliseHost } from '../domain/normalise.js';
import type { ChangeTracker } from './change-tracker.js';
import type { SeenSet } from './seen-keys.js';
import type { StaleUse } from './stale-answers.js';
import { quoteSpanReason } from '../input/quote-span.js';
import type { RunStats } from './stats.js';
import type { InputRecord, RowChange, RowStatus } from '../domain/types.js';

/** Rows planned at once: one cache read and one seen-set pass per chunk, not per row. */
export const PLAN_CHUNK = 256;

/** Where the planner's decisions go (the run wires them to the ordered buffer and the dispatcher). */
export interface PlanTarget {
  /** A row whose outcome is known now; `fetchedAt` when its answer was fetched; `change` under --changes. */
  settled(
    record: InputRecord,
    status: RowStatus,
    host: string | null,
    reason: string | null,
    data: unknown,
    cached: boolean,
    fetchedAt: number | null,
    change?: RowChange,
  ): void;
  /** True when a lookup of `key` is queued or in flight. */
  waiting(key: string): boolean;
  /**
   * A row that waits for the lookup of `key`: queued now, unless it already is or is in flight. `old`: the
   * cache's answer, too old to use, to stand in should the lookup fail (with stale answers allowed) and to
   * compare the new one with (under --changes).
   */
  pending(key: string, record: InputRecord, host: string, old?: StoredAnswer): void;
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
  /** Every name rule 2.9 accepts is looked up (normalise.ts). */
  anyName?: boolean;
  /** Older answers stand in for errors, counted here; null: never (--no-stale). */
  stale: StaleUse | null;
  /** batch --changes: each row's change against the answer held before (row-change.ts); null: off. */
  changes?: ChangeTracker | null;
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
    const stale = dryRun ? null : this.#o.stale;
    const changes = dryRun ? null : (this.#o.changes ?? null);
    // The store is read at any age for an older answer to stand in, or to compare a refreshed one with.
    const anyAge = stale !== null || changes !== null;
    this.#storeWasEmpty ??= this.#o.store.holdsAny?.(spec.endpoint) === false;
    const planned = chunk.map((record) => {
      const n = normaliseHost(record.value, this.#o);
      return { record, n, key: n.ok ? spec.keyOf(n.host) : null };
    });
    const keys = planned.flatMap((p) => (p.key === null ? [] : [p.key]));
    const fresh = seen.add(keys);
    // A repeat of a host this run already knows the service does not hold is answered from that: a missing
    // answer has no body, so its time in the seen-set replaces a read of the cache.
    const knownMissing = fresh.map((f, j) => (f ? null : seen.missingSince(keys[j] as string)));
    const maxAge = this.maxAgeMs();
    // Read at any age, the store's answers are checked for age here (else the store's own check stands).
    const oldest = anyAge ? this.#o.clock() - maxAge : Number.NEGATIVE_INFINITY;
    // A host met for the first time in this run cannot be in a store that was empty when the run began (its
    // answers since then are all about hosts met before), so only repeats are looked for there: half the
    // reads of a fresh 1,000,000-row run. A second process filling the same cache meanwhile is not seen here:
    // its answers are caught just before sending (the dispatcher's check, ledger.ts boughtMeanwhile).
    const storeWasEmpty = this.#storeWasEmpty;
    // A key that failed in this run is read only for an older answer to stand in for the error.
    const lookup = keys.filter(
      (k, i) => knownMissing[i] === null && !to.waiting(k) && (stale !== null || to.failure(k) === undefined) && (fresh[i] ? !storeWasEmpty : !dryRun),
    );
    const readAge = anyAge ? Number.POSITIVE_INFINITY : maxAge;
    const cached: Map<string, StoredAnswer> = lookup.length > 0 ? this.#o.store.getMany(spec.endpoint, [...new Set(lookup)], readAge) : new Map();
    let i = 0;
    for (const { record, n, key } of planned) {
      stats.rows++;
      for (const c of record.cells) stats.inputChars += c.length + 1;
      if (!n.ok || key === null) {
        stats.invalid++;
        to.settled(record, 'invalid', null, n.ok ? 'no registrable domain' : (quoteSpanReason(record) ?? n.reason), null, false, null);
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
      const missingSince = knownMissing[j] ?? null;
      if (missingSince !== null) {
        const change = changes?.fromStore(key, host, { status: 'missing', body: null, fetchedAt: missingSince });
        to.settled(record, 'missing', host, null, null, true, missingSince, change);
        continue;
      }
      const hit = cached.get(key);
      const failed = to.failure(key);
      // (A key that failed is read only with stale answers allowed: an answer of the age wanted found then,
      // another process's, is used as any cache hit.)
      if (hit !== undefined && hit.fetchedAt >= oldest) {
        if (isNew) stats.cacheHits++;
        if (hit.status === 'missing') seen.markMissing(key, hit.fetchedAt);
        this.#fromStore(to, record, host, hit, key, changes);
        continue;
      }
      // Read at any age under --changes too, but only stale answers allowed stand in for an error.
      const old = stale === null ? undefined : hit;
      const cannot = failed ?? (dryRun ? null : to.stopped());
      if (cannot !== null) {
        if (old === undefined) to.settled(record, 'error', host, cannot, null, false, null);
        else {
          stale?.used(1, isNew ? 1 : 0, undefined, cannot);
          this.#fromStore(to, record, host, old, key, changes);
        }
        continue;
      }
      // Under --dry-run a repeat of a host to be looked up is neither asked about nor counted again.
      if (isNew || !dryRun) stats.lookupsNeeded++;
      if (!dryRun) to.pending(key, record, host, changes === null ? old : hit);
    }
    stats.requestsNeeded = Math.ceil(stats.lookupsNeeded / spec.batchSize);
  }

  /** Settles a row with an answer the store holds (of the age wanted, or an older one standing in). */
  #fromStore(to: PlanTarget, record: InputRecord, host: string, answer: StoredAnswer, key: string, changes: ChangeTracker | null): void {
    const data = answer.status === 'found' ? this.#o.spec.fanOut(answer.body, host) : null;
    to.settled(record, answer.status, host, null, data, true, answer.fetchedAt, changes?.fromStore(key, host, answer));
  }
}
