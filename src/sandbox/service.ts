// The interface itself (SERVICE.md §4-§8): routing, auth, rate limit, validation, metering and answers.
// It turns one parsed request into an Outcome; server.ts does the HTTP and the transport-level faults.
import type { IncomingHttpHeaders } from 'node:http';
import { isPlausibleHostname } from '../api/hostname.js';
import { API_PREFIX, MAX_BATCH } from '../api/types.js';
import type { FaultInjector, PostFault } from './faults.js';
import type { KeyRing } from './keys.js';
import type { Meter } from './meter.js';
import type { Dataset, FaultRates, ResetStyle } from './types.js';

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

/**
 * The service lower-cases every hostname it is given, then applies rule 2.9. §4.1 says the domain endpoint
 * answers with the domain lower-cased, which only makes sense if upper-case input is accepted; the same
 * rule is used for traffic, employees and batch entries so one input never gets two treatments.
 */
function hostname(raw: string | null): string | null {
  if (raw === null) return null;
  const host = raw.toLowerCase();
  return isPlausibleHostname(host) ? host : null;
}

/** Distinct valid hosts of a batch body in submitted order, or null when the body breaks §4 / §8.3. */
function batchHosts(headers: IncomingHttpHeaders, body: Buffer): string[] | null {
  const mediaType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const domains = (parsed as { domains?: unknown }).domains;
  if (!Array.isArray(domains)) return null;
  const distinct = new Set<string>();
  for (const entry of domains) {
    const host = typeof entry === 'string' ? hostname(entry) : null;
    if (host === null) return null;
    distinct.add(host);
  }
  return distinct.size >= 1 && distinct.size <= MAX_BATCH ? [...distinct] : null;
}

/** The 429 answer in the configured style; the spec does not name the reset field (§7). */
function rateLimited(style: ResetStyle, resetAt: number, now: number): { body: object; headers: Record<string, string> } {
  const error = 'rate_limited';
  switch (style) {
    case 'iso':
      return { body: { error, reset_at: new Date(resetAt).toISOString() }, headers: {} };
    case 'epoch-s':
      return { body: { error, reset: Math.ceil(resetAt / 1000) }, headers: {} };
    case 'epoch-ms':
      return { body: { error, reset_ms: resetAt }, headers: {} };
    case 'seconds':
      return { body: { error, retry_after: Math.max(0, resetAt - now) / 1000 }, headers: {} };
    case 'retry-after':
      return { body: { error }, headers: { 'retry-after': String(Math.max(1, Math.ceil((resetAt - now) / 1000))) } };
  }
}

const HTML_500 =
  '<!doctype html>\n<html><head><title>500 Internal Server Error</title></head>\n<body><h1>Internal Server Error</h1><p>The upstream did not answer.</p></body></html>\n';

export class Service {
  constructor(
    private readonly dataset: Dataset,
    private readonly meter: Meter,
    private readonly keys: KeyRing,
    private readonly faults: FaultInjector,
    private readonly resetStyle: ResetStyle,
    private readonly clock: () => number,
  ) {}

  /**
   * Answers one API request. Order of checks (the spec does not give one): route, method, key (401),
   * rate limit (429, metered endpoints only), injected 503/500, input (400), quota (402), then the answer.
   */
  handle(request: ApiRequest): Outcome {
    this.meter.countRequest();
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
    if (!this.keys.accepts(request.headers.authorization)) return out(401, { error: 'invalid_key' });

    const metered = METERED.has(found.operation);
    // Quota headers go on every metered answer after auth, read at the moment the answer is made.
    const quota = (): Record<string, string> => (metered ? this.meter.quotaHeaders() : {});
    if (metered) {
      const resetAt = this.meter.admit();
      if (resetAt !== null) {
        const limited = rateLimited(this.resetStyle, resetAt, this.clock());
        return out(429, limited.body, { headers: { ...quota(), ...limited.headers } });
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

    const result = this.serve(found, request, quota);
    if (result.status !== 200) return { ...result, ...faulted, fault: result.fault ?? faulted.fault };
    let fault: Outcome['fault'] = plan.post ?? faulted.fault;
    if (found.operation === 'batch' && plan.omit !== null) {
      omitFromBatch(result.body as BatchBody, result.hosts, plan.omit);
      fault = plan.post ?? 'omitHost';
    }
    return { ...result, slow: plan.slow, post: plan.post, fault };
  }

  private serve(found: Route, request: ApiRequest, quota: () => Record<string, string>): Outcome {
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
      const hosts = batchHosts(request.headers, request.body);
      if (hosts === null) return out(400, { error: 'bad_batch' });
      // Undocumented: a batch costing more than what remains is refused whole with 402, nothing charged,
      // rather than served in part; the service never throttles silently (§7).
      if (!this.meter.canSpend(hosts.length)) return this.exhausted(out, hosts);
      this.meter.charge('batch', hosts);
      // Every host absent: not shown by the spec (§4.5); answered 200 with empty data, like any other batch.
      const data = hosts.map((host) => this.dataset.profile(host)).filter((p) => p !== null);
      const missing = hosts.filter((host) => !this.dataset.isHeld(host));
      return out(200, { data, missing }, { charged: hosts.length, hosts });
    }

    const host = hostname(decode(found.param));
    if (host === null) return out(400, { error: operation === 'domain' ? 'bad_domain' : 'bad_host' });
    if (!this.meter.canSpend(1)) return this.exhausted(out, [host]);
    this.meter.charge(operation, [host]);
    const data = operation === 'domain' ? this.dataset.profile(host) : operation === 'traffic' ? this.dataset.traffic(host) : this.dataset.employees(host);
    // A 404 on a costed lookup still spends it (§8.6).
    return data === null ? out(404, { error: 'not_found' }, { charged: 1, hosts: [host] }) : out(200, { data }, { charged: 1, hosts: [host] });
  }

  private exhausted(out: (status: number, body: unknown, extra?: Partial<Outcome>) => Outcome, hosts: string[]): Outcome {
    this.meter.countQuotaExhausted();
    return out(402, { error: 'quota_exhausted' }, { hosts });
  }
}

interface BatchBody {
  data: { domain: string }[];
  missing: string[];
}

/** Drops the host at `fraction` of the submitted list from a batch answer (the omitHost fault). */
function omitFromBatch(body: BatchBody, hosts: string[], fraction: number): void {
  const dropped = hosts[Math.floor(fraction * hosts.length)];
  body.data = body.data.filter((profile) => profile.domain !== dropped);
  body.missing = body.missing.filter((host) => host !== dropped);
}
