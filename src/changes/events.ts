// The change feed's unit: one field of one host that moved, as `domain-intel changes` prints it. Built from
// the one comparison rule (domain/diff.ts), so the feed names the same fields as `batch --changes`.
import { type AnswerDiff, added } from '../domain/diff.js';
import type { FieldValue } from '../domain/fields.js';

/**
 * One change: `field` is a CSV column name (technologies, traffic_band, ...) or `status` (found <-> missing).
 * `at` (epoch ms) is when the later answer was first seen: the fetch that replaced the one before it.
 */
export interface ChangeEvent {
  host: string;
  field: string;
  from: FieldValue;
  to: FieldValue;
  at: number;
  /** technologies events only: the names adopted and dropped, so a consumer need not diff the lists. */
  added?: string[];
  removed?: string[];
}

/** The events of one host's diff, in column order (status alone for gone and back). */
export function eventsOf(host: string, diff: AnswerDiff, at: number): ChangeEvent[] {
  return diff.fields.map(({ field, from, to }) =>
    field === 'technologies' ? { host, field, from, to, at, added: added(from, to), removed: added(to, from) } : { host, field, from, to, at },
  );
}
