// A file this tool wrote, read again: the nightly pattern (`batch crm.csv --changes -o crm.csv`) reads its
// own output the next night. The columns an earlier run appended are dropped on reading, so the run writes
// fresh ones in their place instead of a second set after them (and `host`, ours, no longer competes with the
// user's host column). Recognised only as an exact column list our writer produces, ending the header: a
// user's own column that happens to be called `status` or `technologies` is never taken for ours.
//
// A reader that looks hosts up in the cache (`changes`) asks for our `host` column instead (ownHost): the host
// that run looked up, normalised as the cache is keyed, whichever column of the user's it came from (`batch
// --column Email`, a header no rank knows). By rank the user's Website would be read: other hosts.
import { columnsFor } from '../domain/flatten.js';
import type { RunKind } from '../domain/types.js';

const KINDS: readonly RunKind[] = ['profile', 'traffic', 'employees'];

/**
 * The column lists an earlier run may have appended, each with `prefix`: every kind's columns as written now
 * and as written before `fetched_at` existed, and `written` (this run's own, which --fields or --changes
 * shape), so running the same command again always recognises what it wrote.
 */
export function ourColumnLists(prefix: string, written: readonly string[] = [], extra: readonly (readonly string[])[] = []): string[][] {
  const lists: string[][] = [];
  for (const kind of KINDS) {
    const all = columnsFor(kind);
    lists.push(
      all,
      all.filter((c) => c !== 'fetched_at'),
    );
    for (const more of extra) lists.push([...all, ...more]);
  }
  if (written.length > 0) lists.push([...written]);
  return lists.map((list) => list.map((c) => prefix + c));
}

/**
 * Where the columns an earlier run appended start in `headers`, or -1: the longest of `lists` that ends the
 * header, with at least one column of the user's before it (our output always keeps the input's columns, a
 * plain list's as `input`).
 */
export function earlierColumns(headers: readonly string[], lists: readonly (readonly string[])[]): number {
  let at = -1;
  for (const list of lists) {
    const start = headers.length - list.length;
    if (start < 1 || (at !== -1 && start >= at)) continue;
    if (list.every((c, i) => headers[start + i] === c)) at = start;
  }
  return at;
}

/** What a reader is told of our own columns: the lists to drop, and the one to read the host from. */
export interface OwnColumnsOptions {
  /**
   * Column lists an earlier run of ours may have appended (ourColumnLists): when the header ends with one,
   * those columns are dropped from the header and every row, and named in the shape (`earlier`).
   */
  earlier?: readonly (readonly string[])[];
  /**
   * Our host column's name (with the prefix): when it is among the columns dropped and no --column was given,
   * each row's host is read from it (the shape's hostColumn is then -1), not from a column of the user's.
   */
  ownHost?: string;
}

/** Our columns cut from `header` (spliced off): where they began (-1: none), their names, and the index in a whole row of our host column when the host is read from it (-1: from the user's). */
export function cutOurs(header: string[], o: OwnColumnsOptions & { column?: string | undefined }): { cut: number; earlier: string[]; own: number } {
  const cut = earlierColumns(header, o.earlier ?? []);
  if (cut === -1) return { cut, earlier: [], own: -1 };
  const earlier = header.splice(cut);
  const at = o.ownHost === undefined || o.column !== undefined ? -1 : earlier.indexOf(o.ownHost);
  return { cut, earlier, own: at === -1 ? -1 : cut + at };
}
