// Our appended columns and a row's values for them, whatever the run kind (the values come from the kind's
// spec, kinds.ts; the builders are in fields.ts).
import { UsageError } from '../api/errors.js';
import { columnsOf, type FieldValue, type FlatValue } from './fields.js';
import { KINDS } from './kinds.js';
import { CHANGE_COLUMNS, changeValues } from './row-change.js';
import type { EnrichedRow, RunKind } from './types.js';

export { fetchedAtText } from './fields.js';
export type { FieldValue, FlatValue } from './fields.js';

const columns = new Map<RunKind, readonly string[]>();

/**
 * The columns a run of `kind` appends to each row, in output order (before any prefix); with `changes`, the
 * --changes columns after them (the same six for every kind, so a script reads one layout).
 */
export function columnsFor(kind: RunKind, changes = false): string[] {
  let list = columns.get(kind);
  if (!list) {
    list = columnsOf(KINDS[kind].values, kind);
    columns.set(kind, list);
  }
  return changes ? [...list, ...CHANGE_COLUMNS] : [...list];
}

/** A row's values for columnsFor(row.kind, changes), with lists kept as arrays. */
export function fieldValues(row: EnrichedRow, changes = false): Record<string, FieldValue> {
  const values = KINDS[row.kind].values(row);
  return changes ? Object.assign(values, changeValues(row)) : values;
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

/** The columns --fields chose (checked against columnsFor), or all of them; `chosen` when --fields was given. */
export function chooseColumns(kind: RunKind, fields: string[] | undefined, changes: boolean): { names: string[]; chosen: boolean } {
  const valid = columnsFor(kind, changes);
  if (fields === undefined) return { names: valid, chosen: false };
  const listed = `valid fields for ${kind}: ${valid.join(', ')}`;
  if (fields.length === 0) throw new UsageError(`--fields needs at least one field; ${listed}`);
  const needsChanges = changes ? [] : fields.filter((f) => columnsFor(kind, true).includes(f) && !valid.includes(f));
  if (needsChanges.length > 0) throw new UsageError(`--fields ${needsChanges.join(', ')} needs --changes; ${listed}`);
  const unknown = fields.filter((f) => !valid.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; ${listed}`);
  const twice = fields.find((f, i) => fields.indexOf(f) !== i);
  if (twice !== undefined) throw new UsageError(`field ${twice} is listed twice in --fields`);
  return { names: fields, chosen: true };
}
