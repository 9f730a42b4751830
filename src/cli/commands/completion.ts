// `domain-intel completion bash|zsh|fish`: completion scripts generated from the program's commands and the
// option table, so they never drift from the real commands and options. Stored key names and the cached
// catalog's technologies and category slugs are completed through `domain-intel completion --names
// keys|tech|categories`, which reads local files only and never the network (a Tab press must be instant and
// free; `domain-intel catalog` fills the cache).
import type { Command } from 'commander';
import { closest } from '../../api/closest.js';
import { PLAN_NAMES } from '../../api/types.js';
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { commandPath, flagsOf, optionsOf, VERSION_FLAGS } from '../options/table.js';
import { fish } from '../output/completion-fish.js';
import { bash, type OptionSpec, type Positional, type Program, SHELLS, type Spec, zsh } from '../output/completion-scripts.js';
import { SETTING_NAMES } from '../../config/resolve.js';

/** What each command's arguments complete to (see Program); any other argument completes to nothing. */
const POSITIONALS: Record<string, Positional> = {
  completion: { words: SHELLS },
  'keys use': { names: 'keys' },
  'keys remove': { names: 'keys' },
  'config set': { words: SETTING_NAMES },
  'config unset': { words: SETTING_NAMES },
  'config set plan': { words: PLAN_NAMES },
  tech: { names: 'tech' },
  batch: 'files',
  changes: 'files',
  summarize: 'files',
};

// commander's own options: help on every command, the version on the program (main.ts).
const HELP: OptionSpec = { flags: ['-h', '--help'], value: false, choices: [], file: false };
const VERSION: OptionSpec = { flags: flagsOf({ flags: VERSION_FLAGS }), value: false, choices: [], file: false };

/** The visible options the table gives the command at `path` ('' for the program: the global options). */
function specsOf(path: string): OptionSpec[] {
  return optionsOf(path)
    .filter((o) => !o.hidden)
    .map((o) => ({
      flags: flagsOf(o),
      value: o.flags.includes('<'),
      choices: o.choices ?? [],
      file: /<file>/.test(o.flags),
      // catalog --category: the cached slugs; changes --tech: the cached catalog's technology names.
      ...(/<slug>/.test(o.flags) ? { names: 'categories' as const } : /^--tech </.test(o.flags) ? { names: 'tech' as const } : {}),
    }));
}

/** Every command of the program with its visible options; global options are valid after any command. */
function walk(cmd: Command, globals: OptionSpec[]): Spec[] {
  // Subcommands as help lists them, less the `help` command commander adds there.
  const subs = cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => cmd.commands.includes(c));
  const path = commandPath(cmd);
  const here: Spec = { path: path === '' ? [] : path.split(' '), options: [...specsOf(path), ...globals, HELP], subcommands: subs.map((c) => c.name()) };
  return [here, ...subs.flatMap((c) => walk(c, globals))];
}

function root(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** The program as the scripts need it; `--version` belongs to the top level only. */
function program(root: Command): Program {
  const [top, ...rest] = walk(root, specsOf(''));
  if (!top) return { specs: [], positionals: POSITIONALS };
  return { specs: [{ ...top, options: [VERSION, ...specsOf(''), HELP] }, ...rest], positionals: POSITIONALS };
}

/** Names for the scripts, one a line: stored keys, or the technologies or category slugs of the cached catalog. */
async function names(ctx: Context, what: string): Promise<void> {
  if (what === 'keys') {
    const { listKeys } = await import('../../config/keys.js');
    for (const k of listKeys(await ctx.settings())) ctx.io.stdout.write(`${k.name}\n`);
  } else if (what === 'tech' || what === 'categories') {
    // The cache only, however old: a Tab press never waits on the network (an empty cache lists nothing).
    const { cachedCatalog } = await import('../run/catalog-source.js');
    const categories = (await cachedCatalog(await ctx.store())) ?? [];
    const listed = what === 'tech' ? categories.flatMap((c) => c.technologies.map((t) => t.tech)) : categories.map((c) => c.category);
    for (const name of new Set(listed)) ctx.io.stdout.write(`${name}\n`); // a technology may sit in two categories
  } else throw new UsageError(`--names takes keys, tech or categories, got ${JSON.stringify(what)}`);
}

export default async function completion(ctx: Context<'completion'>): Promise<number> {
  const shell = ctx.args.shell as string | undefined;
  const what = ctx.opts.names;
  if (what !== undefined) {
    await names(ctx, what);
    return EXIT.OK;
  }
  if (shell === undefined) throw new UsageError(`which shell? domain-intel completion bash|zsh|fish`);
  const described = program(root(ctx.command));
  if (shell === 'bash') ctx.io.stdout.write(bash(described));
  else if (shell === 'zsh') ctx.io.stdout.write(zsh(described));
  else if (shell === 'fish') ctx.io.stdout.write(fish(described));
  else {
    const near = closest(shell, SHELLS, 1)[0];
    throw new UsageError(`no completion for ${JSON.stringify(shell)}: choose bash, zsh or fish${near ? ` (did you mean ${near}?)` : ''}`);
  }
  return EXIT.OK;
}
