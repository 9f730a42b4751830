// The typed client for every endpoint of §4. One keep-alive dispatcher for the whole run; the key only in
// the Authorization header; each error status becomes a typed error (errors.ts). One call is one attempt:
// retrying is the caller's decision (retry.ts), because a metered request retried blindly spends twice.
import type { Dispatcher } from 'undici';
import { VERSION } from '../version.js';
import { normaliseBaseUrl } from './base-url.js';
import { dataOf, parseJson, readCapped, statusError, transportError } from './answer.js';
import { AbortedError, BadRequestError, InvalidKeyError, ProtocolError, type ErrorDetails } from './errors.js';
import { isPlausibleHostname } from './hostname.js';
import { maskProxy } from './proxy-url.js';
import { parseQuotaHeaders } from './quota.js';
import { timeoutSignal } from './sleep.js';
import { readBatch, readCatalog, readEmployees, readProfile, readTechnology, readTraffic } from './validate.js';
import {
  MAX_BATCH,
  type ApiResponse,
  type BatchResult,
  type CatalogCategory,
  type DomainProfile,
  type EmployeesResult,
  type QuotaInfo,
  type TechnologyCount,
  type TrafficHistory,
} from './types.js';

export interface ClientOptions {
  /** Must end in /api/v1; plain http only to loopback. */
  baseUrl: string;
  /**
   * The key, or a function giving it on the first request that is sent (it may throw InvalidKeyError): a
   * command served from the cache then never needs one.
   */
  apiKey: string | (() => string);
  /** Bring your own undici dispatcher (tests); the client then never closes it, and `proxy` is not used. */
  dispatcher?: Dispatcher;
  /**
   * A forward proxy every request goes through (http:// or https://, user:password@ allowed): an https base URL
   * through a CONNECT tunnel, a plain http one as absolute-URI requests the proxy forwards (as curl does; many
   * proxies refuse CONNECT to ports other than 443). Which proxy applies (HTTPS_PROXY, NO_PROXY...) is the
   * caller's to decide (the CLI's config resolver).
   */
  proxy?: string | null;
  /** Whole-request timeout in ms (default 30 s). */
  timeoutMs?: number;
  /** Answers larger than this are refused (default 32 MiB; a full batch is well under 1 MiB). */
  maxBodyBytes?: number;
  /** Epoch-ms clock, injectable so tests can compress time. */
  clock?: () => number;
  /** Waiting on `clock` (default: timers): the request timeout runs on it (a test's virtual clock decides it). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Rate window used when a 429 names no reset (default one minute). */
  windowMs?: number;
  /** Check hostnames against rule 2.9 before sending (default true): a 400 spends a request for nothing. */
  validateLocally?: boolean;
  /** Called with the quota headers of every response that had them. */
  onQuota?: (quota: QuotaInfo) => void;
  /** Called after every request (for --debug): never receives headers, so never the key. */
  onResponse?: (info: { method: string; path: string; status: number | null; ms: number; error?: string }) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The timeout is multiplied by this (default 1). A metered request that timed out may have been served and
   * charged (§8.6): sent again with the same timeout to a slow service it is charged again and again, so a
   * retry after a timeout waits longer (retry.ts doubles it). Below 1 when retry.ts cuts the last attempt
   * to what is left of the cap on the request's time.
   */
  patience?: number;
}

interface RawAnswer {
  status: number;
  body: unknown;
  quota: QuotaInfo | null;
}

type Operation = 'domain' | 'batch' | 'traffic' | 'employees' | 'technology' | 'catalog';

/** Client for the Domain Intelligence Service. */
export class DomainIntelClient {
  readonly baseUrl: string;
  #key: string | null = null;
  readonly #keySource: () => string;
  readonly #options: ClientOptions;
  #dispatcher: Dispatcher | undefined;
  #ownsDispatcher = false;
  #lastQuota: QuotaInfo | null = null;

  constructor(options: ClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    const { apiKey } = options;
    if (typeof apiKey === 'function') this.#keySource = apiKey;
    else {
      this.#key = sendableKey(apiKey);
      this.#keySource = () => apiKey;
    }
    this.#options = options;
    this.#dispatcher = options.dispatcher;
  }

  /** One attempt's timeout in ms, before patience (retry.ts caps one request's time at a multiple of it). */
  get timeoutMs(): number {
    return this.#options.timeoutMs ?? 30_000;
  }

  /** The quota headers of the most recent response that carried them. */
  get lastQuota(): QuotaInfo | null {
    return this.#lastQuota;
  }

  /** GET /domain/{domain}: one profile, 1 lookup (a 404 still spends). */
  async domain(host: string, opts: CallOptions = {}): Promise<ApiResponse<DomainProfile>> {
    this.#checkHost(host, 'domain', 'bad_domain');
    const r = await this.#call('GET', `/domain/${encodeURIComponent(host)}`, 'domain', host, undefined, opts);
    return { ...r, data: readProfile(dataOf(r.body, 'domain', host), 'domain', host) };
  }

  /** POST /domains/batch: up to 100 distinct hosts, 1 lookup each, found or not. */
  async batch(hosts: readonly string[], opts: CallOptions = {}): Promise<ApiResponse<BatchResult>> {
    const distinct = [...new Set(hosts)];
    if (distinct.length < 1 || distinct.length > MAX_BATCH) {
      throw new BadRequestError(`a batch holds 1 to ${MAX_BATCH} distinct hosts, not ${distinct.length}`, { code: 'bad_batch', operation: 'batch' });
    }
    for (const h of distinct) this.#checkHost(h, 'batch', 'bad_batch');
    const r = await this.#call('POST', '/domains/batch', 'batch', undefined, JSON.stringify({ domains: distinct }), opts);
    return { ...r, data: readBatch(r.body) };
  }

  /** GET /traffic/{host}: the monthly series, 1 lookup. */
  async traffic(host: string, opts: CallOptions = {}): Promise<ApiResponse<TrafficHistory>> {
    this.#checkHost(host, 'traffic', 'bad_host');
    const r = await this.#call('GET', `/traffic/${encodeURIComponent(host)}`, 'traffic', host, undefined, opts);
    return { ...r, data: readTraffic(dataOf(r.body, 'traffic', host), host) };
  }

  /** GET /employees/{host}: the organisation's headcount estimate, 1 lookup. */
  async employees(host: string, opts: CallOptions = {}): Promise<ApiResponse<EmployeesResult>> {
    this.#checkHost(host, 'employees', 'bad_host');
    const r = await this.#call('GET', `/employees/${encodeURIComponent(host)}`, 'employees', host, undefined, opts);
    return { ...r, data: readEmployees(dataOf(r.body, 'employees', host), host) };
  }

  /** GET /technology/{name}: domains per technology, free. The name is URL-encoded ('/' becomes %2F). */
  async technology(name: string, opts: CallOptions = {}): Promise<ApiResponse<TechnologyCount>> {
    const r = await this.#call('GET', `/technology/${encodeURIComponent(name)}`, 'technology', name, undefined, opts);
    return { ...r, data: readTechnology(dataOf(r.body, 'technology', name), name) };
  }

  /** GET /meta/technologies: the catalog, free. */
  async catalog(opts: CallOptions = {}): Promise<ApiResponse<CatalogCategory[]>> {
    const r = await this.#call('GET', '/meta/technologies', 'catalog', undefined, undefined, opts);
    return { ...r, data: readCatalog(dataOf(r.body, 'catalog')) };
  }

  /** Closes the keep-alive connections if the client opened them. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher && this.#dispatcher) await this.#dispatcher.close();
    this.#dispatcher = undefined;
    this.#ownsDispatcher = false;
  }

  #checkHost(host: string, operation: Operation, code: string): void {
    if (this.#options.validateLocally === false) return;
    if (!isPlausibleHostname(host)) {
      throw new BadRequestError(`not a plausible hostname (lower-case, 3-253 characters, letters, digits, dots, hyphens): ${JSON.stringify(host)}`, {
        code,
        operation,
        host,
      });
    }
  }

  #getDispatcher(http: Http, proxyAgent: ProxyModule | null): Dispatcher {
    if (!this.#dispatcher) {
      const options = { keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connect: { timeout: 10_000 } };
      const tunnel = new URL(this.baseUrl).protocol === 'https:';
      const uri = this.#options.proxy;
      this.#dispatcher = proxyAgent && uri ? new proxyAgent.ProxyAgent({ ...options, uri, proxyTunnel: tunnel }) : new http.Agent(options);
      this.#ownsDispatcher = true;
    }
    return this.#dispatcher;
  }

  async #call(
    method: 'GET' | 'POST',
    path: string,
    operation: Operation,
    host: string | undefined,
    body: string | undefined,
    opts: CallOptions,
  ): Promise<RawAnswer> {
    const clock = this.#options.clock ?? Date.now;
    const started = clock();
    const timeoutMs = Math.round(this.timeoutMs * (opts.patience ?? 1));
    const base: ErrorDetails = { code: '', operation, ...(host === undefined ? {} : { host }) };
    const report = (status: number | null, error?: string) =>
      this.#options.onResponse?.({ method, path, status, ms: clock() - started, ...(error === undefined ? {} : { error }) });
    if (opts.signal?.aborted) throw new AbortedError();
    this.#key ??= sendableKey(this.#keySource()); // asked for only now, when a request must go
    const key = this.#key;
    http ??= await import('./http.js'); // undici, on the first request only
    // undici's proxy files load only with a proxy: a run without one never reads them.
    if (this.#options.proxy && !this.#options.dispatcher) proxyModule ??= await import('./proxy-agent.js');
    const dispatcher = this.#getDispatcher(http, proxyModule ?? null);
    // Set last, with nothing left to throw before the request: its timer is cleared once the body is read.
    const timer = timeoutSignal(timeoutMs, this.#options.sleep);
    const timeout = timer.signal;
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const sentAt = clock();
    let status: number;
    let text: string;
    let quota: QuotaInfo | null;
    let headers: Record<string, string | string[] | undefined>;
    try {
      const url = http.parseURL(this.baseUrl + path);
      const res = await http.request.call(dispatcher, {
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method,
        signal,
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json',
          'user-agent': `domain-intel/${VERSION}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = res.statusCode;
      quota = parseQuotaHeaders(res.headers, clock(), sentAt);
      headers = res.headers; // a 429's reset may be in any of them (api/reset.ts)
      text = await readCapped(res.body, this.#options.maxBodyBytes ?? 32 * 1024 * 1024, { ...base, status });
    } catch (err) {
      timer.clear();
      const proxy = this.#options.dispatcher === undefined && this.#options.proxy ? maskProxy(this.#options.proxy) : null;
      const mapped = transportError(err, opts.signal, timeout, timeoutMs, base, this.baseUrl, proxy);
      report(null, mapped.code);
      throw mapped;
    }
    timer.clear();
    report(status);
    if (quota) {
      this.#lastQuota = quota;
      this.#options.onQuota?.(quota);
    }
    const parsed = parseJson(text);
    if (status === 200) {
      // Be liberal about Content-Type: a body that parses as JSON of the right shape is used whatever the
      // header says; one that does not parse is a ProtocolError (and retryable: it may have been truncated).
      if (parsed === undefined) {
        throw new ProtocolError(`the service's answer was not valid JSON (${text.length} bytes; truncated?)`, { ...base, status, code: 'bad_json', quota });
      }
      return { status, body: parsed, quota };
    }
    throw statusError(status, parsed, text, headers, { ...base, status, quota }, { now: clock(), key, windowMs: this.#options.windowMs ?? 60_000 });
  }
}

/** The key if it can be sent; throws InvalidKeyError (never repeating it) when it is missing or cannot be a header value. */
function sendableKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') {
    throw new InvalidKeyError('no API key: store one with `domain-intel keys add` or set DOMAIN_INTEL_API_KEY', { code: 'invalid_key' });
  }
  // A key holding a line break or another control character (a paste accident) cannot be a header value:
  // undici refuses it locally on every attempt, which would read as a network failure and be retried.
  // It is a malformed key (§5.7): refuse it as one, without repeating it.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(key)) {
    throw new InvalidKeyError('the API key contains a line break or a control character and cannot be sent; copy it again', { code: 'invalid_key' });
  }
  return key;
}

type Http = typeof import('./http.js');
let http: Http | undefined;
type ProxyModule = typeof import('./proxy-agent.js');
let proxyModule: ProxyModule | undefined;
