// The program: global options, the commands grouped by job, and their options; `main` parses one command
// line with a program of its own and returns the exit code. Command bodies live in commands/<name>.ts and
// are imported only when that command runs, so `--help` and `--version` stay fast.
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import type { CommandModule } from './context.js';
import type { Io } from './io.js';
import { EXAMPLES } from './options/examples.js';
import { addOptions, VERSION_FLAGS } from './options/table.js';
import { HELP_CONFIGURATION, helpAfter, helpWidth, UNWRAPPED } from './help-layout.js';

const COMMANDS = {
  lookup: () => import('./commands/lookup.js'),
  batch: () => import('./commands/batch.js'),
  traffic: () => import('./commands/traffic.js'),
  employees: () => import('./commands/employees.js'),
  tech: () => import('./commands/tech.js'),
  catalog: () => import('./commands/catalog.js'),
  changes: () => import('./commands/changes.js'),
  summarize: () => import('./commands/summarize.js'),
  keys: () => import('./commands/keys.js'),
  config: () => import('./commands/config.js'),
  quota: () => import('./commands/quota.js'),
  cache: () => import('./commands/cache.js'),
  store: () => import('./commands/store.js'),
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
    return (await import('./report/errors.js')).reportUsage(io, err, json);
  }
}

/** A fresh program whose actions call `runAction`, writing through `io` (help, version). */
function createProgram(io: Io, runAction: RunAction): Command {
  // Text after the options, wrapped to the help's width when it is written.
  const after = (text: string) => helpAfter(io, text);
  const program = new Command('domain-intel')
    .exitOverride()
    // Set before any command is added: subcommands copy it. Usage errors are written by main (report.ts).
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: () => {},
      // The terminal's width, or its user's when piped; no hard wrap with no terminal (help-layout.ts).
      getOutHelpWidth: () => helpWidth(io, false) ?? UNWRAPPED,
      getErrHelpWidth: () => helpWidth(io, true) ?? UNWRAPPED,
      // The help carries no colour of ours; saying so keeps commander from sniffing process.env for it.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .configureHelp(HELP_CONFIGURATION)
    .description('Enrich domains from the Domain Intelligence Service: technologies, hosting, registrar, traffic and employees.')
    .version(VERSION, VERSION_FLAGS)
    .showSuggestionAfterError(true)
    .enablePositionalOptions(false)
    .optionsGroup('Global options:');
  // Every command's options come from the table in options.ts, one addOptions() call per command.
  addOptions(program);

  program.addHelpText('after', after(EXAMPLES.program));

  program.commandsGroup('Look up domains:');

  addOptions(
    program
      .command('lookup')
      .description('profile of one or more hosts (several hosts use the batch endpoint)')
      .argument('<host...>', 'hostnames, URLs or e-mail addresses'),
  )
    .addHelpText('after', after(EXAMPLES.lookup))
    .action((hosts: string[], _o, cmd: Command) => runAction('lookup', cmd, { hosts }));

  addOptions(
    program
      .command('batch')
      .description('enrich a CSV, TSV or list of domains (file or stdin), streaming, in input order')
      .argument('[file]', 'input file; - or nothing for stdin'),
  )
    .addHelpText('after', after(EXAMPLES.batch))
    .action((file: string | undefined, _o, cmd: Command) => runAction('batch', cmd, { file }));

  addOptions(program.command('traffic').description('monthly traffic history of a host (or of every host in --input)').argument('[host]', 'hostname'))
    .addHelpText('after', after(EXAMPLES.traffic))
    .action((host: string | undefined, _o, cmd: Command) => runAction('traffic', cmd, { host }));

  addOptions(
    program
      .command('employees')
      .description("employee estimate of a host's organisation (one lookup per registrable domain)")
      .argument('[host]', 'any hostname under the organisation'),
  )
    .addHelpText('after', after(EXAMPLES.employees))
    .action((host: string | undefined, _o, cmd: Command) => runAction('employees', cmd, { host }));

  addOptions(
    program
      .command('changes')
      .description(
        "what changed: each host's latest answer against the one it replaced (or the one held at --since), for a file or the whole cache; reads the cache only, spends nothing",
      )
      .argument('[file]', 'input file read as batch reads it; - or nothing for stdin'),
  )
    .addHelpText('after', after(EXAMPLES.changes))
    .action((file: string | undefined, _o, cmd: Command) => runAction('changes', cmd, { file }));

  addOptions(
    program
      .command('summarize')
      .description('the picture of an enriched file: rows by status, technologies, platforms, countries, traffic, employees; spends nothing')
      .argument('[file]', 'a file batch wrote (CSV, TSV, xlsx, NDJSON or JSON), or a host list with --from-cache; - or nothing for stdin'),
  )
    .addHelpText('after', after(EXAMPLES.summarize))
    .action((file: string | undefined, _o, cmd: Command) => runAction('summarize', cmd, { file }));

  program.commandsGroup('Technologies (free):');

  addOptions(program.command('tech').description('how many domains run a technology').argument('<name>', 'technology name exactly as in the catalog'))
    .addHelpText('after', after(EXAMPLES.tech))
    .action((name: string, _o, cmd: Command) => runAction('tech', cmd, { name }));

  addOptions(program.command('catalog').description('all tracked technologies by category (cached locally)'))
    .addHelpText('after', after(EXAMPLES.catalog))
    .action((_o, cmd: Command) => runAction('catalog', cmd, {}));

  program.commandsGroup('Account and settings:');

  const keys = program.command('keys').description('manage stored API keys').addHelpText('after', after(EXAMPLES.keys));
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

  const config = program.command('config').description('show or change stored settings').addHelpText('after', after(EXAMPLES.config));
  config
    .command('show', { isDefault: true })
    .description('settings in force and where each comes from')
    .action((_o, cmd: Command) => runAction('config', cmd, { sub: 'show' }));
  config
    .command('set')
    .argument('<setting>', 'plan, rpm, base-url, proxy or store')
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
    .description("each account's quota as last reported, how old it is and whether its reset has passed")
    .addHelpText('after', after(EXAMPLES.quota))
    .action((_o, cmd: Command) => runAction('quota', cmd, {}));

  const cache = program
    .command('cache')
    .description('the answers kept in the store in use: the local cache, or the shared store --store names')
    .addHelpText('after', after(EXAMPLES.cache));
  cache
    .command('stats')
    .description('entries, size and age')
    .action((_o, cmd: Command) => runAction('cache', cmd, { sub: 'stats' }));
  addOptions(cache.command('clear').description('remove every cached answer and past answer (a shared store: asked first)')).action((_o, cmd: Command) =>
    runAction('cache', cmd, { sub: 'clear' }),
  );
  addOptions(cache.command('prune').description('remove answers older than --max-age (and, with --history, older past answers)')).action((_o, cmd: Command) =>
    runAction('cache', cmd, { sub: 'prune' }),
  );

  const store = program
    .command('store')
    .description('the store answers are kept in: the local cache, or a shared PostgreSQL store')
    .addHelpText('after', after(EXAMPLES.store));
  store
    .command('status')
    .description("what the store holds, its schema version, the runs using it now by machine, and the account's current window")
    .action((_o, cmd: Command) => runAction('store', cmd, { sub: 'status' }));
  store
    .command('migrate')
    .description("bring the store's schema up to this version's (the first run does it too)")
    .action((_o, cmd: Command) => runAction('store', cmd, { sub: 'migrate' }));
  store
    .command('import')
    .description('copy a local cache, history included, into the shared store (--store); again adds nothing')
    .argument('[dir]', 'the cache directory to copy (default: this one, DOMAIN_INTEL_CACHE_DIR)')
    .action((dir: string | undefined, _o, cmd: Command) => runAction('store', cmd, { sub: 'import', dir }));

  // Subcommands show their group's examples too: `keys add --help` is where a user looks for how to add one.
  for (const [group, examples] of [
    [keys, EXAMPLES.keys],
    [config, EXAMPLES.config],
    [cache, EXAMPLES.cache],
    [store, EXAMPLES.store],
  ] as const) {
    for (const sub of group.commands) sub.addHelpText('after', after(examples));
  }

  program.commandsGroup('Tools:');

  addOptions(
    program
      .command('sandbox')
      .description(
        'run a local, faithful imitation of the service (no key, no network, nothing spent); its limits are set by --plan and --rpm, options every command takes (domain-intel --help; --rpm 0: unlimited)',
      ),
  )
    .addHelpText('after', after(EXAMPLES.sandbox))
    .action((_o, cmd: Command) => runAction('sandbox', cmd, {}));

  addOptions(program.command('completion').description('print a shell completion script').argument('[shell]', 'bash, zsh or fish'))
    .addHelpText('after', after(EXAMPLES.completion))
    .action((shell: string | undefined, _o, cmd: Command) => runAction('completion', cmd, { shell }));
  return program;
}
