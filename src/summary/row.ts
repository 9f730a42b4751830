// One row of an enriched file, reduced to what a summary counts, whichever way the file was written: CSV/TSV
// cells under our column names, a JSON row object (whole, with the answer under `data`, or --fields' flat
// object), or an answer read from the cache. Readers build these; the aggregator never sees a format.
import type { DomainProfile } from '../api/types.js';
import { neverTried } from '../run/stats.js';

/** What a summary reads from one row. */
export interface SummaryRow {
  /** found, missing, invalid, error; anything else (a host not in the cache under --from-cache) is unknown. */
  status: string;
  host: string | null;
  technologies: string[];
  platform: string | null;
  network: string | null;
  country: string | null;
  language: string | null;
  band: string | null;
  visits: number | null;
  employeesLow: number | null;
  employeesHigh: number | null;
  httpStatus: number | null;
  redirect: boolean;
  resolves: boolean | null;
}

/** A row with no answer: invalid, missing, in error, or not held. */
export function bareRow(status: string, host: string | null): SummaryRow {
  return {
    status,
    host,
    technologies: [],
    platform: null,
    network: null,
    country: null,
    language: null,
    band: null,
    visits: null,
    employeesLow: null,
    employeesHigh: null,
    httpStatus: null,
    redirect: false,
    resolves: null,
  };
}

/** A found host's row from the service's profile (the cache's answer, or a JSON row's `data`). */
export function profileRow(host: string, p: DomainProfile): SummaryRow {
  return {
    status: 'found',
    host,
    technologies: Array.isArray(p.technologies) ? p.technologies.map(String) : [],
    platform: text(p.platform),
    network: text(p.network),
    country: text(p.country_iso),
    language: text(p.lang_norm),
    band: text(p.traffic?.band),
    visits: number(p.traffic?.estimated_monthly_visits),
    employeesLow: number(p.employees?.low),
    employeesHigh: number(p.employees?.high),
    httpStatus: number(p.http_status),
    redirect: text(p.redirect_to) !== null,
    resolves: typeof p.resolves === 'boolean' ? p.resolves : null,
  };
}

/** Our columns a summary reads from a table, beyond status and host. */
export const SUMMARY_COLUMNS = [
  'technologies',
  'platform',
  'network',
  'country_iso',
  'lang_norm',
  'traffic_band',
  'traffic_visits',
  'employees_low',
  'employees_high',
  'http_status',
  'redirect_to',
  'resolves',
] as const;

/** A row of our columns by name (CSV cells, or --fields' flat JSON object): lists as arrays or joined with ';'. */
export function fieldsRow(get: (column: string) => unknown): SummaryRow {
  const row = bareRow(statusOf(get('status'), get('reason')), text(get('host')));
  if (row.status !== 'found') return row;
  const tech = get('technologies');
  row.technologies = Array.isArray(tech)
    ? tech.map(String)
    : (text(tech)
        ?.split(';')
        .filter((t) => t !== '') ?? []);
  row.platform = text(get('platform'));
  row.network = text(get('network'));
  row.country = text(get('country_iso'));
  row.language = text(get('lang_norm'));
  row.band = text(get('traffic_band'));
  row.visits = number(get('traffic_visits'));
  row.employeesLow = number(get('employees_low'));
  row.employeesHigh = number(get('employees_high'));
  row.httpStatus = number(get('http_status'));
  row.redirect = text(get('redirect_to')) !== null;
  // CSV holds `true`; a workbook a boolean cell, read as the text a spreadsheet shows (TRUE).
  const resolves = typeof get('resolves') === 'string' ? (get('resolves') as string).toLowerCase() : get('resolves');
  row.resolves = resolves === true || resolves === 'true' ? true : resolves === false || resolves === 'false' ? false : null;
  return row;
}

/** A whole JSON row as batch writes it ({line, input, status, host, reason, data, fetched_at}), or a flat one. */
export function objectRow(o: Record<string, unknown>): SummaryRow {
  if (!('data' in o)) return fieldsRow((column) => o[column]);
  const host = text(o.host);
  const data = o.data as Record<string, unknown> | null;
  if (o.status !== 'found' || host === null || data === null || typeof data !== 'object') return bareRow(statusOf(o.status, o.reason), host);
  // A traffic or employees run's answer carries its figures at the top; a profile's under traffic/employees.
  const traffic = (data.traffic ?? ('estimated_monthly_visits' in data ? data : null)) as DomainProfile['traffic'];
  const employees = (data.employees ?? data.estimated_employees ?? null) as DomainProfile['employees'];
  return profileRow(host, { ...(data as unknown as DomainProfile), traffic, employees });
}

/**
 * A row's status as counted. A row a stopped run never looked up (Ctrl-C, the quota, --max-lookups, no key)
 * is written with status `error` and a reason saying so; its answer is unknown, not failed: counted as
 * unknown, as the run's own summary counts it "not looked up", not as an error (a tryout saw 2,574 such rows
 * summarised as errors after a run that said "errors 0").
 */
function statusOf(status: unknown, reason: unknown): string {
  const s = text(status) ?? 'unknown';
  return s === 'error' && neverTried(text(reason)) ? 'unknown' : s;
}

/** A non-empty string, or null (an empty CSV cell is no value). */
function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value);
  return s === '' ? null : s;
}

/** A finite number, or null. */
function number(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
