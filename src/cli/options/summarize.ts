// The options of `domain-intel summarize`, a part of the one option table (options.ts spreads them in). The
// input's own options (--column, --input-format, --delimiter, --encoding, --sheet, --prefix) and --format are
// the table's shared rows.
import { intOption } from './parsers.js';
import type { OptionRow } from './row.js';

/** The sections --by shows in full, as typed; each names a list of the Summary (summary/types.ts). */
export const BY_FIELDS = {
  technologies: 'technologies',
  categories: 'categories',
  platforms: 'platforms',
  networks: 'networks',
  countries: 'countries',
  languages: 'languages',
  'traffic-bands': 'trafficBands',
  employees: 'employees',
  'http-status': 'httpStatus',
} as const;

/** The sections in an order of their own (band, range, code), shown whole whatever --top says. */
export const SCALES: ReadonlySet<string> = new Set(['trafficBands', 'employees', 'httpStatus']);

/** The summarize command's options, in the order help lists them. */
export const SUMMARIZE_OPTIONS = {
  top: {
    flags: '--top <n>',
    help: 'values shown per section, by count (traffic bands, employee ranges and status codes are always whole; JSON: lists cut to N only when given)',
    commands: ['summarize'],
    parse: intOption(1),
    default: 10,
  },
  by: { flags: '--by <field>', help: 'one section in full', commands: ['summarize'], choices: Object.keys(BY_FIELDS) as (keyof typeof BY_FIELDS)[] },
  html: {
    flags: '--html <file>',
    help: 'also write the summary as one self-contained HTML page to FILE, replaced only when complete (- for stdout, instead of the charts)',
    commands: ['summarize'],
  },
  fromCache: {
    flags: '--from-cache',
    help: 'the input is a plain host list: each host is summarised from the cache alone (spends nothing; hosts not held are unknown)',
    commands: ['summarize'],
  },
} as const satisfies Record<string, OptionRow>;
