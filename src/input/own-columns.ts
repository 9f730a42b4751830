// A file this tool wrote, read again: the nightly pattern (`batch crm.csv --changes -o crm.csv`) reads its
// own output the next night. The columns an earlier run appended are dropped on reading, so the run writes
// fresh ones in their place instead of a second set after them (and `host`, ours, no longer competes with the
// user's host column). Recognised only as an exact column list our writer produces, ending the header: a
// user's own column that happens to be called `status` or `technologies` is never taken for ours.
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
