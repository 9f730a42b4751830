// The stored settings, declared once: each one's name (`config set <name>`, also its long flag), its
// environment variable and its default. The option table (cli/options/table.ts) takes its setting rows from
// here, so the resolver (resolve.ts) needs nothing from the CLI.
import type { PlanName } from '../api/types.js';
import type { Rate } from './values.js';

export const SETTINGS = {
  baseUrl: { name: 'base-url', env: 'DOMAIN_INTEL_BASE_URL', default: 'https://api.domain-intel.example/api/v1' },
  plan: { name: 'plan', env: 'DOMAIN_INTEL_PLAN' },
  rpm: { name: 'rpm', env: 'DOMAIN_INTEL_RPM' },
  // Its environment is HTTPS_PROXY, HTTP_PROXY and NO_PROXY, not a variable of ours (proxy.ts reads them).
  proxy: { name: 'proxy', env: undefined },
  // Where answers, history and the account are kept: a PostgreSQL URL shared by a team, or none (SQLite in the
  // cache directory, the default).
  store: { name: 'store', env: 'DOMAIN_INTEL_STORE' },
} as const;

/** A stored setting's key. */
export type SettingKey = keyof typeof SETTINGS;

/** The options given on the command line that the resolver reads; undefined means "not given". */
export interface ConfigFlags {
  baseUrl?: string | undefined;
  plan?: PlanName | undefined;
  rpm?: number | undefined;
  rate?: Rate | undefined;
  maxAge?: number | undefined;
  cache?: boolean | undefined;
  proxy?: string | undefined;
  store?: string | undefined;
}
