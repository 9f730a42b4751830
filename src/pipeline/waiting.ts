// Which rows wait on which lookup, and which lookups failed in this run: what planning asks before it queues
// a key, and what an answer settles. A key is queued once however many rows carry it.
import type { KindSpec } from './kinds.js';
import type { OrderedBuffer, Slot } from './order.js';
import type { SeenSet } from './seen.js';
import type { RowStatus, RunKind } from './types.js';

/** Rows waiting on each key queued or in flight, and the reasons of keys that failed. */
export class Waiting<K extends RunKind> {
  readonly #rows = new Map<string, Slot<K>[]>();
  readonly #failed = new Map<string, string>();
  readonly #buffer: OrderedBuffer<K>;
  readonly #spec: KindSpec;
  readonly #seen: SeenSet;

  constructor(buffer: OrderedBuffer<K>, spec: KindSpec, seen: SeenSet) {
    this.#buffer = buffer;
    this.#spec = spec;
    this.#seen = seen;
  }

  /** True when a lookup of `key` is queued or in flight. */
  has(key: string): boolean {
    return this.#rows.has(key);
  }

  /** Adds a row to those waiting on `key`; true when it is the first (the key is then to be queued). */
  add(key: string, slot: Slot<K>): boolean {
    const rows = this.#rows.get(key);
    if (rows) rows.push(slot);
    else this.#rows.set(key, [slot]);
    return rows === undefined;
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
   * Settles every row waiting on `key`, `cached` when the answer came from the cache. A failure is remembered
   * for later rows; a 'missing' answer is noted in the seen-set for repeats.
   */
  settle(key: string, status: RowStatus, data: unknown, reason: string | null, remember = false, cached = false): void {
    if (status === 'missing') this.#seen.markMissing(key);
    if (remember && reason !== null) this.#failed.set(key, reason);
    const slots = this.#rows.get(key);
    this.#rows.delete(key);
    for (const slot of slots ?? []) {
      this.#buffer.settle(slot, status, reason, status === 'found' && slot.row.host !== null ? this.#spec.fanOut(data, slot.row.host) : null, cached);
    }
  }
}
