// What a row's answer changed against the answer held before it (batch --changes, issue 17), through the one
// comparison (diff.ts); the run decides which answer is "before" (run/change-tracker.ts).
import { added, diffAnswers } from './diff.js';
import { type FieldValue, fetchedAtText } from './fields.js';
import type { KindSpec } from './kinds.js';
import type { EnrichedRow, RowChange } from './types.js';

/** The columns --changes appends after ours (after fetched_at), in order; selectable with --fields. */
export const CHANGE_COLUMNS = ['change', 'changed_fields', 'tech_added', 'tech_removed', 'traffic_band_was', 'previous_fetched_at'] as const;

const NO_ITEMS: string[] = [];

/** The change from `before` (null: nothing held) to `after`, both about `host`. */
export function rowChange(
  spec: KindSpec,
  host: string,
  before: { status: 'found' | 'missing'; body: unknown; fetchedAt: number } | null,
  after: { status: 'found' | 'missing'; body: unknown },
  at: number,
): RowChange {
  const diff = diffAnswers(spec, host, before, after);
  const tech = diff.fields.find((f) => f.field === 'technologies');
  const band = diff.fields.find((f) => f.field === 'traffic_band');
  return {
    change: diff.change,
    fields: diff.fields.map((f) => f.field),
    techAdded: tech === undefined ? NO_ITEMS : added(tech.from, tech.to),
    techRemoved: tech === undefined ? NO_ITEMS : added(tech.to, tech.from),
    bandWas: band === undefined ? null : band.from,
    previousAt: before?.fetchedAt ?? null,
    second: Math.floor(at / 1000),
  };
}

/** A row's --changes values by column name: all null (empty cells) for invalid and error rows. */
export function changeValues(row: EnrichedRow): Record<string, FieldValue> {
  const c = row.status === 'found' || row.status === 'missing' ? row.change : undefined;
  if (c === undefined) {
    return { change: null, changed_fields: null, tech_added: null, tech_removed: null, traffic_band_was: null, previous_fetched_at: null };
  }
  return {
    change: c.change,
    changed_fields: c.fields,
    tech_added: c.techAdded,
    tech_removed: c.techRemoved,
    traffic_band_was: c.bandWas,
    previous_fetched_at: fetchedAtText(c.previousAt),
  };
}

/** The `changes` object of a whole JSON row: the --changes columns by name, lists as arrays; null when empty. */
export function changesObject(row: EnrichedRow): Record<string, FieldValue> | null {
  const values = changeValues(row);
  return values.change === null ? null : values;
}
