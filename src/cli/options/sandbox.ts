// The sandbox command's options (`domain-intel sandbox`), a part of the one option table (options.ts spreads
// them in): the port, quota, window, latency and faults, and one option per reading of a point the spec leaves
// open (sandbox/readings.ts); each reading's help says why its default.
import { InvalidArgumentError } from 'commander';
import { DEFAULT_READINGS, READING_CHOICES } from '../../sandbox/readings.js';
import { FIRST_RELEASE, releaseOffset } from '../../sandbox/months.js';
import { counts, intOption, probability } from './parsers.js';
import type { OptionRow } from './row.js';

/** A sandbox reading: its choices, and its default (the reading thought most likely), from sandbox/readings.ts. */
function reading<K extends keyof typeof READING_CHOICES>(name: K, flag: `--${string}`, help: string) {
  return { flags: `${flag} <reading>` as const, help, commands: ['sandbox'] as const, choices: READING_CHOICES[name], default: DEFAULT_READINGS[name] };
}

/** A data release, YYYY-MM within the sandbox's range (sandbox/release.ts says the range and why). */
function release(value: string): string {
  try {
    releaseOffset(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  return value;
}

/** The sandbox's options, in the order help lists them. */
export const SANDBOX_OPTIONS = {
  port: { flags: '--port <n>', help: 'port (0 picks a free one)', commands: ['sandbox'], parse: intOption(0), default: 8787 },
  quota: { flags: '--quota <n>', help: 'lookups included this month', commands: ['sandbox'], parse: intOption(0) },
  windowMs: { flags: '--window-ms <n>', help: 'rate window length in ms', commands: ['sandbox'], parse: intOption(10), default: 60_000 },
  latencyMs: { flags: '--latency-ms <n>', help: 'added latency per request', commands: ['sandbox'], parse: intOption(0), default: 0 },
  failRate: { flags: '--fail-rate <p>', help: 'share of requests answered 503', commands: ['sandbox'], parse: probability, default: 0 },
  seed: { flags: '--seed <s>', help: 'dataset and fault seed', commands: ['sandbox'], default: '1' },
  hosts: { flags: '--hosts <n>', help: 'hosts in the dataset (at its first release)', commands: ['sandbox'], parse: intOption(1), default: 5000 },
  release: {
    flags: '--release <yyyy-mm>',
    help: `data release served: each month after ${FIRST_RELEASE} (the first) moves a few hosts (technologies, traffic band, redirects, gone, new); switch it: POST /__sandbox/release`,
    commands: ['sandbox'],
    parse: release,
    default: FIRST_RELEASE,
  },
  // The sandbox's readings of what the spec leaves open (sandbox/readings.ts); each help says why its default.
  allAbsent: reading(
    'allAbsent',
    '--all-absent',
    'a batch of absent hosts only: 200 with empty data, or 404; charged either way (empty: the service lists no 404 for a batch, absent hosts go to missing)',
  ),
  overQuota: reading('overQuota', '--over-quota', 'a batch costing more than is left: 402 whole, or its first hosts served (refuse: no silent throttling)'),
  order: reading('order', '--order', 'order of data and missing in a batch answer (submitted: the natural echo)'),
  missingCase: reading('missingCase', '--missing-case', "spelling of a batch's missing hosts (lower: as a profile's domain)"),
  upperCase: reading('upperCase', '--upper-case', 'upper-case hostnames lowered, or refused 400 (lower: the service answers a domain lower-cased)'),
  resetStyle: reading('resetStyle', '--reset-style', "how a 429 tells its reset, or 'none' (iso: the 429 body carries a reset time)"),
  quotaResetStyle: reading('quotaResetStyle', '--quota-reset-style', 'format of X-Quota-Reset (iso: the usual form in JSON APIs)'),
  window: reading('window', '--window', 'rate limit over clock-aligned or sliding windows (fixed: "requests per minute")'),
  asOf: reading('asOf', '--as-of', "what an estimate's as_of dates: its figure, or each release restating every figure (figure: the dataset's own)"),
  freeLimited: {
    flags: '--free-limited',
    help: 'rate-limit technology and catalog too (off by default: the service lists no 429 for them)',
    commands: ['sandbox'],
  },
  freeQuotaHeaders: {
    flags: '--free-quota-headers',
    help: 'quota headers on technology and catalog answers too (off by default: they are free)',
    commands: ['sandbox'],
  },
  revokeAfter: { flags: '--revoke-after <n>', help: 'revoke the printed key after N requests (default: never)', commands: ['sandbox'], parse: intOption(0) },
  slowRequests: {
    flags: '--slow-requests <list>',
    help: 'hold back the answers to these requests (1-based) by --slow-ms',
    commands: ['sandbox'],
    parse: counts,
  },
  ageDrift: {
    flags: '--age-drift <days>',
    help: "days added to every age_days served, as a service counting to today answers that much later (default: 0, the dataset's own)",
    commands: ['sandbox'],
    parse: intOption(0),
  },
  slowMs: { flags: '--slow-ms <n>', help: 'how long a held-back answer waits', commands: ['sandbox'], parse: intOption(0), default: 2000 },
} as const satisfies Record<string, OptionRow>;
