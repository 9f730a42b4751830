// The ordered buffer: rows enter in input order, settle in any order (answers come back as they come), and
// leave in input order, as many at a time as are ready. It is also where the reader and the consumer meet:
// `changed()` resolves at the next change, so the reader can pause while `full` (back-pressure) and the
// consumer sleep while nothing is ready, with one promise per change, not one per row.
import { neverTried, type RunStats } from './stats.js';
import type { EnrichedRow, InputRecord, ResultByKind, RowStatus, RunKind } from '../domain/types.js';

/**
 * A row's fetch time to the whole second. The repeat of a host the service does not hold takes its time from
 * the seen-set (run/seen-keys.ts), which keeps it in 32 bits as seconds; every row is rounded the same way so the rows
 * of one answer all say the same time, whichever way they were answered.
 */
function toSecond(ms: number | null): number | null {
  return ms === null ? null : Math.floor(ms / 1000) * 1000;
}

/** A row's place in the buffer; `done` once its outcome is known. */
export interface Slot<K extends RunKind> {
  row: EnrichedRow<K>;
  done: boolean;
}

export interface OrderedBufferOptions {
  kind: RunKind;
  /** Rows held (not yet handed out) past which `full` is true. */
  maxBuffered: number;
  /** Counts found / missing / error rows as they settle. */
  stats: RunStats;
  /** False for a dry run: rows are counted, never kept. */
  keep: boolean;
}

/** Rows in input order, settled out of order, handed out in order. */
export class OrderedBuffer<K extends RunKind> {
  readonly #o: OrderedBufferOptions;
  #fifo: Slot<K>[] = [];
  #head = 0;
  #wake: (() => void) | null = null;
  #changed: Promise<void> | null = null;

  constructor(o: OrderedBufferOptions) {
    this.#o = o;
  }

  /** Appends a row; settled now unless `pending` (its status is then set by `settle`). */
  add(
    record: InputRecord,
    status: RowStatus,
    host: string | null,
    reason: string | null,
    data: unknown,
    cached: boolean,
    pending = false,
    fetchedAt: number | null = null,
  ): Slot<K> {
    const slot: Slot<K> = {
      row: {
        kind: this.#o.kind as K,
        line: record.line,
        cells: record.cells,
        typed: record.typed,
        value: record.value,
        status,
        host,
        reason,
        data: data as ResultByKind[K] | null,
        cached,
        fetchedAt: toSecond(fetchedAt),
      },
      done: !pending,
    };
    if (!pending) this.#count(status, reason);
    if (this.#o.keep) this.#fifo.push(slot);
    return slot;
  }

  /**
   * Gives a pending row its outcome; `cached` when the cache gave it (another process's answer, or an older
   * one standing in for an answer that could not be had), `fetchedAt` when the answer was fetched.
   */
  settle(slot: Slot<K>, status: RowStatus, reason: string | null, data: unknown, cached = false, fetchedAt: number | null = null): void {
    slot.row.status = status;
    slot.row.cached = cached;
    slot.row.fetchedAt = toSecond(fetchedAt);
    slot.row.reason = reason;
    slot.row.data = data as ResultByKind[K] | null;
    slot.done = true;
    this.#count(status, reason);
  }

  #count(status: RowStatus, reason: string | null): void {
    const { stats } = this.#o;
    if (status === 'found') stats.found++;
    else if (status === 'missing') stats.missing++;
    else if (status === 'error') {
      stats.errors++;
      // A row a stop settled untried is counted apart: the summary does not call it a failure.
      if (neverTried(reason)) stats.notLookedUp++;
      else stats.errorCause ??= reason;
    }
  }

  /** The settled rows at the front, in input order (empty when the oldest row still waits). */
  take(): EnrichedRow<K>[] {
    const ready: EnrichedRow<K>[] = [];
    while (this.#head < this.#fifo.length && this.#fifo[this.#head]?.done) ready.push((this.#fifo[this.#head++] as Slot<K>).row);
    if (this.#head > 4096 && this.#head * 2 > this.#fifo.length) {
      this.#fifo = this.#fifo.slice(this.#head);
      this.#head = 0;
    }
    return ready;
  }

  /** True when every row added has been handed out. */
  get empty(): boolean {
    return this.#head >= this.#fifo.length;
  }

  /** True when more than maxBuffered rows wait to be handed out: reading should pause. */
  get full(): boolean {
    return this.#fifo.length - this.#head > this.#o.maxBuffered;
  }

  /** True when the oldest row held is settled: the consumer has a row to take. */
  get ready(): boolean {
    return this.#fifo[this.#head]?.done === true;
  }

  /** True when the oldest row held still waits for an answer (nothing can go out before it). */
  get blocked(): boolean {
    return this.#head < this.#fifo.length && this.#fifo[this.#head]?.done !== true;
  }

  /** Resolves at the next `notify`. */
  changed(): Promise<void> {
    this.#changed ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#changed;
  }

  /** Wakes whoever waits in `changed`: rows settled, a request ended, or the run stopped. */
  notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    this.#changed = null;
    wake?.();
  }
}
