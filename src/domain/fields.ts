// Our appended columns per run kind and a row's values for them, as one object literal per kind: its keys,
// in order, ARE the column list (columnsFor in flatten.ts reads them), so the CSV header, the JSON --fields
// objects and the help text cannot drift apart.
import type { DomainProfile, EmployeesResult, TrafficHistory } from '../api/types.js';
import type { EnrichedRow, FieldValue, RunKind } from './types.js';

export type { FieldValue, FlatValue } from './types.js';

// Each kind builds its record as one literal with the common fields (status, host, reason) first. Not
// `{ ...common, ...rest }`: on Node 20 merging two spreads of this size costs ~90 us a row (measured), the
// bulk of a batch run's CPU. EnrichedRow<RunKind> does not narrow `data` by `kind`; the kind tag is the
// contract (domain/types.ts), so each builder is given its kind's rows only (kinds.ts).

/** A profile row's values (the batch and lookup commands). */
export function profileValues(row: EnrichedRow): Record<string, FieldValue> {
  const p = row.data as DomainProfile | null;
  return {
    status: row.status,
    host: row.host,
    reason: row.reason,
    resolves: p?.resolves ?? null,
    technologies: p?.technologies ?? null,
    network: p?.network ?? null,
    platform: p?.platform ?? null,
    registrar: p?.registrar ?? null,
    age_days: p?.age_days ?? null,
    country_iso: p?.country_iso ?? null,
    lang_norm: p?.lang_norm ?? null,
    http_status: p?.http_status ?? null,
    redirect_to: p?.redirect_to ?? null,
    traffic_visits: p?.traffic?.estimated_monthly_visits ?? null,
    traffic_band: p?.traffic?.band ?? null,
    traffic_as_of: p?.traffic?.as_of ?? null,
    employees_low: p?.employees?.low ?? null,
    employees_high: p?.employees?.high ?? null,
    employees_point: p?.employees?.point ?? null,
    employees_as_of: p?.employees?.as_of ?? null,
    fetched_at: fetchedAtText(row.fetchedAt),
  };
}

/** A traffic row's values. */
export function trafficValues(row: EnrichedRow): Record<string, FieldValue> {
  const t = row.data as TrafficHistory | null;
  return {
    status: row.status,
    host: row.host,
    reason: row.reason,
    traffic_visits: t?.estimated_monthly_visits ?? null,
    traffic_band: t?.band ?? null,
    traffic_as_of: t?.as_of ?? null,
    traffic_history: t?.history ?? null,
    fetched_at: fetchedAtText(row.fetchedAt),
  };
}

/** An employees row's values. */
export function employeeValues(row: EnrichedRow): Record<string, FieldValue> {
  const e = row.data as EmployeesResult | null;
  return {
    status: row.status,
    host: row.host,
    reason: row.reason,
    apex: e?.apex ?? null,
    employees_low: e?.estimated_employees?.low ?? null,
    employees_high: e?.estimated_employees?.high ?? null,
    employees_point: e?.estimated_employees?.point ?? null,
    employees_as_of: e?.as_of ?? null,
    fetched_at: fetchedAtText(row.fetchedAt),
  };
}

/**
 * When a row's answer was fetched, as ISO 8601 UTC to the second ('2026-11-24T00:02:04Z'); null (an empty
 * cell) for invalid rows and errors. Last of our columns in every kind, so existing column positions hold.
 */
export function fetchedAtText(ms: number | null): string | null {
  // Rows built by hand (a library caller, an older EnrichedRow) may lack the field: an empty cell, not a throw.
  if (typeof ms !== 'number') return null;
  // One text per second (fetchedAt is to the whole second, run/ordered-buffer.ts), remembered: rows alternate
  // between a batch just recorded and repeats of hosts answered seconds before (half the rows of a list with
  // duplicates), so remembering only the last one formatted a date on almost every row. A few thousand seconds
  // are kept; the map is emptied when full (a run's rows come from a window of recent seconds).
  let text = fetchedTexts.get(ms);
  if (text === undefined) {
    if (fetchedTexts.size >= FETCHED_KEPT) fetchedTexts.clear();
    text = `${new Date(ms).toISOString().slice(0, 19)}Z`;
    fetchedTexts.set(ms, text);
  }
  return text;
}

const FETCHED_KEPT = 4096;
const fetchedTexts = new Map<number, string>();

/** The columns a value builder produces, in order: the keys of its record, read from an empty row. */
export function columnsOf(values: (row: EnrichedRow) => Record<string, FieldValue>, kind: RunKind): string[] {
  return Object.keys(values({ kind, line: 0, cells: [], value: '', status: 'invalid', host: null, reason: null, data: null, cached: false, fetchedAt: null }));
}
