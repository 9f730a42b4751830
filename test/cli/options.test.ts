// The option table (src/cli/options/table.ts): its parsers, its invariants, the commander options and the type it
// drives, and the option reference it generates, docs/options.md (this file fails when the page drifts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { END, optionsSection, START, withOptionsSection } from '../../src/cli/options/doc.js';
import type { OptionRow } from '../../src/cli/options/row.js';
import {
  addOptions,
  commandPath,
  type EnrichCommand,
  flagsOf,
  givenOptions,
  OPTIONS,
  type Opts,
  optionsOf,
  VERSION_FLAGS,
} from '../../src/cli/options/table.js';
import type { Rate } from '../../src/config/values.js';
import { ROOT } from '../helpers/cli.js';

const rows = Object.entries(OPTIONS) as [string, OptionRow][];
const paths = [...new Set(rows.flatMap(([, row]) => (row.commands === 'global' ? [] : row.commands)))];

/** A program with the table's commands (nested for `cache prune`) and their options, as main.ts adds them. */
function program(): { program: Command; ran: () => Command } {
  let ran: Command | undefined;
  const root = addOptions(new Command('domain-intel').exitOverride().configureOutput({ writeErr: () => {} }));
  for (const path of paths) {
    let parent = root;
    for (const name of path.split(' ')) {
      const found = parent.commands.find((c) => c.name() === name);
      parent = found ?? addOptions(parent.command(name).exitOverride());
    }
    parent.action((_opts, cmd: Command) => {
      ran = cmd;
    });
  }
  return { program: root, ran: () => ran as Command };
}

describe('option parsers', () => {
  const parse = (name: keyof typeof OPTIONS, value: string): unknown => (OPTIONS[name] as OptionRow).parse?.(value);

  it('read durations and rates, and refuse anything else with a usage error at parse time', () => {
    expect(parse('maxAge', '30d')).toBe(30 * 86_400_000);
    expect(parse('timeout', '500ms')).toBe(500);
    expect(parse('rate', '20/1s')).toEqual({ requests: 20, windowMs: 1000 });
    expect(() => parse('maxAge', '3y')).toThrow(InvalidArgumentError);
    expect(() => parse('maxAge', '3y')).toThrow(/expected a duration like 30d/);
    expect(() => parse('rate', 'fast')).toThrow(InvalidArgumentError);
  });

  it('read whole numbers down to each option’s minimum', () => {
    expect(parse('retries', '0')).toBe(0);
    expect(parse('rpm', ' 7 ')).toBe(7);
    for (const bad of ['-1', '1.5', 'x', '', '1e3']) expect(() => parse('retries', bad), bad).toThrow(/expected a whole number/);
    expect(() => parse('concurrency', '0')).toThrow(/at least 1/);
    expect(() => parse('windowMs', '9')).toThrow(/at least 10/);
    expect(parse('hosts', '1')).toBe(1);
  });

  it('read a probability and a list', () => {
    expect(parse('failRate', '0.25')).toBe(0.25);
    for (const bad of ['2', '-0.1', 'x', 'NaN']) expect(() => parse('failRate', bad), bad).toThrow(InvalidArgumentError);
    expect(parse('fields', ' status, host,,technologies ')).toEqual(['status', 'host', 'technologies']);
  });
});

describe('the option table', () => {
  it('names each option as commander does, and declares no flag twice', () => {
    for (const [name, row] of rows) expect(new Option(row.flags).attributeName(), row.flags).toBe(name);
    const flags = [...rows.flatMap(([, row]) => flagsOf(row)), ...flagsOf({ flags: VERSION_FLAGS }), '-h', '--help'];
    expect(flags.filter((f, i) => flags.indexOf(f) !== i)).toEqual([]);
    expect(flagsOf(OPTIONS.format)).toEqual(['-f', '--format']);
    expect(flagsOf(OPTIONS.column)).toEqual(['--column']);
  });

  it('words an option differently only for a command that takes it, offering no choice it does not declare', () => {
    for (const [, row] of rows) {
      for (const [path, per] of Object.entries(row.per ?? {})) {
        expect(row.commands, `${row.flags} for ${path}`).toContain(path);
        for (const choice of per.choices ?? []) expect(row.choices).toContain(choice);
      }
    }
  });

  it('gives every default as its parser reads it back from the text help shows', () => {
    for (const [, row] of rows.filter(([, r]) => r.default !== undefined)) {
      const shown = typeof row.default === 'number' && row.show ? row.show(row.default) : String(row.default);
      if (row.choices) expect(row.choices, row.flags).toContain(row.default);
      expect(row.parse ? row.parse(shown) : shown, row.flags).toEqual(row.default);
    }
    expect(OPTIONS.maxAge.show(OPTIONS.maxAge.default)).toBe('30d');
  });

  it('maps each setting to one environment variable, and names the variable in help once, from the table', () => {
    const settings = rows.filter(([, row]) => row.setting !== undefined || row.env !== undefined);
    expect(settings.map(([name, row]) => [name, row.setting, row.env])).toEqual([
      ['baseUrl', 'baseUrl', 'DOMAIN_INTEL_BASE_URL'],
      ['plan', 'plan', 'DOMAIN_INTEL_PLAN'],
      ['rpm', 'rpm', 'DOMAIN_INTEL_RPM'],
      // Its environment is HTTPS_PROXY, HTTP_PROXY and NO_PROXY (config/proxy.ts), named in its help.
      ['proxy', 'proxy', undefined],
      ['store', 'store', 'DOMAIN_INTEL_STORE'],
    ]);
    for (const [, row] of rows) expect(row.help, row.flags).not.toMatch(/DOMAIN_INTEL_|\(env /);
  });

  it('resolves every command’s options: its own and the global ones, with their defaults', () => {
    for (const path of paths) {
      const { program: p, ran } = program();
      p.parse(path.split(' '), { from: 'user' });
      const cmd = ran();
      expect(commandPath(cmd)).toBe(path);
      const expected = [...optionsOf(path), ...optionsOf('')].map((row) => row.name).sort();
      expect(cmd.options.map((o) => o.attributeName()).sort(), path).toEqual(
        optionsOf(path)
          .map((row) => row.name)
          .sort(),
      );
      const opts = cmd.optsWithGlobals();
      for (const name of expected) {
        const row = OPTIONS[name] as OptionRow;
        const filled = row.setting === undefined ? (row.default ?? (row.flags.startsWith('--no-') ? true : undefined)) : undefined;
        expect(opts[name], `${path} ${name}`).toEqual(filled);
      }
      // Nothing was typed: the config resolver gets no flags, so the lower layers show through.
      expect(givenOptions(cmd), path).toEqual({});
    }
  });

  it('hands the config resolver only what was typed, parsed', () => {
    const { program: p, ran } = program();
    p.parse(['--rpm', '0', 'batch', '--max-age', '2d', '--no-cache', '--fields', 'a,b'], { from: 'user' });
    expect(givenOptions(ran())).toEqual({ rpm: 0, maxAge: 2 * 86_400_000, cache: false, fields: ['a', 'b'] });
    expect(ran().optsWithGlobals()).toMatchObject({ retries: 4, concurrency: 8, inputFormat: 'auto', prefix: '' });
    expect(() => program().program.parse(['batch', '--format', 'table'], { from: 'user' })).toThrow(/Allowed choices are csv, json, ndjson/);
  });

  it('writes help with each command’s wording, the environment variable and the shown default', () => {
    const { program: p } = program();
    const help = (path: string) => {
      let cmd = p;
      for (const name of path.split(' ')) cmd = cmd.commands.find((c) => c.name() === name) as Command;
      return cmd.helpInformation({ error: false });
    };
    expect(help('cache prune')).toMatch(/--max-age <duration>\s+age limit \(default: 30d\)/);
    expect(help('batch')).toMatch(/--max-age <duration>\s+oldest cached answer to use \(default: 30d\)/);
    expect(help('catalog')).toContain('fetch the catalog again');
    expect(help('completion')).not.toContain('--names');
    expect(p.helpInformation()).toMatch(/--base-url <url>\s+service base URL ending in \/api\/v1 \(env\s+DOMAIN_INTEL_BASE_URL\)/);
  });

  it('types ctx.opts from the table', () => {
    expectTypeOf<Opts<'batch'>['maxAge']>().toEqualTypeOf<number>();
    expectTypeOf<Opts<'batch'>['format']>().toEqualTypeOf<'table' | 'json' | 'ndjson' | 'csv' | 'xlsx' | undefined>();
    expectTypeOf<Opts<'batch'>['cache']>().toEqualTypeOf<boolean>();
    expectTypeOf<Opts<'batch'>['fields']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<Opts<'sandbox'>['failRate']>().toEqualTypeOf<number>();
    expectTypeOf<Opts<'lookup'>['rate']>().toEqualTypeOf<Rate | undefined>();
    // A setting's default comes from the config resolver, so the option itself may be absent.
    expectTypeOf<Opts<'lookup'>['baseUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Opts<'cache prune'>>().not.toHaveProperty('format');
    expectTypeOf<Opts<string>>().toHaveProperty('json');
    expectTypeOf<Opts<string>>().not.toHaveProperty('maxAge');
    // Under several commands, what only some take may be absent.
    expectTypeOf<Opts<EnrichCommand>['input']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Opts<EnrichCommand>>().toHaveProperty('retries').toEqualTypeOf<number>();
  });
});

describe('the option reference, docs/options.md', () => {
  const page = readFileSync(join(ROOT, 'docs', 'options.md'), 'utf8');
  const section = page.slice(page.indexOf(START), page.indexOf(END) + END.length);

  it('is what the option table generates (run `npm run docs` after changing the table)', () => {
    expect(page).toContain(START);
    expect(section).toBe(optionsSection());
    expect(withOptionsSection(page)).toBe(page);
  });

  it('lists every visible option and every environment variable the code reads', () => {
    for (const [, row] of rows) {
      if (row.hidden) expect(section).not.toContain(row.flags);
      else expect(section).toContain(`\`${row.flags.replace(/\|/g, '\\|')}\``);
    }
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const names = new Set(sources(join(ROOT, 'src')).flatMap((file) => readFileSync(file, 'utf8').match(/DOMAIN_INTEL_[A-Z_]+/g) ?? []));
    expect(names.size).toBeGreaterThanOrEqual(6);
    for (const name of names) expect(section, name).toContain(`\`${name}\``);
  });

  it('is written only between its markers', () => {
    expect(() => withOptionsSection('# no markers\n')).toThrow(/markers/);
    expect(withOptionsSection(`before\n${START}\nstale\n${END}\nafter\n`)).toBe(`before\n${optionsSection()}\nafter\n`);
  });
});
