// The interface itself (SERVICE.md §4-§8): routing, auth, rate limit, validation, metering and answers.
// It turns one parsed request into an Outcome; server.ts does the HTTP and the transport-level faults.
import type { IncomingHttpHeaders } from 'node:http';
import { API_PREFIX } from '../api/types.js';
import { HTML_500, batchBody, omitFromBatch, rateLimited, servedProfile } from './answers.js';
import { restatedEmployees, restatedTraffic } from './restate.js';
import type { FaultInjector, PostFault } from './faults.js';
import { batchHosts, hostname } from './input.js';
import type { KeyRing } from './keys.js';
import type { Meter } from './meter.js';
import { applyReadings, DEFAULT_READINGS, type Readings } from './readings.js';
import type { Dataset, FaultRates } from './types.js';

type Operation = 'domain' | 'batch' | 'traffic' | 'employees' | 'technology' | 'catalog';
const METERED: ReadonlySet<Operation> = new Set(['domain', 'batch', 'traffic', 'employees']);

export interface ApiRequest {
  method: string;
  /** Raw request target, query included. */
  target: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Outcome {
  status: number;
  headers: Record<string, string>;
  /** A JSON value, or a string sent as is (the HTML 500). */
  body: unknown;
  operation: Operation | null;
  charged: number;
  hosts: string[];
  fault: keyof FaultRates | null;
  post: PostFault | null;
  slow: boolean;
  /** A 429's reset: when the limit frees a request again, whatever the reset style tells of it. */
  resetAt?: number;
}

interface Route {
  operation: Operation;
  method: 'GET' | 'POST';
  /** Raw (still percent-encoded) path parameter. */
  param: string;
}

/** Matches a path under /api/v1 to an operation; null for an unknown route. */
function route(path: string): Route | null {
  if (!path.startsWith(`${API_PREFIX}/`)) return null;
  const rest = path.slice(API_PREFIX.length + 1);
  if (rest === 'meta/technologies') return { operation: 'catalog', method: 'GET', param: '' };
  if (rest === 'domains/batch') return { operation: 'batch', method: 'POST', param: '' };
  // A technology name's '/' must arrive as %2F; a raw '/' is matched here and answered not_found below.
  const technology = /^technology\/(.+)$/.exec(rest);
  if (technology?.[1] !== undefined) return { operation: 'technology', method: 'GET', param: technology[1] };
  const lookup = /^(domain|traffic|employees)\/([^/]+)$/.exec(rest);
  if (lookup?.[1] !== undefined && lookup[2] !== undefined) {
    return { operation: lookup[1] as Operation, method: 'GET', param: lookup[2] };
  }
  return null;
}

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export class Service {
  private current: Readings = DEFAULT_READINGS;
  /** API requests made with the primary key since revokeAfter was last set. */
  private primaryUses = 0;

  constructor(
    private dataset: Dataset,
    private readonly meter: Meter,
    private readonly keys: KeyRing,
    private readonly faults: FaultInjector,
    private readonly clock: () => number,
  ) {}

  /** Serves another release of the dataset from the next request on (the sandbox's setRelease). */
  useDataset(dataset: Dataset): void {
    this.dataset = dataset;
  }

  /** The readings in force. */
  get readings(): Readings {
    return { ...this.current, slowRequests: [...this.current.slowRequests] };
  }

  /** Changes some readings (validated: RangeError, nothing changed); setting revokeAfter restarts its count. */
  configure(changes: Partial<Readings>): Readings {
    this.current = applyReadings(this.current, changes);
    if (changes.revokeAfter !== undefined) this.primaryUses = 0;
    return this.readings;
  }

  /** Answers one API request; a request named in slowRequests is held back like the `slow` fault. */
  handle(request: ApiRequest): Outcome {
    const n = this.meter.countRequest();
    const outcome = this.answer(request);
    return this.current.slowRequests.includes(n) ? { ...outcome, slow: true, fault: outcome.fault ?? 'slow' } : outcome;
  }

  /** True when the request's key is the primary one and revokeAfter has just used it up. */
  private revokes(authorization: string | undefined): boolean {
    const limit = this.current.revokeAfter;
    if (limit === null || !this.keys.isPrimary(authorization)) return false;
    this.primaryUses += 1;
    return this.primaryUses > limit;
  }

  /**
   * Order of checks (the spec does not give one): route, method, key (401), rate limit (429, metered
   * endpoints only unless freeLimited), injected 503/500, input (400), quota (402), then the answer.
   */
  private answer(request: ApiRequest): Outcome {
    const r = this.current;
    const path = request.target.split('?')[0] ?? '';
    const found = route(path);
    const out = (status: number, body: unknown, extra: Partial<Outcome> = {}): Outcome => ({
      status,
      headers: {},
      body,
      operation: found?.operation ?? null,
      charged: 0,
      hosts: [],
      fault: null,
      post: null,
      slow: false,
      ...extra,
    });
    if (found === null) return out(404, { error: 'not_found' });
    if (request.method !== found.method) return out(405, { error: 'method_not_allowed' }, { headers: { allow: found.method } });
    // The N+1th use revokes the key and is itself refused: "rejected from the next request on" (§3).
    if (this.revokes(request.headers.authorization)) this.keys.revoke(this.keys.primary);
    if (!this.keys.accepts(request.headers.authorization)) return out(401, { error: 'invalid_key' });

    const metered = METERED.has(found.operation);
    // Quota headers go on every metered answer after auth, read when the request is handled (before any
    // delay, so a held-back answer carries an older, higher figure).
    const quota = (): Record<string, string> => (metered || r.freeQuotaHeaders ? this.meter.quotaHeaders(r.quotaResetStyle) : {});
    if (metered || r.freeLimited) {
      const resetAt = this.meter.admit(r.window);
      if (resetAt !== null) {
        const limited = rateLimited(r.resetStyle, resetAt, this.clock());
        return out(429, limited.body, { headers: { ...quota(), ...limited.headers }, resetAt });
      }
    }

    // The catalog lists only 401 (§7), so it gets no metering_unavailable; transport faults still apply.
    const plan = this.faults.roll(found.operation !== 'catalog');
    const faulted = { slow: plan.slow, fault: plan.slow ? ('slow' as const) : null };
    if (plan.pre === 'unavailable' || plan.pre === 'burst503') {
      this.meter.countUnavailable();
      // No quota headers: the quota could not be read, which is what this error means.
      return out(503, { error: 'metering_unavailable' }, { ...faulted, fault: plan.pre });
    }
    if (plan.pre === 'html500') return out(500, HTML_500, { ...faulted, fault: 'html500', headers: { 'content-type': 'text/html; charset=utf-8' } });

    const result = this.serve(found, request, quota, plan.omit);
    if (result.status !== 200) return { ...result, ...faulted, fault: result.fault ?? faulted.fault };
    return { ...result, slow: plan.slow, post: plan.post, fault: plan.post ?? result.fault ?? faulted.fault };
  }

  private serve(found: Route, request: ApiRequest, quota: () => Record<string, string>, omit: number | null): Outcome {
    const r = this.current;
    const { operation } = found;
    const out = (status: number, body: unknown, extra: Partial<Outcome> = {}): Outcome => ({
      status,
      headers: quota(),
      body,
      operation,
      charged: 0,
      hosts: [],
      fault: null,
      post: null,
      slow: false,
      ...extra,
    });

    if (operation === 'catalog') return out(200, { data: this.dataset.catalog() });
    if (operation === 'technology') {
      const name = found.param.includes('/') ? null : decode(found.param);
      const count = name === null ? null : this.dataset.technology(name);
      return count === null ? out(404, { error: 'not_found' }, { hosts: name === null ? [] : [name] }) : out(200, { data: count }, { hosts: [count.tech] });
    }

    if (operation === 'batch') {
      const entries = batchHosts(request.headers, request.body, r.upperCase);
      if (entries === null) return out(400, { error: 'bad_batch' });
      const submitted = entries.map((e) => e.host);
      // A batch costing more than what remains (not shown): refused whole, or its first hosts served (overQuota).
      const left = this.meter.remaining();
      const served = entries.length <= left ? entries : r.overQuota === 'partial' && left > 0 ? entries.slice(0, left) : null;
      if (served === null) return this.exhausted(out, submitted);
      const hosts = served.map((e) => e.host);
      this.meter.charge('batch', hosts);
      const charged = { charged: hosts.length, hosts };
      // Every submitted host absent (§4 rule 5, not shown): 200 with empty data, or 404 (allAbsent); charged
      // either way. Under a partial answer the test is still on every submitted host, as the spec words it.
      if (r.allAbsent === 'not-found' && submitted.every((host) => !this.dataset.isHeld(host))) return out(404, { error: 'not_found' }, charged);
      const body = batchBody(served, this.dataset, r);
      if (omit === null) return out(200, body, charged);
      omitFromBatch(body, served, omit);
      return out(200, body, { ...charged, fault: 'omitHost' });
    }

    const host = hostname(decode(found.param), r.upperCase);
    if (host === null) return out(400, { error: operation === 'domain' ? 'bad_domain' : 'bad_host' });
    if (!this.meter.canSpend(1)) return this.exhausted(out, [host]);
    this.meter.charge(operation, [host]);
    const month = r.asOf === 'release' ? this.dataset.release : null;
    const data =
      operation === 'domain'
        ? servedProfile(this.dataset, host, r)
        : operation === 'traffic'
          ? month === null
            ? this.dataset.traffic(host)
            : restatedTraffic(this.dataset.traffic(host), month)
          : month === null
            ? this.dataset.employees(host)
            : restatedEmployees(this.dataset.employees(host), month);
    // A 404 on a costed lookup still spends it (§8.6).
    return data === null ? out(404, { error: 'not_found' }, { charged: 1, hosts: [host] }) : out(200, { data }, { charged: 1, hosts: [host] });
  }

  private exhausted(out: (status: number, body: unknown, extra?: Partial<Outcome>) => Outcome, hosts: string[]): Outcome {
    this.meter.countQuotaExhausted();
    return out(402, { error: 'quota_exhausted' }, { hosts });
  }
}
