export interface Count {
  value: string;
  count: number;
  share: number;
} // share of found hosts, 0..1
export interface Summary {
  input: { name: string; format: 'csv' | 'tsv' | 'ndjson' | 'json' | 'xlsx' | 'hosts'; rows: number };
  generatedAt: string; // ISO 8601 UTC to the second
  // by row; unknown: no answer known (a host not cached under --from-cache, a row a stopped run never looked up)
  rows: { found: number; missing: number; invalid: number; error: number; unknown: number };
  hosts: { distinct: number; found: number }; // distinct hosts; shares are of hosts.found
  technologies: Count[]; // every technology, count desc then name
  categories: Count[]; // from the cached catalog (tech -> category slug); [] when none cached
  platforms: Count[];
  networks: Count[];
  countries: Count[];
  languages: Count[];
  trafficBands: Count[]; // in band order (<1K, 1K-10K, ... 10M+), not by count
  visits: { count: number; min: number; p25: number; p50: number; p75: number; p90: number; max: number } | null;
  employees: Count[]; // ranges "low-high" in numeric order
  httpStatus: Count[]; // by code, numeric order
  redirects: number; // found hosts with a redirect_to
  resolves: { yes: number; no: number; unknown: number };
}
