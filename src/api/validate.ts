// Checks the shape of what the service sent before anyone relies on it. Much of it was scraped from sites
// anyone controls, and a broken answer must become a clear error, never a wrong row.
// Liberal where the spec allows: extra fields are dropped (so our output columns stay stable) and a field
// that is absent is read as null (the spec says unknown is null and not omitted, but absence is the same
// information). A field present with the wrong type is a ProtocolError.
import { ProtocolError } from './errors.js';
import type {
  BatchResult,
  CatalogCategory,
  DomainProfile,
  EmployeeEstimate,
  EmployeesResult,
  TechnologyCount,
  TrafficEstimate,
  TrafficHistory,
} from './types.js';

type Obj = Record<string, unknown>;

function fail(what: string, operation: string, host?: string): never {
  throw new ProtocolError(`the service sent a malformed answer: ${what}`, {
    code: 'bad_response',
    operation,
    ...(host === undefined ? {} : { host }),
  });
}

class Reader {
  constructor(
    private readonly value: Obj,
    private readonly where: string,
    private readonly operation: string,
    private readonly host?: string,
  ) {}
  private bad(field: string, expected: string): never {
    return fail(`${this.where}.${field} is not ${expected}`, this.operation, this.host);
  }
  str(field: string): string {
    const v = this.value[field];
    return typeof v === 'string' ? v : this.bad(field, 'a string');
  }
  num(field: string): number {
    const v = this.value[field];
    return typeof v === 'number' && Number.isFinite(v) ? v : this.bad(field, 'a number');
  }
  strOrNull(field: string): string | null {
    const v = this.value[field];
    if (v === undefined || v === null) return null;
    return typeof v === 'string' ? v : this.bad(field, 'a string or null');
  }
  numOrNull(field: string): number | null {
    const v = this.value[field];
    if (v === undefined || v === null) return null;
    return typeof v === 'number' && Number.isFinite(v) ? v : this.bad(field, 'a number or null');
  }
  boolOrNull(field: string): boolean | null {
    const v = this.value[field];
    if (v === undefined || v === null) return null;
    return typeof v === 'boolean' ? v : this.bad(field, 'a boolean or null');
  }
  strArrayOrNull(field: string): string[] | null {
    const v = this.value[field];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return this.bad(field, 'a list of strings');
    return v as string[];
  }
  objOrNull(field: string): Obj | null {
    const v = this.value[field];
    if (v === undefined || v === null) return null;
    return isObj(v) ? v : this.bad(field, 'an object or null');
  }
  obj(field: string): Obj {
    const v = this.value[field];
    return isObj(v) ? v : this.bad(field, 'an object');
  }
  arr(field: string): unknown[] {
    const v = this.value[field];
    return Array.isArray(v) ? v : this.bad(field, 'a list');
  }
}

/**
 * The host an answer names must be the one asked about: an answer about another host would otherwise be
 * printed, and cached, as this one's. Compared case-insensitively (rule 4.1 lower-cases it anyway).
 */
function answerFor(named: string, asked: string | undefined, field: string, operation: string): string {
  const got = named.toLowerCase();
  if (asked !== undefined && got !== asked.toLowerCase()) fail(`${field} is ${JSON.stringify(named)}, not the host asked about`, operation, asked);
  return got;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function reader(v: unknown, where: string, operation: string, host?: string): Reader {
  if (!isObj(v)) fail(`${where} is not an object`, operation, host);
  return new Reader(v, where, operation, host);
}

function trafficEstimate(v: Obj | null, operation: string, host?: string): TrafficEstimate | null {
  if (v === null) return null;
  const r = reader(v, 'traffic', operation, host);
  return { estimated_monthly_visits: r.num('estimated_monthly_visits'), band: r.str('band'), as_of: r.str('as_of') };
}

function employeeEstimate(v: Obj | null, operation: string, host?: string): EmployeeEstimate | null {
  if (v === null) return null;
  const r = reader(v, 'employees', operation, host);
  return { apex: r.str('apex'), low: r.numOrNull('low'), high: r.numOrNull('high'), point: r.numOrNull('point'), as_of: r.str('as_of') };
}

/** A domain profile (§2.1), or a ProtocolError. */
export function readProfile(v: unknown, operation: string, host?: string): DomainProfile {
  const r = reader(v, 'profile', operation, host);
  const technologies = r.strArrayOrNull('technologies');
  return {
    // Batch profiles (no `host`) are matched to what was sent by the caller; a single one must be the host asked.
    domain: answerFor(r.str('domain'), host, 'profile.domain', operation),
    resolves: r.boolOrNull('resolves'),
    technologies,
    network: r.strOrNull('network'),
    platform: r.strOrNull('platform'),
    registrar: r.strOrNull('registrar'),
    age_days: r.numOrNull('age_days'),
    country_iso: r.strOrNull('country_iso'),
    lang_norm: r.strOrNull('lang_norm'),
    http_status: r.numOrNull('http_status'),
    redirect_to: r.strOrNull('redirect_to'),
    traffic: trafficEstimate(r.objOrNull('traffic'), operation, host),
    employees: employeeEstimate(r.objOrNull('employees'), operation, host),
  };
}

/** A batch answer (§2.8): the whole body, not only `data`. */
export function readBatch(body: unknown): BatchResult {
  const r = reader(body, 'body', 'batch');
  const data = r.arr('data').map((p) => readProfile(p, 'batch'));
  const missingRaw = r.arr('missing');
  if (!missingRaw.every((x) => typeof x === 'string')) fail('body.missing is not a list of strings', 'batch');
  return { data, missing: (missingRaw as string[]).map((h) => h.toLowerCase()) };
}

/** Traffic with history (§2.4). */
export function readTraffic(v: unknown, host: string): TrafficHistory {
  const r = reader(v, 'data', 'traffic', host);
  const history = r.arr('history').map((item) => {
    const m = reader(item, 'history[]', 'traffic', host);
    return { month: m.str('month'), visits: m.num('visits') };
  });
  return {
    host: answerFor(r.str('host'), host, 'data.host', 'traffic'),
    estimated_monthly_visits: r.num('estimated_monthly_visits'),
    band: r.str('band'),
    as_of: r.str('as_of'),
    history,
  };
}

/** Employee estimate (§2.5). */
export function readEmployees(v: unknown, host: string): EmployeesResult {
  const r = reader(v, 'data', 'employees', host);
  const e = reader(r.obj('estimated_employees'), 'estimated_employees', 'employees', host);
  return {
    host: answerFor(r.str('host'), host, 'data.host', 'employees'),
    apex: r.str('apex'),
    estimated_employees: { low: e.numOrNull('low'), high: e.numOrNull('high'), point: e.numOrNull('point') },
    as_of: r.str('as_of'),
  };
}

/** Technology count (§2.6). */
export function readTechnology(v: unknown, name: string): TechnologyCount {
  const r = reader(v, 'data', 'technology', name);
  return { tech: r.str('tech'), domains: r.num('domains') };
}

/** Catalog (§2.7). */
export function readCatalog(v: unknown): CatalogCategory[] {
  if (!Array.isArray(v)) fail('data is not a list', 'catalog');
  return v.map((entry) => {
    const r = reader(entry, 'category', 'catalog');
    return { category: r.str('category'), technologies: r.arr('technologies').map((t) => readTechnology(t, 'catalog')) };
  });
}
