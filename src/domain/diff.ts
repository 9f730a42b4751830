// What changed between two answers about one host (issue 17): the one rule behind `batch --changes` (a row's
// answer against the one held before it) and `domain-intel changes` (the answer held at a time against the
// latest). Fields are compared as the CLI writes them (the kind's columns, fields.ts), so a change is named by
// the column a user sees and nothing the columns do not show is reported.
import type { FieldValue } from './fields.js';
import type { KindSpec } from './kinds.js';
import type { ChangeKind, EnrichedRow, RowStatus } from './types.js';

/** An answer as compared: what the service said (found with a body, or missing). */
export interface Compared {
  status: 'found' | 'missing';
  body: unknown;
}

/** One field that differs: `field` is a column name (technologies, traffic_band, ...), or `status` for gone/back. */
interface FieldChange {
  field: string;
  from: FieldValue;
  to: FieldValue;
}

export interface AnswerDiff {
  change: ChangeKind;
  /** The fields that differ, in column order; for gone and back the one `status` change. Empty otherwise. */
  fields: FieldChange[];
}

/**
 * The row's own fields, which say nothing about the host's data, and `age_days`: "days since registration"
 * (spec §2.1) grows by one a day at a service that counts to the day it answers, a change of the calendar, not
 * of the site (the cache's history leaves it out too, store/sqlite/history.ts).
 */
const NOT_DATA = new Set(['status', 'host', 'reason', 'fetched_at', 'age_days']);

/**
 * The dates of figures (issue 29): `traffic_as_of` is the month of the traffic figure, `employees_as_of` the
 * day of the headcount (spec §2.2, §2.3). A service that restates its estimates each month moves them with
 * every release, the figures standing: a new month's date on the same figure confirms it, as `age_days`
 * growing is no change (a monthly release of no moved figure marked 1,280 of 1,671 rows changed). A figure
 * that moves is one change, named by the figure, its date moving along with it: never a change of its own.
 */
const DATES = new Set(['traffic_as_of', 'employees_as_of']);

/** The data columns of an answer about `host`, as the kind's rows carry them. */
export function answerColumns(spec: KindSpec, host: string, answer: Compared): Record<string, FieldValue> {
  const data = answer.status === 'found' ? spec.fanOut(answer.body, host) : null;
  const status: RowStatus = answer.status;
  // The kind tag is not read by the value builders (each is its kind's): any one will do.
  const all = spec.values({
    kind: 'profile',
    line: 0,
    cells: [],
    value: host,
    status,
    host,
    reason: null,
    data: data as EnrichedRow['data'],
    cached: true,
    fetchedAt: null,
  });
  const out: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(all)) if (!NOT_DATA.has(k) && !DATES.has(k)) out[k] = v;
  return out;
}

/** True when two column values are equal: lists element by element (months of traffic as their JSON). */
export function sameValue(a: FieldValue, b: FieldValue): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x !== y && (typeof x !== 'object' || JSON.stringify(x) !== JSON.stringify(y))) return false;
  }
  return true;
}

/**
 * True when two traffic series agree in every month both hold. A release adds its month at the end and drops
 * the oldest past 24 (spec §2.4: the series behind the current figure): the calendar moving, as a date does.
 * A new month's figure, when it moved, is the change of `traffic_visits`; a month both hold that differs is a
 * series restated, a change of its own.
 */
function sameSeries(a: FieldValue, b: FieldValue): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return sameValue(a, b);
  const visits = new Map<unknown, unknown>();
  for (const m of a) if (typeof m === 'object' && m !== null) visits.set(m.month, m.visits);
  return b.every((m) => typeof m !== 'object' || m === null || !visits.has(m.month) || visits.get(m.month) === m.visits);
}

/** What changed from `before` (null: nothing was held) to `after`, both about `host`. */
export function diffAnswers(spec: KindSpec, host: string, before: Compared | null, after: Compared): AnswerDiff {
  if (before === null) return { change: 'new', fields: [] };
  if (before.status !== after.status) {
    return { change: after.status === 'missing' ? 'gone' : 'back', fields: [{ field: 'status', from: before.status, to: after.status }] };
  }
  if (after.status === 'missing') return { change: 'same', fields: [] };
  const was = answerColumns(spec, host, before);
  const now = answerColumns(spec, host, after);
  const fields: FieldChange[] = [];
  for (const [field, to] of Object.entries(now)) {
    const from = was[field] ?? null;
    if (!(field === 'traffic_history' ? sameSeries(from, to) : sameValue(from, to))) fields.push({ field, from, to });
  }
  return { change: fields.length === 0 ? 'same' : 'changed', fields };
}

/** The items of list `to` not in list `from` (technologies adopted; swap the two for those dropped). */
export function added(from: FieldValue, to: FieldValue): string[] {
  const was = new Set(Array.isArray(from) ? from.map(String) : []);
  return Array.isArray(to) ? to.map(String).filter((x) => !was.has(x)) : [];
}
