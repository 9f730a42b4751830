// Every option of the CLI, declared once (ARCHITECTURE habit 11): flags and argument, parser, default, help
// text, the commands that take it, and the stored setting and environment variable it maps to. The table
// drives commander (main.ts), the config resolver (config/resolve.ts), the type of `ctx.opts` (Opts, below),
// shell completion (commands/completion.ts) and the option reference docs/options.md (cli/options/doc.ts, `npm
// run docs`). Parsers run at parse time, so a bad value is a usage error before anything is sent (habit 3).
// Kept free of heavy imports: this file loads for every command, even --help.
import { type Command, Option } from 'commander';
import { PLAN_NAMES } from '../../api/types.js';
import { DEFAULT_MAX_AGE_MS, durationText } from '../../config/values.js';
import { delimiter, duration, intOption, list, rate } from './parsers.js';
import { ENCODINGS } from '../../domain/input-forms.js';
import { CATALOG_OPTIONS } from './catalog.js';
import { NETWORK_OPTIONS } from './network.js';
import { STORE_OPTIONS } from './store.js';
import { CHANGES_OPTIONS } from './changes.js';
import { SANDBOX_OPTIONS } from './sandbox.js';
import { SETTINGS } from '../../config/settings-table.js';
import type { CommandPath, OptionRow } from './row.js';
import { PROGRESS_OPTIONS } from './progress.js';
import { SUMMARIZE_OPTIONS } from './summarize.js';

const FORMATS = ['table', 'json', 'ndjson', 'csv', 'xlsx'] as const;
// xlsx is rows only (a file run's, or hosts looked up): the listings have none.
const SHOWN_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
const BATCH_FORMATS = ['csv', 'json', 'ndjson', 'xlsx'] as const;
const INPUT_FORMATS = ['auto', 'csv', 'tsv', 'lines'] as const;
const HOSTS_FORMAT = 'output format (default: by the -o name as for batch; without -o, a table on a terminal and json in a pipe)';
const ONE_HOST_FORMAT = 'output format (default: by the -o name as for batch, csv for --input; one host without -o: table on a terminal, json in a pipe)';

const ENRICH = ['lookup', 'batch', 'traffic', 'employees'] as const;
/** The commands that enrich hosts (cli/run/batch-run.ts runs them on lists). */
export type EnrichCommand = (typeof ENRICH)[number];
const FROM_FILE = ['batch', 'traffic', 'employees'] as const;
/** The commands that read an input file as batch does. */
const READS_FILE = [...FROM_FILE, 'changes', 'summarize'] as const;

/** commander's flags for --version, which it declares itself (main.ts); completion offers them too. */
export const VERSION_FLAGS = '-V, --version';

/** The options, in the order help lists them; a key is commander's attribute name for the long flag. */
export const OPTIONS = {
  baseUrl: {
    flags: '--base-url <url>',
    help: 'service base URL ending in /api/v1',
    commands: 'global',
    // Checked by the config resolver, not here: commander would quote the rejected value, and a URL
    // with user:password@ in it carries a secret.
    default: SETTINGS.baseUrl.default,
    setting: 'baseUrl',
    env: SETTINGS.baseUrl.env,
  },
  plan: {
    flags: '--plan <plan>',
    help: 'your plan: sets the request rate',
    commands: 'global',
    choices: PLAN_NAMES,
    setting: 'plan',
    env: SETTINGS.plan.env,
  },
  rpm: {
    flags: '--rpm <n>',
    help: 'requests per minute, overriding the plan; 0: no pacing',
    commands: 'global',
    parse: intOption(0),
    setting: 'rpm',
    env: SETTINGS.rpm.env,
  },
  rate: { flags: '--rate <n/window>', help: 'advanced: requests per window, e.g. 300/1m or 20/1s', commands: 'global', parse: rate },
  timeout: { flags: '--timeout <duration>', help: 'per-attempt timeout', commands: 'global', parse: duration, default: 30_000, show: durationText },
  ...NETWORK_OPTIONS,
  ...STORE_OPTIONS,
  quiet: { flags: '-q, --quiet', help: 'no quota line, no summary; warnings and errors only', commands: 'global' },
  json: { flags: '--json', help: 'errors as JSON objects on stderr ({error, code, host, exit})', commands: 'global' },
  debug: { flags: '--debug', help: 'request log and stack traces on stderr (the key is redacted)', commands: 'global' },

  input: { flags: '-i, --input <file>', help: 'enrich every host of a file or - (stdin)', commands: ['traffic', 'employees'] },
  format: {
    flags: '-f, --format <format>',
    help: 'output format',
    commands: [...ENRICH, 'tech', 'catalog', 'changes', 'summarize'],
    choices: FORMATS,
    per: {
      batch: { choices: BATCH_FORMATS, help: 'output format (default: by the -o name: .xlsx .json .ndjson .jsonl, else csv)' },
      traffic: { help: ONE_HOST_FORMAT },
      employees: { help: ONE_HOST_FORMAT },
      lookup: { help: HOSTS_FORMAT },
      tech: { choices: SHOWN_FORMATS },
      catalog: { choices: SHOWN_FORMATS },
      changes: { choices: SHOWN_FORMATS, help: 'output format (default: table on a terminal, else ndjson)' },
      summarize: { choices: ['table', 'json'], help: 'output format: bar charts (table, the default) or the summary as JSON' },
    },
  },
  output: { flags: '-o, --output <file>', help: 'write to FILE, replaced only when complete (- for stdout)', commands: ENRICH },
  replaceIncomplete: {
    flags: '--replace-incomplete',
    help: 'let an incomplete run replace -o FILE (default: FILE kept, rows to FILE.partial)',
    commands: ENRICH,
  },
  raw: {
    flags: '--raw',
    help: "write the service's text as it is in CSV cells (by default a cell starting with = + - or @ gets a leading ' so a spreadsheet does not run it as a formula)",
    commands: [...ENRICH, 'tech', 'catalog', 'changes'],
  },
  neutraliseInput: { flags: '--neutralise-input', help: 'neutralise formulas in your own input cells too (default: only ours)', commands: ENRICH },
  bom: { flags: '--bom', help: 'start CSV output with a UTF-8 BOM, for Excel (kept anyway when the input has one)', commands: ENRICH },
  column: {
    flags: '--column <name|index>',
    help: 'the host column, by header name or 1-based index',
    commands: READS_FILE,
    per: { summarize: { help: 'with --from-cache: the host column, by header name or 1-based index' } },
  },
  sheet: { flags: '--sheet <name>', help: 'the sheet of an .xlsx input to read (default: the first)', commands: READS_FILE },
  inputFormat: { flags: '--input-format <format>', help: 'how to read the input', commands: READS_FILE, choices: INPUT_FORMATS, default: 'auto' },
  delimiter: {
    flags: '--delimiter <char>',
    help: "the input's delimiter: , ; tab or | (default: sniffed from the header and first rows; CSV output keeps it)",
    commands: READS_FILE,
    parse: delimiter,
  },
  encoding: {
    flags: '--encoding <name>',
    help: "the input's encoding (default: UTF-8, UTF-16 by its BOM, else Windows-1252 when it looks like it); output is UTF-8",
    commands: READS_FILE,
    choices: ENCODINGS,
  },
  prefix: {
    flags: '--prefix <text>',
    help: 'prefix for our appended columns, to avoid clashes (for changes: the prefix its input was written with)',
    commands: READS_FILE,
    default: '',
    per: { summarize: { help: 'the prefix the enriched file was written with (batch --prefix)' } },
  },
  fields: {
    flags: '--fields <list>',
    help: 'appended columns to write, comma-separated, named as in the CSV output (a wrong name is refused with the list)',
    commands: FROM_FILE,
    parse: list,
  },
  strict: { flags: '--strict', help: 'exit 3 when any row is invalid', commands: FROM_FILE },
  changes: {
    flags: '--changes',
    help: 'append what changed since the answer held before: change, changed_fields, tech_added, tech_removed, traffic_band_was, previous_fetched_at',
    commands: FROM_FILE,
  },
  category: { flags: '--category <slug>', help: 'only this category', commands: ['catalog'] },
  dryRun: { flags: '--dry-run', help: 'read and plan, spend nothing: print lookups and requests needed', commands: ENRICH },
  maxLookups: { flags: '--max-lookups <n>', help: 'hard budget: never spend more than N lookups', commands: ENRICH, parse: intOption(0) },
  allowAnyName: {
    flags: '--allow-any-name',
    help: 'send every name the service takes as a hostname (single names, IP addresses, placeholders, names mixing scripts), for a service holding intranet names',
    commands: ENRICH,
  },
  allowEmpty: { flags: '--allow-empty', help: 'run an input with no rows (empty, or a header alone): write an empty output, exit 0', commands: FROM_FILE },
  allowPartial: { flags: '--allow-partial', help: 'run even when the quota left cannot cover the lookups needed', commands: ENRICH },
  cache: { flags: '--no-cache', help: 'neither read nor write the local cache', commands: ENRICH },
  refresh: {
    flags: '--refresh',
    help: 'fetch again what the cache holds',
    commands: [...ENRICH, 'catalog'],
    per: { catalog: { help: 'fetch the catalog again' } },
  },
  stale: {
    flags: '--no-stale',
    help: 'never use an answer older than --max-age, even when the service cannot be reached to refresh it',
    commands: ENRICH,
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
  history: {
    flags: '--history <duration>',
    help: 'also drop past answers (kept when a refresh changed them) replaced longer ago than this',
    commands: ['cache prune'],
    parse: duration,
  },
  yes: {
    flags: '-y, --yes',
    help: 'clear a shared store without asking (it is asked at a terminal, and refused elsewhere without this)',
    commands: ['cache clear'],
  },
  retries: { flags: '--retries <n>', help: 'retries for 5xx, timeouts and broken answers', commands: ENRICH, parse: intOption(0), default: 4 },
  concurrency: { flags: '--concurrency <n>', help: 'requests in flight', commands: ENRICH, parse: intOption(1), default: 8 },
  ...PROGRESS_OPTIONS,

  ...CHANGES_OPTIONS,
  ...SUMMARIZE_OPTIONS,
  ...SANDBOX_OPTIONS,
  ...CATALOG_OPTIONS,

  names: {
    flags: '--names <what>',
    help: 'list stored key names, or cached technology names or category slugs (used by the scripts)',
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
