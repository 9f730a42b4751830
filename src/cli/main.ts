// The program: global options, the commands grouped by job, and their options; `main` parses one command
// line with a program of its own and returns the exit code. Command bodies live in commands/<name>.ts and
// are imported only when that command runs, so `--help` and `--version` stay fast.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { VERSION } from '../version.js';
import type { CommandModule } from './context.js';
import type { Io } from './io.js';
import { EXAMPLES } from './examples.js';
import { BATCH_FORMATS, FORMATS, INPUT_FORMATS, PLAN_CHOICES, intOption, listOption, parseDuration, parseRate } from './options.js';

const COMMANDS = {
  lookup: () => import('./commands/lookup.js'),
  batch: () => import('./commands/batch.js'),
  traffic: () => import('./commands/traffic.js'),
  employees: () => import('./commands/employees.js'),
  tech: () => import('./commands/tech.js'),
  catalog: () => import('./commands/catalog.js'),
  keys: () => import('./commands/keys.js'),
  config: () => import('./commands/config.js'),
  quota: () => import('./commands/quota.js'),
  cache: () => import('./commands/cache.js'),
  sandbox: () => import('./commands/sandbox.js'),
  completion: () => import('./commands/completion.js'),
} satisfies Record<string, () => Promise<CommandModule>>;

type RunAction = (name: keyof typeof COMMANDS, cmd: Command, args: Record<string, unknown>) => Promise<void>;

/** Runs the CLI on `io.argv`; returns the exit code (only the entry point exits the process). */
export async function main(io: Io): Promise<number> {
  let code = 0;
  // The machinery behind a command (context, logger, library) loads only now, not for --help, and at the
  // same time as the command's own module rather than after it.
  const runAction: RunAction = async (name, cmd, args) => {
    const command = COMMANDS[name]();
    // The rejection is reported by runAction below, which awaits this same promise once the machinery has
    // loaded; until then Node must not call it unhandled.
    command.catch(() => {});
    code = await (await import('./action.js')).runAction(command, cmd, args, io);
  };
  try {
    await createProgram(io, runAction).parseAsync([...io.argv], { from: 'user' });
    return code;
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.exitCode === 0) return 0; // --help and --version
    // Options are not parsed yet when commander finds a usage error, so --json is looked for in argv
    // (before any `--`).
    const end = io.argv.indexOf('--');
    const json = io.argv.slice(0, end === -1 ? undefined : end).includes('--json');
    return (await import('./report.js')).reportUsage(io, err, json);
  }
}

/** A fresh program whose actions call `runAction`, writing through `io` (help, version). */
function createProgram(io: Io, runAction: RunAction): Command {
  const program = new Command('domain-intel')
    .exitOverride()
    // Set before any command is added: subcommands copy it. Usage errors are written by main (report.ts).
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: () => {},
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
      // The help carries no colour of ours; saying so keeps commander from sniffing process.env for it.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .description('Enrich domains from the Domain Intelligence Service: technologies, hosting, registrar, traffic and employees.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .enablePositionalOptions(false)
    .optionsGroup('Global options:')
    .addOption(new Option('--base-url <url>', 'service base URL ending in /api/v1 (env DOMAIN_INTEL_BASE_URL)'))
    .addOption(new Option('--plan <plan>', 'your plan: sets the request rate (env DOMAIN_INTEL_PLAN)').choices(PLAN_CHOICES))
    .addOption(new Option('--rpm <n>', 'requests per minute, overriding the plan; 0: no pacing (env DOMAIN_INTEL_RPM)').argParser(intOption(0)))
    .addOption(new Option('--rate <n/window>', 'advanced: requests per window, e.g. 300/1m or 20/1s').argParser(parseRate))
    .addOption(new Option('--timeout <duration>', 'per-request timeout').default(30_000, '30s').argParser(parseDuration))
    .addOption(new Option('-q, --quiet', 'no quota line, no summary; warnings and errors only'))
    .addOption(new Option('--json', 'errors as JSON objects on stderr ({error, code, host, exit})'))
    .addOption(new Option('--debug', 'request log and stack traces on stderr (the key is redacted)'));

  program.addHelpText('after', EXAMPLES.program);

  program.commandsGroup('Look up domains:');

  enrichmentOptions(
    program
      .command('lookup')
      .description('profile of one or more hosts (several hosts use the batch endpoint)')
      .argument('<host...>', 'hostnames, URLs or e-mail addresses'),
    { formats: FORMATS, columns: false },
  )
    .addHelpText('after', EXAMPLES.lookup)
    .action((hosts: string[], _o, cmd: Command) => runAction('lookup', cmd, { hosts }));

  enrichmentOptions(
    program
      .command('batch')
      .description('enrich a CSV, TSV or list of domains (file or stdin), streaming, in input order')
      .argument('[file]', 'input file; - or nothing for stdin'),
    { formats: BATCH_FORMATS, columns: true },
  )
    .addHelpText('after', EXAMPLES.batch)
    .action((file: string | undefined, _o, cmd: Command) => runAction('batch', cmd, { file }));

  enrichmentOptions(
    program
      .command('traffic')
      .description('monthly traffic history of a host (or of every host in --input)')
      .argument('[host]', 'hostname')
      .addOption(new Option('-i, --input <file>', 'enrich every host of a file or - (stdin)')),
    { formats: FORMATS, columns: true },
  )
    .addHelpText('after', EXAMPLES.traffic)
    .action((host: string | undefined, _o, cmd: Command) => runAction('traffic', cmd, { host }));

  enrichmentOptions(
    program
      .command('employees')
      .description("employee estimate of a host's organisation (one lookup per registrable domain)")
      .argument('[host]', 'any hostname under the organisation')
      .addOption(new Option('-i, --input <file>', 'enrich every host of a file or - (stdin)')),
    { formats: FORMATS, columns: true },
  )
    .addHelpText('after', EXAMPLES.employees)
    .action((host: string | undefined, _o, cmd: Command) => runAction('employees', cmd, { host }));

  program.commandsGroup('Technologies (free):');

  program
    .command('tech')
    .description('how many domains run a technology')
    .argument('<name>', 'technology name exactly as in the catalog')
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS))
    .addOption(rawOption())
    .addHelpText('after', EXAMPLES.tech)
    .action((name: string, _o, cmd: Command) => runAction('tech', cmd, { name }));

  program
    .command('catalog')
    .description('all tracked technologies by category (cached locally)')
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS))
    .addOption(rawOption())
    .addOption(new Option('--category <slug>', 'only this category'))
    .addOption(new Option('--refresh', 'fetch the catalog again'))
    .addHelpText('after', EXAMPLES.catalog)
    .action((_o, cmd: Command) => runAction('catalog', cmd, {}));

  program.commandsGroup('Account and settings:');

  const keys = program.command('keys').description('manage stored API keys').addHelpText('after', EXAMPLES.keys);
  keys
    .command('add')
    .description('store a key read from stdin or a hidden prompt (never from the command line)')
    .argument('[name]', 'a name for the key', 'default')
    .action((name: string, _o, cmd: Command) => runAction('keys', cmd, { sub: 'add', name }));
  keys
    .command('list')
    .description('stored keys, masked; * marks the active one')
    .action((_o, cmd: Command) => runAction('keys', cmd, { sub: 'list' }));
  keys
    .command('use')
    .argument('<name>')
    .description('make a stored key the active one')
    .action((name: string, _o, cmd: Command) => runAction('keys', cmd, { sub: 'use', name }));
  keys
    .command('remove')
    .argument('<name>')
    .description('forget a stored key')
    .action((name: string, _o, cmd: Command) => runAction('keys', cmd, { sub: 'remove', name }));
  keys
    .command('verify')
    .description('check the active key against the service (free)')
    .action((_o, cmd: Command) => runAction('keys', cmd, { sub: 'verify' }));

  const config = program.command('config').description('show or change stored settings').addHelpText('after', EXAMPLES.config);
  config
    .command('show', { isDefault: true })
    .description('settings in force and where each comes from')
    .action((_o, cmd: Command) => runAction('config', cmd, { sub: 'show' }));
  config
    .command('set')
    .argument('<setting>', 'plan, rpm or base-url')
    .argument('<value>')
    .description('store a setting')
    .action((setting: string, value: string, _o, cmd: Command) => runAction('config', cmd, { sub: 'set', setting, value }));
  config
    .command('unset')
    .argument('<setting>')
    .description('forget a setting')
    .action((setting: string, _o, cmd: Command) => runAction('config', cmd, { sub: 'unset', setting }));

  program
    .command('quota')
    .description('the last quota the service reported, and how old it is')
    .addHelpText('after', EXAMPLES.quota)
    .action((_o, cmd: Command) => runAction('quota', cmd, {}));

  const cache = program.command('cache').description('the local answer cache').addHelpText('after', EXAMPLES.cache);
  cache
    .command('stats')
    .description('entries, size and age')
    .action((_o, cmd: Command) => runAction('cache', cmd, { sub: 'stats' }));
  cache
    .command('clear')
    .description('remove every cached answer')
    .action((_o, cmd: Command) => runAction('cache', cmd, { sub: 'clear' }));
  cache
    .command('prune')
    .description('remove answers older than --max-age')
    .addOption(new Option('--max-age <duration>', 'age limit').default(30 * 86_400_000, '30d').argParser(parseDuration))
    .action((_o, cmd: Command) => runAction('cache', cmd, { sub: 'prune' }));

  // Subcommands show their group's examples too: `keys add --help` is where a user looks for how to add one.
  for (const [group, examples] of [
    [keys, EXAMPLES.keys],
    [config, EXAMPLES.config],
    [cache, EXAMPLES.cache],
  ] as const) {
    for (const sub of group.commands) sub.addHelpText('after', examples);
  }

  program.commandsGroup('Tools:');

  program
    .command('sandbox')
    .description('run a local, faithful imitation of the service (no key, no network, nothing spent); --plan and --rpm set its limits (--rpm 0: unlimited)')
    .addOption(new Option('--port <n>', 'port (0 picks a free one)').default(8787).argParser(intOption(0)))
    .addOption(new Option('--quota <n>', 'lookups included this month').argParser(intOption(0)))
    .addOption(new Option('--window-ms <n>', 'rate window length in ms').default(60_000).argParser(intOption(10)))
    .addOption(new Option('--latency-ms <n>', 'added latency per request').default(0).argParser(intOption(0)))
    .addOption(new Option('--fail-rate <p>', 'share of requests answered 503').default(0).argParser(probability))
    .addOption(new Option('--seed <s>', 'dataset and fault seed').default('1'))
    .addOption(new Option('--hosts <n>', 'hosts in the dataset').default(5000).argParser(intOption(1)))
    .addHelpText('after', EXAMPLES.sandbox)
    .action((_o, cmd: Command) => runAction('sandbox', cmd, {}));

  program
    .command('completion')
    .description('print a shell completion script')
    .argument('[shell]', 'bash, zsh or fish')
    .addOption(new Option('--names <what>', 'list stored key names or cached technology names (used by the scripts)').hideHelp())
    .addHelpText('after', EXAMPLES.completion)
    .action((shell: string | undefined, _o, cmd: Command) => runAction('completion', cmd, { shell }));
  return program;
}

/** Every command that can write CSV can be told to leave formula-like cells alone. */
function rawOption(): Option {
  return new Option('--raw', 'do not neutralise spreadsheet formulas in CSV cells');
}

function enrichmentOptions(cmd: Command, opts: { formats: readonly string[]; columns: boolean }): Command {
  cmd
    .addOption(new Option('-f, --format <format>', 'output format').choices(opts.formats))
    .addOption(new Option('-o, --output <file>', 'write to FILE, replaced only when complete (- for stdout)'))
    .addOption(rawOption());
  if (opts.columns) {
    cmd
      .addOption(new Option('--column <name|index>', 'the host column, by header name or 1-based index'))
      .addOption(new Option('--input-format <format>', 'how to read the input').choices(INPUT_FORMATS).default('auto'))
      .addOption(new Option('--prefix <text>', 'prefix for the appended columns, to avoid clashes with yours').default(''))
      .addOption(new Option('--fields <list>', 'appended columns to write, comma-separated (see --help)').argParser(listOption))
      .addOption(new Option('--strict', 'exit 3 when any row is invalid'));
  }
  return cmd
    .addOption(new Option('--dry-run', 'read and plan, spend nothing: print lookups and requests needed'))
    .addOption(new Option('--max-lookups <n>', 'hard budget: never spend more than N lookups').argParser(intOption(0)))
    .addOption(new Option('--allow-partial', 'run even when the quota left cannot cover the lookups needed'))
    .addOption(new Option('--no-cache', 'neither read nor write the local cache'))
    .addOption(new Option('--refresh', 'fetch again what the cache holds'))
    .addOption(new Option('--max-age <duration>', 'oldest cached answer to use').default(30 * 86_400_000, '30d').argParser(parseDuration))
    .addOption(new Option('--retries <n>', 'retries for 5xx, timeouts and broken answers').default(4).argParser(intOption(0)))
    .addOption(new Option('--concurrency <n>', 'requests in flight').default(8).argParser(intOption(1)))
    .addOption(new Option('--progress', 'show progress even when stderr is not a terminal'));
}

function probability(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}
