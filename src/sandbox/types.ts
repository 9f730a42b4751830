// Public shapes of the sandbox: its options, its handle and its reports. Kept apart from the code so
// the CLI and the tests can import them without pulling in node:http.
import type { CatalogCategory, DomainProfile, EmployeesResult, PlanName, TechnologyCount, TrafficHistory } from '../api/types.js';
import type { Readings } from './readings.js';

/** Probabilities (0..1) of each injected fault, drawn per request from the seeded fault stream. */
export interface FaultRates {
  /** 503 {error:'metering_unavailable'}, nothing spent. */
  unavailable: number;
  /** Probability that a request starts a burst of 3-8 consecutive 503s. */
  burst503: number;
  /** Socket destroyed after the headers and part of the body; the lookup is spent. */
  reset: number;
  /** 200 whose JSON body is cut in half (Content-Length matches the half); spent. */
  truncated: number;
  /** 500 with an HTML body; nothing spent. */
  html500: number;
  /** The response is delayed by `slowMs` (its quota headers are read before the delay). */
  slow: number;
  /** 200 labelled application/json whose body is not JSON; spent. */
  garbage: number;
  /** 200 with valid JSON but Content-Type text/plain; spent. */
  wrongType: number;
  /** Batch only: one submitted host is dropped from both data and missing; spent. */
  omitHost: number;
}
export const FAULT_KINDS = [
  'unavailable',
  'burst503',
  'reset',
  'truncated',
  'html500',
  'slow',
  'garbage',
  'wrongType',
  'omitHost',
] as const satisfies readonly (keyof FaultRates)[];

/**
 * Options of startSandbox. The readings (one per point the spec leaves open; see readings.ts for each
 * choice, the default first, and why it is the default) are options too: allAbsent ('empty'), overQuota
 * ('refuse'), order ('submitted'), missingCase ('lower'), upperCase ('lower'), resetStyle ('iso'),
 * quotaResetStyle ('iso'), window ('fixed'), freeLimited (false), freeQuotaHeaders (false), revokeAfter
 * (null), and the condition slowRequests ([]). All can be changed at run time: setReadings(), or
 * POST /__sandbox/readings.
 */
export interface SandboxOptions extends Partial<Readings> {
  /** Default 0 (ephemeral). The server binds 127.0.0.1 only. */
  port?: number;
  /** Default 'business'. Sets the monthly allowance and requests per window from PLANS. */
  plan?: PlanName;
  /** Overrides the plan's lookups included this month. */
  quota?: number;
  /** Overrides the plan's requests per window; 0 means unlimited. */
  rpm?: number;
  /** Rate-limit window length in ms, default 60000. */
  windowMs?: number;
  /** Latency added to every API response, default 0. */
  latencyMs?: number;
  /** Extra latency drawn uniformly from [0, latencyJitterMs) with the seeded latency stream. */
  latencyJitterMs?: number;
  /** Dataset and fault seed, default 1. */
  seed?: number | string;
  /** Number of held hosts at the first release, default 5000. */
  hosts?: number;
  /**
   * The data release served, YYYY-MM from 2025-10 (the first, and the default: the dataset as it always was).
   * Each later month moves a few hosts: technologies adopted or dropped, traffic band moves, redirects, hosts
   * gone, back or new (release.ts). Switch it at run time with setRelease(), or POST /__sandbox/release.
   */
  release?: string;
  /** Fault probabilities; all 0 by default. */
  faults?: Partial<FaultRates>;
  /** Delay of the `slow` fault and of slowRequests, default 2000 ms. */
  slowMs?: number;
  /** Injectable epoch-ms clock for windows and month rollover, default Date.now. */
  clock?: () => number;
  /**
   * Waiting on `clock` (default timers): the latency, jitter and slow answers are waited out on it, so a test on
   * a virtual clock sees them take the time that clock says, in no real time. Resolves after `ms`.
   */
  sleep?: (ms: number) => Promise<void>;
}

/** Everything a caller (or the CLI's `sandbox` command) needs to point a client at the sandbox. */
export interface SandboxInfo extends Readings {
  url: string;
  baseUrl: string;
  key: string;
  plan: PlanName;
  limit: number;
  remaining: number;
  rpm: number;
  windowMs: number;
  seed: number | string;
  /** Hosts held at the release served. */
  hosts: number;
  release: string;
  slowMs: number;
  faults: FaultRates;
}

export interface ChargeReport {
  /** Lookups charged since the last resetCounters(). */
  total: number;
  /** Lookups charged per (lower-cased) host. A value above 1 means the host was paid for twice. */
  byHost: Record<string, number>;
  /** Lookups charged per operation: domain, batch, traffic, employees. */
  byEndpoint: Record<string, number>;
  /** API requests received (everything under /api/v1, admin routes excluded). */
  requests: number;
  rateLimited: number;
  quotaExhausted: number;
  unavailable: number;
  /** Lookups left this month. */
  remaining: number;
  /** Lookups included this month (allowance plus packs). */
  limit: number;
}

export interface RequestLogEntry {
  /** Clock time (epoch ms) at which the request was handled. */
  time: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** The raw request target, query included, so tests can detect a key leaked into a URL. */
  url: string;
  /** Operation name (domain, batch, traffic, employees, technology, catalog) or null for unknown routes. */
  operation: string | null;
  status: number;
  /** Lookups charged by this request. */
  charged: number;
  /** Hosts the request was about (lower-cased, distinct), or the technology name. */
  hosts: string[];
  /** The Authorization header exactly as received, or null when absent. */
  authorization: string | null;
  /** The fault injected into this response, if any. */
  fault: keyof FaultRates | null;
  /** A 429's reset (epoch ms): when the limit frees a request again, however the reset style tells it (or not); else null. */
  resetAt: number | null;
}

/** The deterministic data the sandbox serves. Every method returns a fresh copy. */
export interface Dataset {
  readonly seed: number | string;
  /** Number of held hosts. */
  readonly size: number;
  /** The data release, YYYY-MM (release.ts); the first is the month of the latest `as_of` of any traffic series. */
  readonly release: string;
  /** All held hosts in dataset order. */
  hosts(): string[];
  isHeld(host: string): boolean;
  /** Registrable domain of a host per the public suffix list, or null. */
  apexOf(host: string): string | null;
  /** Profile of a held host (lower-case input), or null when not held. */
  profile(host: string): DomainProfile | null;
  /** Traffic series of a held host, or null when none is held. */
  traffic(host: string): TrafficHistory | null;
  /** Employee estimate for any host under a held organisation's apex, or null. */
  employees(host: string): EmployeesResult | null;
  /** Count for a catalog name (exact, case-sensitive), or null when not in the catalog. */
  technology(name: string): TechnologyCount | null;
  catalog(): CatalogCategory[];
}

/** A running sandbox. */
export interface Sandbox {
  /** Origin, e.g. http://127.0.0.1:41234 */
  url: string;
  /** url + '/api/v1' */
  baseUrl: string;
  /** A ready-made valid key. */
  key: string;
  /** Registers and returns another valid key on the same account. */
  newKey(): string;
  /** Revokes a key; it fails from the next request on. */
  revokeKey(key: string): void;
  /** Adds a 25000-lookup pack (§8.1). */
  addPack(): void;
  /** Sets the lookups remaining this month. */
  setRemaining(n: number): void;
  /** Sets the plan's monthly allowance, this month included (a plan downgraded mid-month): X-Quota-Limit drops, what was used stays used. */
  setAllowance(n: number): void;
  /** Ends the month now: the allowance renews, packs lapse, X-Quota-Reset moves on a month. */
  rollover(): void;
  /** The readings in force. */
  readings(): Readings;
  /** Changes some readings at run time and returns them all; a bad value throws a RangeError and changes nothing. */
  setReadings(changes: Partial<Readings>): Readings;
  charges(): ChargeReport;
  requests(): RequestLogEntry[];
  /** The data release served (YYYY-MM). */
  release(): string;
  /** Serves another release from the next request on and returns it; a bad one throws a RangeError and changes nothing. */
  setRelease(release: string): string;
  /** What changed between two releases of this sandbox's dataset (`to` defaults to the release served). */
  changesBetween(from: string, to?: string): ReleaseChange[];
  /** Clears the charge and request logs; the quota is untouched. */
  resetCounters(): void;
  hostList(): string[];
  info(): SandboxInfo;
  /** The dataset of the release served. */
  readonly dataset: Dataset;
  close(): Promise<void>;
}

export type ChangeValue = string | number | boolean | string[] | null;

/**
 * One change of a domain profile (the lookup and batch answer). `field` is one of the profile columns the CLI
 * writes (technologies, traffic_band, employees_high, ...), or `status` for a host the service stopped or
 * started holding (`found` -> `missing`, `missing` -> `found`), whose other fields are then not listed.
 */
export interface ReleaseChange {
  host: string;
  field: string;
  from: ChangeValue;
  to: ChangeValue;
}
