// An input with no row to enrich (issue 29): a 0-byte export, blank and `#` lines only, or a header alone.
// The nightly `batch export.csv -o enriched.csv` must not replace yesterday's enriched file with an empty one
// when the upstream export failed, so a job that asks (JobInput.refuseEmpty) is refused before anything is
// written: the first record is awaited, and handed on in front of the rest when there is one.
import { EmptyInputError } from '../api/errors.js';
import type { RecordSource } from './intake.js';
import type { InputShape } from '../domain/types.js';

/**
 * `records` as they were, or EmptyInputError when they hold none and `refuse()` says so (it says not when a
 * stop ended the read: Ctrl-C at a terminal before the first line is an interruption, not an empty input).
 */
export async function requireRows(records: RecordSource, shape: InputShape, file: string, refuse: () => boolean): Promise<RecordSource> {
  if (Array.isArray(records)) {
    if (records.length === 0 && refuse()) throw emptyInput(shape, file);
    return records;
  }
  if (!(Symbol.asyncIterator in records)) {
    const all = [...records];
    if (all.length === 0 && refuse()) throw emptyInput(shape, file);
    return all;
  }
  const rest = records[Symbol.asyncIterator]();
  let first: IteratorResult<unknown> | null = await rest.next();
  if (first.done) {
    if (refuse()) throw emptyInput(shape, file);
    return [];
  }
  // Not a generator around `rest`: an async step per record would cost every row of a large list; the first
  // record is handed out once, then `rest` answers directly (its return() still closes the file).
  const source = rest as AsyncIterator<unknown>;
  const iterator: AsyncIterator<unknown> = {
    next: () => {
      const head = first;
      first = null;
      return head === null ? source.next() : Promise.resolve(head);
    },
    return: (value?: unknown) => source.return?.(value) ?? Promise.resolve({ done: true, value }),
  };
  return { [Symbol.asyncIterator]: () => iterator } as RecordSource;
}

/** What the input holds instead of rows, in words, naming the file. */
function emptyInput(shape: InputShape, file: string): EmptyInputError {
  const what = shape.headers === null ? 'the input is empty, or blank and # lines only' : 'a header and nothing under it';
  return new EmptyInputError(`${file}: no rows to enrich (${what})`, file);
}
