// Intake: input rows (records or plain hosts, one at a time or in arrays) to planning, PLAN_CHUNK at a time,
// with reading paused while the ordered buffer is full (back-pressure).
import type { Dispatcher } from './dispatcher.js';
import type { OrderedBuffer } from './ordered-buffer.js';
import { PLAN_CHUNK } from './planner.js';
import type { InputRecord, RunKind } from '../domain/types.js';
import { INPUT_QUIET_MS, type InputState } from './input-state.js';

/**
 * Input rows: records as read from a file, or plain host strings (numbered from line 1), one at a time or in
 * arrays (as openInput's `chunks` gives them).
 */
export type RecordSource = AsyncIterable<InputRecord | string | InputRecord[]> | Iterable<InputRecord | string | InputRecord[]>;

export interface IntakeParts<K extends RunKind> {
  records: RecordSource;
  /** Plans a chunk of rows (and sends what it queued); chunks are planned one at a time, in order. */
  plan: (chunk: InputRecord[]) => Promise<void> | void;
  buffer: OrderedBuffer<K>;
  dispatcher: Pick<Dispatcher<K>, 'cancelled' | 'inflight' | 'sendPartial' | 'stop'>;
  /** Kept up to date here for the dispatcher's partial-batch rule. */
  input: InputState;
}

/** Reads every row into planning; resolves when input ends or the run is cancelled (input.done is then set). */
export async function intake<K extends RunKind>({ records, plan, buffer, dispatcher, input }: IntakeParts<K>): Promise<void> {
  try {
    let chunk: InputRecord[] = [];
    let line = 0;
    // One chunk planned at a time, in input order, whoever asks (the loop below or the quiet-input timer).
    let planning: Promise<void> = Promise.resolve();
    const next = (rows: InputRecord[]): Promise<void> => {
      planning = planning.then(() => plan(rows));
      return planning;
    };
    // Rows are planned PLAN_CHUNK at a time; when input pauses with some read (a slow pipe, `tail -f`),
    // those are planned once it has been quiet for INPUT_QUIET_MS rather than held until more arrive. One
    // timer checks for that, not one per record.
    const quietCheck = setInterval(() => {
      if (chunk.length === 0 || performance.now() - input.lastAt < INPUT_QUIET_MS || dispatcher.cancelled) return;
      const quiet = chunk;
      chunk = [];
      next(quiet).catch((err: unknown) => dispatcher.stop('error', err));
    }, INPUT_QUIET_MS).unref();
    try {
      for await (const item of records) {
        if (dispatcher.cancelled) break;
        input.lastAt = performance.now();
        if (Array.isArray(item)) {
          line += item.length;
          for (const record of item) chunk.push(record);
        } else {
          line++;
          chunk.push(typeof item === 'string' ? { line, cells: [item], value: item } : item);
        }
        while (chunk.length >= PLAN_CHUNK) {
          await next(chunk.splice(0, PLAN_CHUNK));
          await backPressure(buffer, dispatcher, input);
          if (dispatcher.cancelled) break;
        }
      }
    } finally {
      clearInterval(quietCheck);
    }
    // A chunk the timer handed over may still be planning.
    await planning.catch(() => undefined);
    if (chunk.length > 0 && !dispatcher.cancelled) await next(chunk);
  } finally {
    input.done = true;
  }
}

/** Waits while the buffer is full. */
async function backPressure<K extends RunKind>(buffer: OrderedBuffer<K>, dispatcher: IntakeParts<K>['dispatcher'], input: InputState): Promise<void> {
  input.pausedForBuffer = true;
  try {
    while (buffer.full && !dispatcher.cancelled) {
      // Reading is paused. While requests are in flight or the consumer has rows to take, their progress
      // wakes us and the queue may still fill to a whole batch. Only when nothing is in flight and the oldest
      // row waits for an answer would nothing ever free the buffer: then a partial batch must go. (Flushing
      // on every pause sent 1.56x the requests needed; on every pause with nothing in flight, 1.1x.)
      if (dispatcher.inflight === 0 && buffer.blocked) dispatcher.sendPartial();
      await buffer.changed();
    }
  } finally {
    input.pausedForBuffer = false;
  }
}
