// The ordered buffer: rows enter in input order, settle in any order (answers come back as they come), and
// leave in input order, as many at a time as are ready. It is also where the reader and the consumer meet:
// `changed()` resolves at the next change, so the reader can pause while `full` (back-pressure) and the
// consumer sleep while nothing is ready, with one promise per change, not one per row.
import { LineRecord } from '../domain/line-text.js';
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

/** What became of a row; what is left out is null (`cached`: false). */
export interface RowOutcome {
  status: RowStatus;
  /** Why a row is invalid or in error. */
  reason?: string | null;
  /** The answer's data for this row (found). */
  data?: unknown;
  /** The cache gave it: another process's answer, one of the age wanted, or an older one standing in. */
  cached?: boolean;
  /** When its answer was fetched. */
  fetchedAt?: number | null;
}

/** A row entering the buffer: its outcome, and the host its value named (null when invalid). */
export interface NewRow extends RowOutcome {
  host: string | null;
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

  /** Appends a row whose outcome is known now. */
  add(record: InputRecord, row: NewRow): Slot<K> {
    const slot = this.#slot(record, row, true);
    this.#count(row.status, row.reason ?? null);
    return slot;
  }

  /** Appends a row that waits for the lookup of `host`: `settle` gives it its outcome. */
  addPending(record: InputRecord, host: string): Slot<K> {
    return this.#slot(record, { status: 'found', host }, false);
  }

  #slot(record: InputRecord, row: NewRow, done: boolean): Slot<K> {
    const slot: Slot<K> = {
      row: {
        kind: this.#o.kind as K,
        line: record.line,
        cells: record.cells,
        typed: record.typed,
        text: LineRecord.textOf(record),
        value: record.value,
        status: row.status,
        host: row.host,
        reason: row.reason ?? null,
        data: (row.data ?? null) as ResultByKind[K] | null,
        cached: row.cached ?? false,
        fetchedAt: toSecond(row.fetchedAt ?? null),
      },
      done,
    };
    if (this.#o.keep) this.#fifo.push(slot);
    return slot;
  }

  /** Gives a pending row its outcome. */
  settle(slot: Slot<K>, outcome: RowOutcome): void {
    const { row } = slot;
    row.status = outcome.status;
    row.cached = outcome.cached ?? false;
    row.fetchedAt = toSecond(outcome.fetchedAt ?? null);
    row.reason = outcome.reason ?? null;
    row.data = (outcome.data ?? null) as ResultByKind[K] | null;
    slot.done = true;
    this.#count(row.status, row.reason);
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
