// Our appended columns and a row's values for them, whatever the run kind (the values come from the kind's
// spec, kinds.ts; the builders are in fields.ts).
import { columnsOf, type FieldValue, type FlatValue } from './fields.js';
import { KINDS } from './kinds.js';
import type { EnrichedRow, RunKind } from './types.js';

export { fetchedAtText } from './fields.js';
export type { FieldValue, FlatValue } from './fields.js';

const columns = new Map<RunKind, readonly string[]>();

/** The columns a run of `kind` appends to each row, in output order (before any prefix). */
export function columnsFor(kind: RunKind): string[] {
  let list = columns.get(kind);
  if (!list) {
    list = columnsOf(KINDS[kind].values, kind);
    columns.set(kind, list);
  }
  return [...list];
}

/** A row's values for columnsFor(row.kind), with lists kept as arrays. */
export function fieldValues(row: EnrichedRow): Record<string, FieldValue> {
  return KINDS[row.kind].values(row);
}

/** A row's values for columnsFor(row.kind) as CSV cells: technologies and history joined with ';'. */
export function flatten(row: EnrichedRow): Record<string, FlatValue> {
  const out: Record<string, FlatValue> = {};
  for (const [key, value] of Object.entries(fieldValues(row))) out[key] = renderList(value);
  return out;
}

/** Joins list values the way CSV shows them; scalars pass through. */
export function renderList(value: FieldValue): FlatValue {
  if (!Array.isArray(value)) return value;
  return value.map((v) => (typeof v === 'string' ? v : `${v.month}:${v.visits}`)).join(';');
}
