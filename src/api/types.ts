// Types of the service's resources, transcribed from SERVICE.md §2. Unknown values are null (§2), never absent.

/** Latest traffic estimate embedded in a profile (§2.2). */
export interface TrafficEstimate {
  estimated_monthly_visits: number;
  /** Band labels are not enumerated by the spec: any string is accepted. */
  band: string;
  /** YYYY-MM */
  as_of: string;
}

/** Latest employee estimate embedded in a profile (§2.3). */
export interface EmployeeEstimate {
  apex: string;
  low: number | null;
  high: number | null;
  point: number | null;
  /** YYYY-MM-DD */
  as_of: string;
}

/** Domain profile (§2.1). */
export interface DomainProfile {
  domain: string;
  resolves: boolean | null;
  technologies: string[] | null;
  network: string | null;
  platform: string | null;
  registrar: string | null;
  age_days: number | null;
  country_iso: string | null;
  lang_norm: string | null;
  http_status: number | null;
  redirect_to: string | null;
  traffic: TrafficEstimate | null;
  employees: EmployeeEstimate | null;
}

/** The profile fields in spec order (the sandbox's dataset test checks every profile against it). */
export const PROFILE_FIELDS = [
  'domain',
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
  'traffic',
  'employees',
] as const satisfies readonly (keyof DomainProfile)[];

/** One month of a traffic series (§2.4). */
export interface TrafficMonth {
  month: string;
  visits: number;
}

/** Response of the traffic endpoint (§2.4). */
export interface TrafficHistory {
  host: string;
  estimated_monthly_visits: number;
  band: string;
  as_of: string;
  history: TrafficMonth[];
}

/** Response of the employees endpoint (§2.5). */
export interface EmployeesResult {
  host: string;
  apex: string;
  estimated_employees: { low: number | null; high: number | null; point: number | null };
  as_of: string;
}

/** Technology count (§2.6). */
export interface TechnologyCount {
  tech: string;
  domains: number;
}

/** Catalog entry (§2.7). */
export interface CatalogCategory {
  category: string;
  technologies: TechnologyCount[];
}

/** Batch result (§2.8). */
export interface BatchResult {
  data: DomainProfile[];
  missing: string[];
}

/** Quota as reported by the X-Quota-* headers (§8.5). */
export interface QuotaInfo {
  limit: number | null;
  remaining: number | null;
  /** Parsed reset instant, when the header's (undocumented) format could be read. */
  reset: Date | null;
  /** The header text exactly as received, kept because its format is not documented. */
  resetRaw: string | null;
  /** When this was observed (client clock, epoch ms). */
  seenAt: number;
  /**
   * When the request that carried it was sent (client clock), when known: a figure from a request sent after
   * another was seen is not a straggler from before it (a lower limit then is news: api/quota.ts).
   */
  sentAt?: number;
}

/** A successful answer: the body's `data` plus the quota headers that came with it. */
export interface ApiResponse<T> {
  data: T;
  quota: QuotaInfo | null;
  status: number;
}

/** Plans and their limits (§8). */
export const PLANS = {
  pro: { monthly: 2000, perMinute: 60 },
  business: { monthly: 50_000, perMinute: 300 },
  'business-plus': { monthly: 250_000, perMinute: 600 },
} as const;
export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

/** Spec §8.3 and §8.4. */
export const MAX_BATCH = 100;
export const API_PREFIX = '/api/v1';
