// Which rows wait on which lookup, and which lookups failed in this run: what planning asks before it queues
// a key, and what an answer settles. A key is queued once however many rows carry it. A key queued while the
// cache holds an answer too old to use keeps that answer here until its lookup ends: should the lookup fail
// or the run stop first, its rows get the old answer rather than an error (run/stale-answers.ts). Under --changes the key
// keeps it too (even under --no-stale, where it never stands in): a fresh answer is compared with it once,
// for all the key's rows (row-change.ts).
import type { StoredAnswer } from '../store/contract.js';
import type { KindSpec } from '../domain/kinds.js';
import type { OrderedBuffer, Slot } from './ordered-buffer.js';
import type { ChangeTracker } from './change-tracker.js';
import type { SeenSet } from './seen-keys.js';
import { mayStandIn, type StaleUse } from './stale-answers.js';
import type { RowChange, RowStatus, RunKind } from '../domain/types.js';

/** Rows waiting on each key queued or in flight, and the reasons of keys that failed. */
export class Waiting<K extends RunKind> {
  readonly #rows = new Map<string, Slot<K>[]>();
  readonly #failed = new Map<string, string>();
  /** Keys whose first row in the run is waiting (holdFirst). */
  readonly #firsts = new Set<string>();
  /**
   * Older answers of keys queued or in flight, for their rows should no fresh one come. Held only while the
   * key waits (dropped when it settles), so this is bounded by the keys queued: at most the rows buffered.
   */
  readonly #old = new Map<string, StoredAnswer>();
  /** The error a key's lookup gave up on, told just before its rows settle (failedWith). */
  readonly #errors = new Map<string, unknown>();
  readonly #buffer: OrderedBuffer<K>;
  readonly #spec: KindSpec;
  readonly #seen: SeenSet;
  readonly #stale: StaleUse | null;
  readonly #clock: () => number;
  readonly #changes: ChangeTracker | null;

  /**
   * `stale`: how older answers are counted when they stand in for failures; null turns that off. `changes`:
   * batch --changes (row-change.ts); null: off.
   */
  constructor(
    buffer: OrderedBuffer<K>,
    spec: KindSpec,
    seen: SeenSet,
    stale: StaleUse | null = null,
    clock: () => number = Date.now,
    changes: ChangeTracker | null = null,
  ) {
    this.#buffer = buffer;
    this.#spec = spec;
    this.#seen = seen;
    this.#stale = stale;
    this.#clock = clock;
    this.#changes = changes;
  }

  /** Keys queued or in flight. */
  get size(): number {
    return this.#rows.size;
  }

  /** True when a lookup of `key` is queued or in flight. */
  has(key: string): boolean {
    return this.#rows.has(key);
  }

  /** Notes that the first row of `key` in the run waits among its rows. */
  holdFirst(key: string): void {
    this.#firsts.add(key);
  }

  /**
   * True when the first row of `key` in the run is among those waiting: a cache hit found for them now is the
   * key's, counted once. A repeat queued again (another process's answer not yet where the planner reads, its
   * first row answered earlier) is not: counted each time, "from cache" plus lookups exceeded the distinct hosts.
   */
  holdsFirst(key: string): boolean {
    return this.#firsts.has(key);
  }

  /** Adds a row to those waiting on `key`; true when it is the first (the key is then to be queued). */
  add(key: string, slot: Slot<K>): boolean {
    const rows = this.#rows.get(key);
    if (rows) rows.push(slot);
    else this.#rows.set(key, [slot]);
    return rows === undefined;
  }

  /** Keeps `old`, the cache's answer for `key` too old to use, for its rows should the lookup fail (or to compare). */
  holdOld(key: string, old: StoredAnswer): void {
    if ((this.#stale !== null || this.#changes !== null) && this.#rows.has(key)) this.#old.set(key, old);
  }

  /** Notes the error the lookups of `keys` gave up on, just before their rows are settled as errors. */
  failedWith(keys: readonly string[], err: unknown): void {
    if (this.#stale === null) return;
    for (const key of keys) if (this.#old.has(key)) this.#errors.set(key, err);
  }

  /** The host sent for `key`: that of the first row waiting on it (an apex is looked up through a host). */
  hostOf(key: string): string {
    return this.#rows.get(key)?.[0]?.row.host ?? key;
  }

  /** Why the lookup of `key` failed in this run, if it did. */
  failure(key: string): string | undefined {
    return this.#failed.get(key);
  }

  /**
   * Settles every row waiting on `key`, `cached` when the answer came from the cache, fetched at `fetchedAt`
   * (default: now, for an answer just recorded). A failure is remembered for later rows; a 'missing' answer is
   * noted in the seen-set for repeats. An error is replaced by the key's older answer when there is one.
   */
  settle(key: string, status: RowStatus, data: unknown, reason: string | null, remember = false, cached = false, fetchedAt?: number): void {
    if (remember && reason !== null) this.#failed.set(key, reason);
    const slots = this.#rows.get(key) ?? [];
    const host = slots[0]?.row.host ?? key;
    this.#rows.delete(key);
    this.#firsts.delete(key);
    const old = this.#old.get(key);
    const err = this.#errors.get(key);
    this.#old.delete(key);
    this.#errors.delete(key);
    let at: number | null = status === 'error' ? null : (fetchedAt ?? this.#clock());
    let change: RowChange | undefined;
    if (status === 'error' && old !== undefined && this.#stale !== null && mayStandIn(err)) {
      this.#stale.used(slots.length, 1, err, reason);
      ({ status, body: data, fetchedAt: at } = old);
      reason = null;
      cached = true;
      // The old answer shows, so its change is a cached row's (the history rule), not the lookup's.
      change = this.#changes?.fromStore(key, host, old);
      // Not noted in the seen-set as missing: repeats of the key are stale rows too, counted as such.
    } else {
      if (status === 'missing') this.#seen.markMissing(key, at as number);
      if (at !== null) change = this.#changes?.looked(key, host, old, status, data, at);
    }
    for (const slot of slots) {
      if (change !== undefined) slot.row.change = change;
      const rowData = status === 'found' && slot.row.host !== null ? this.#spec.fanOut(data, slot.row.host) : null;
      this.#buffer.settle(slot, { status, reason, data: rowData, cached, fetchedAt: at });
    }
  }
}
