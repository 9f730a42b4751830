// Every option of the CLI, declared once (ARCHITECTURE habit 11): flags and argument, parser, default, help
// text, the commands that take it, and the stored setting and environment variable it maps to. The table
// drives commander (main.ts), the config resolver (store/config.ts), the type of `ctx.opts` (Opts, below),
// shell completion (commands/completion.ts) and the README's option reference (options-doc.ts, `npm run
// docs`). Parsers run at parse time, so a bad value is a usage error before anything is sent (habit 3).
// Kept free of heavy imports: this file loads for every command, even --help.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { PLAN_NAMES } from '../api/types.js';
import { DEFAULT_READINGS, READING_CHOICES } from '../sandbox/readings.js';
import { DEFAULT_MAX_AGE_MS, durationText, parseDuration, parseRate } from '../store/values.js';

const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
const BATCH_FORMATS = ['csv', 'json', 'ndjson'] as const;
const INPUT_FORMATS = ['auto', 'csv', 'tsv', 'lines'] as const;

/** The commands that take options of their own, by path; every command takes the global options. */
type CommandPath = 'lookup' | 'batch' | 'traffic' | 'employees' | 'tech' | 'catalog' | 'cache prune' | 'sandbox' | 'completion';
const ENRICH = ['lookup', 'batch', 'traffic', 'employees'] as const;
/** The commands that enrich hosts (cli/list.ts runs them on lists). */
export type EnrichCommand = (typeof ENRICH)[number];
const FROM_FILE = ['batch', 'traffic', 'employees'] as const;

/** commander's flags for --version, which it declares itself (main.ts); completion offers them too. */
export const VERSION_FLAGS = '-V, --version';

/** A whole number >= min. */
function intOption(min: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number, got ${JSON.stringify(value)}`);
    const n = Number.parseInt(value, 10);
    if (n < min) throw new InvalidArgumentError(`expected a number of at least ${min}`);
    return n;
  };
}

// commander reports an InvalidArgumentError as "option '--x <v>' argument 'y' is invalid. <message>".
function asOptionError<T>(rule: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return rule(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

/** A duration such as 500ms, 45s, 90m, 12h, 30d, 2w, in ms. */
const duration = asOptionError(parseDuration);
/** A rate such as 300/1m, 20/1s or a plain 600 (per minute). */
const rate = asOptionError(parseRate);

/** A comma-separated list. */
function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A comma-separated list of whole numbers of at least 1. */
function counts(value: string): number[] {
  const one = intOption(1);
  return list(value).map(one);
}

/** A sandbox reading: its choices, and its default (the reading thought most likely), from sandbox/readings.ts. */
function reading<K extends keyof typeof READING_CHOICES>(name: K, flag: `--${string}`, help: string) {
  return { flags: `${flag} <reading>` as const, help, commands: ['sandbox'] as const, choices: READING_CHOICES[name], default: DEFAULT_READINGS[name] };
}

/** A number from 0 to 1. */
function probability(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

/** One option. `default` is applied by commander, except for a setting, which the config resolver applies. */
export interface OptionRow {
  /** As commander reads them: short and long flag, and `<argument>` when the option takes a value. */
  flags: string;
  help: string;
  commands: 'global' | readonly CommandPath[];
  parse?: (value: string) => unknown;
  choices?: readonly string[];
  default?: unknown;
  /** The default as help writes it, when not as commander would (a number of ms as "30d"). */
  show?: (value: number) => string;
  /** The stored setting (`config set <long flag>`), between the default and the environment. */
  setting?: 'baseUrl' | 'plan' | 'rpm';
  env?: `DOMAIN_INTEL_${string}`;
  hidden?: true;
  /** Where one command words it differently or offers fewer choices. */
  per?: Partial<Record<CommandPath, { help?: string; choices?: readonly string[] }>>;
}

/** The options, in the order help lists them; a key is commander's attribute name for the long flag. */
export const OPTIONS = {
  baseUrl: {
    flags: '--base-url <url>',
    help: 'service base URL ending in /api/v1',
    commands: 'global',
    // Checked by the config resolver, not here: commander would quote the rejected value, and a URL
    // with user:password@ in it carries a secret.
    default: 'https://api.domain-intel.example/api/v1',
    setting: 'baseUrl',
    env: 'DOMAIN_INTEL_BASE_URL',
  },
  plan: {
    flags: '--plan <plan>',
    help: 'your plan: sets the request rate',
    commands: 'global',
    choices: PLAN_NAMES,
    setting: 'plan',
    env: 'DOMAIN_INTEL_PLAN',
  },
  rpm: {
    flags: '--rpm <n>',
    help: 'requests per minute, overriding the plan; 0: no pacing',
    commands: 'global',
    parse: intOption(0),
    setting: 'rpm',
    env: 'DOMAIN_INTEL_RPM',
  },
  rate: { flags: '--rate <n/window>', help: 'advanced: requests per window, e.g. 300/1m or 20/1s', commands: 'global', parse: rate },
  timeout: { flags: '--timeout <duration>', help: 'per-request timeout', commands: 'global', parse: duration, default: 30_000, show: durationText },
  quiet: { flags: '-q, --quiet', help: 'no quota line, no summary; warnings and errors only', commands: 'global' },
  json: { flags: '--json', help: 'errors as JSON objects on stderr ({error, code, host, exit})', commands: 'global' },
  debug: { flags: '--debug', help: 'request log and stack traces on stderr (the key is redacted)', commands: 'global' },

  input: { flags: '-i, --input <file>', help: 'enrich every host of a file or - (stdin)', commands: ['traffic', 'employees'] },
  format: {
    flags: '-f, --format <format>',
    help: 'output format',
    commands: [...ENRICH, 'tech', 'catalog'],
    choices: FORMATS,
    per: { batch: { choices: BATCH_FORMATS } },
  },
  output: { flags: '-o, --output <file>', help: 'write to FILE, replaced only when complete (- for stdout)', commands: ENRICH },
  raw: { flags: '--raw', help: 'do not neutralise spreadsheet formulas in CSV cells', commands: [...ENRICH, 'tech', 'catalog'] },
  column: { flags: '--column <name|index>', help: 'the host column, by header name or 1-based index', commands: FROM_FILE },
  inputFormat: { flags: '--input-format <format>', help: 'how to read the input', commands: FROM_FILE, choices: INPUT_FORMATS, default: 'auto' },
  prefix: { flags: '--prefix <text>', help: 'prefix for the appended columns, to avoid clashes with yours', commands: FROM_FILE, default: '' },
  fields: { flags: '--fields <list>', help: 'appended columns to write, comma-separated (see --help)', commands: FROM_FILE, parse: list },
  strict: { flags: '--strict', help: 'exit 3 when any row is invalid', commands: FROM_FILE },
  category: { flags: '--category <slug>', help: 'only this category', commands: ['catalog'] },
  dryRun: { flags: '--dry-run', help: 'read and plan, spend nothing: print lookups and requests needed', commands: ENRICH },
  maxLookups: { flags: '--max-lookups <n>', help: 'hard budget: never spend more than N lookups', commands: ENRICH, parse: intOption(0) },
  allowPartial: { flags: '--allow-partial', help: 'run even when the quota left cannot cover the lookups needed', commands: ENRICH },
  cache: { flags: '--no-cache', help: 'neither read nor write the local cache', commands: ENRICH },
  refresh: {
    flags: '--refresh',
    help: 'fetch again what the cache holds',
    commands: [...ENRICH, 'catalog'],
    per: { catalog: { help: 'fetch the catalog again' } },
  },
  maxAge: {
    flags: '--max-age <duration>',
    help: 'oldest cached answer to use',
    commands: [...ENRICH, 'cache prune'],
    parse: duration,
    default: DEFAULT_MAX_AGE_MS,
    show: durationText,
    per: { 'cache prune': { help: 'age limit' } },
  },
  retries: { flags: '--retries <n>', help: 'retries for 5xx, timeouts and broken answers', commands: ENRICH, parse: intOption(0), default: 4 },
  concurrency: { flags: '--concurrency <n>', help: 'requests in flight', commands: ENRICH, parse: intOption(1), default: 8 },
  progress: { flags: '--progress', help: 'show progress even when stderr is not a terminal', commands: ENRICH },

  port: { flags: '--port <n>', help: 'port (0 picks a free one)', commands: ['sandbox'], parse: intOption(0), default: 8787 },
  quota: { flags: '--quota <n>', help: 'lookups included this month', commands: ['sandbox'], parse: intOption(0) },
  windowMs: { flags: '--window-ms <n>', help: 'rate window length in ms', commands: ['sandbox'], parse: intOption(10), default: 60_000 },
  latencyMs: { flags: '--latency-ms <n>', help: 'added latency per request', commands: ['sandbox'], parse: intOption(0), default: 0 },
  failRate: { flags: '--fail-rate <p>', help: 'share of requests answered 503', commands: ['sandbox'], parse: probability, default: 0 },
  seed: { flags: '--seed <s>', help: 'dataset and fault seed', commands: ['sandbox'], default: '1' },
  hosts: { flags: '--hosts <n>', help: 'hosts in the dataset', commands: ['sandbox'], parse: intOption(1), default: 5000 },
  // The sandbox's readings of what the spec leaves open (sandbox/readings.ts); each help says why its default.
  allAbsent: reading('allAbsent', '--all-absent', 'a batch of absent hosts only: 200 with empty data, or 404; charged either way (empty: §7 has no batch 404)'),
  overQuota: reading('overQuota', '--over-quota', 'a batch costing more than is left: 402 whole, or its first hosts served (refuse: no silent throttling)'),
  order: reading('order', '--order', 'order of data and missing in a batch answer (submitted: the natural echo)'),
  missingCase: reading('missingCase', '--missing-case', "spelling of a batch's missing hosts (lower: as a profile's domain)"),
  upperCase: reading('upperCase', '--upper-case', 'upper-case hostnames lowered, or refused 400 (lower: §4 answers them lower-cased)'),
  resetStyle: reading('resetStyle', '--reset-style', "how a 429 tells its reset, or 'none' (iso: §7's body carries a reset time)"),
  quotaResetStyle: reading('quotaResetStyle', '--quota-reset-style', 'format of X-Quota-Reset (iso: the usual form in JSON APIs)'),
  window: reading('window', '--window', 'rate limit over clock-aligned or sliding windows (fixed: "requests per minute")'),
  freeLimited: { flags: '--free-limited', help: 'rate-limit technology and catalog too (off by default: §7 gives them no 429)', commands: ['sandbox'] },
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
  slowMs: { flags: '--slow-ms <n>', help: 'how long a held-back answer waits', commands: ['sandbox'], parse: intOption(0), default: 2000 },

  names: {
    flags: '--names <what>',
    help: 'list stored key names or cached technology names (used by the scripts)',
    commands: ['completion'],
    hidden: true,
  },
} as const satisfies Record<string, OptionRow>;

type OptionName = keyof typeof OPTIONS;
type Table = typeof OPTIONS;

// The type of ctx.opts, computed from the table: each option's value is what its parser returns (or one
// of its choices, a string, a boolean); it is always there when commander fills a default.
type Value<R> = R extends { parse: (value: string) => infer T }
  ? T
  : R extends { choices: readonly (infer T)[] }
    ? T
    : R extends { flags: `--no-${string}` }
      ? boolean
      : R extends { flags: `${string}<${string}>` }
        ? string
        : true;
type Filled<R> = R extends { flags: `--no-${string}` } ? true : R extends { default: unknown } ? (R extends { setting: string } ? false : true) : false;
type TakenBy<R> = R extends { commands: readonly (infer C)[] } ? C : string;

/**
 * The parsed options of the command(s) C: the global options, and the options C takes. Under a union of
 * commands (a module serving several), an option only some of them take may be absent.
 */
export type Opts<C extends string> = {
  [K in OptionName as [C] extends [TakenBy<Table[K]>] ? K : never]: Filled<Table[K]> extends true ? Value<Table[K]> : Value<Table[K]> | undefined;
} & {
  [K in OptionName as [C] extends [TakenBy<Table[K]>] ? never : C extends TakenBy<Table[K]> ? K : never]?: Value<Table[K]> | undefined;
};

/** Any option, as typed on a command line. */
export type GivenOptions = { [K in OptionName]?: Value<Table[K]> | undefined };

const rows = Object.entries(OPTIONS) as [OptionName, OptionRow][];

/**
 * The options of the command at `path` ('cache prune'), or the global ones for '' (the program), in table
 * order, with that command's wording and choices.
 */
export function optionsOf(path: string): (OptionRow & { name: OptionName })[] {
  const taken = (row: OptionRow) => (row.commands === 'global' ? path === '' : (row.commands as readonly string[]).includes(path));
  return rows.filter(([, row]) => taken(row)).map(([name, row]) => ({ ...row, ...row.per?.[path as CommandPath], name }));
}

/** The flags of an option: ['-f', '--format'] for '-f, --format <format>'. */
export function flagsOf(row: Pick<OptionRow, 'flags'>): string[] {
  return row.flags.split(/[ ,]+/).filter((word) => word.startsWith('-'));
}

/** The long flag without its dashes ('base-url'): also the name `config set` takes for a setting. */
export function longName(row: Pick<OptionRow, 'flags'>): string {
  return flagsOf(row)
    .filter((flag) => flag.startsWith('--'))
    .join('')
    .slice(2);
}

/** The path of a command below the program ('cache prune'); '' for the program itself. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The help text, naming the environment variable when the option has one. */
function helpText(row: Pick<OptionRow, 'help' | 'env'>): string {
  return row.env === undefined ? row.help : `${row.help} (env ${row.env})`;
}

/** Adds the table's options for `cmd` (the global ones to the program) and returns it. */
export function addOptions(cmd: Command): Command {
  for (const row of optionsOf(commandPath(cmd))) {
    const option = new Option(row.flags, helpText(row));
    if (row.choices) option.choices(row.choices);
    if (row.parse) option.argParser(row.parse);
    if (row.default !== undefined && row.setting === undefined) {
      option.default(row.default, typeof row.default === 'number' ? row.show?.(row.default) : undefined);
    }
    if (row.hidden) option.hideHelp();
    cmd.addOption(option);
  }
  return cmd;
}

/** The options given on the command line, without commander's defaults: the "flags" layer of the config. */
export function givenOptions(cmd: Command): GivenOptions {
  const all = cmd.optsWithGlobals();
  return Object.fromEntries(rows.filter(([name]) => cmd.getOptionValueSourceWithGlobals(name) === 'cli').map(([name]) => [name, all[name]]));
}

/** True when `ctx` runs `path`: narrows the options of a module that serves several subcommands. */
export function runs<X extends { command: Command }, C extends CommandPath>(ctx: X, path: C): ctx is X & { opts: Opts<C> } {
  return commandPath(ctx.command) === path;
}
