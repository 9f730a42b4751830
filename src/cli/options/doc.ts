// The option reference (docs/options.md), generated from the option table (table.ts): `npm run docs` writes it
// between the markers, and test/cli/options.test.ts fails when the page says anything else. Not part of the
// CLI's bundle; scripts/docs.mjs and the test load it.
import type { OptionRow } from './row.js';
import { longName, OPTIONS } from './table.js';

export const START = '<!-- options:start -->';
export const END = '<!-- options:end -->';

/** The environment variables that are not options; those that are come from the table. */
const ENVIRONMENT: [name: string, meaning: string][] = [
  ['DOMAIN_INTEL_API_KEY', 'the API key; wins over the stored keys (`keys add`)'],
  ['DOMAIN_INTEL_CONFIG_DIR', 'where settings and keys are kept'],
  ['DOMAIN_INTEL_CACHE_DIR', 'where the answer cache is kept'],
];

const rows = Object.values(OPTIONS) as OptionRow[];
const code = (text: string): string => `\`${text}\``;
/** A table cell: a `|` would end it. */
const cell = (text: string): string => text.replace(/\|/g, '\\|');
const line = (cells: string[]): string => `| ${cells.map(cell).join(' | ')} |`;

/** The default as help shows it: a duration as 30d, an empty text as "". */
function defaultOf(row: OptionRow): string {
  if (row.default === undefined) return '';
  if (typeof row.default === 'number' && row.show) return code(row.show(row.default));
  return code(row.default === '' ? '""' : String(row.default));
}

/** What the option does, with its choices, and where a command words it differently. */
function meaning(row: OptionRow): string {
  const oneOf = (choices: readonly string[] | undefined) => (choices ? `one of ${choices.map(code).join(', ')}` : undefined);
  const notes = [
    oneOf(row.choices),
    ...Object.entries(row.per ?? {}).map(([command, p]) => `${command}: ${[p.help, oneOf(p.choices)].filter((x) => x !== undefined).join(', ')}`),
  ].filter((x) => x !== undefined);
  return notes.length > 0 ? `${row.help} (${notes.join('; ')})` : row.help;
}

/** The generated section, markers included. */
export function optionsSection(): string {
  const visible = rows.filter((row) => !row.hidden);
  const global = visible.filter((row) => row.commands === 'global');
  const local = visible.filter((row) => row.commands !== 'global');
  return [
    START,
    '<!-- generated from the option table in src/cli/options/table.ts by `npm run docs`: edit the table, not this section -->',
    '',
    'Global options go before or after the command. A setting comes from, lowest first: its default, the',
    'stored value (`config set`), the environment, the option.',
    '',
    line(['option', 'what it does', 'default', 'environment', '`config set`']),
    line(['---', '---', '---', '---', '---']),
    ...global.map((row) => line([code(row.flags), meaning(row), defaultOf(row), row.env ? code(row.env) : '', row.setting ? code(longName(row)) : ''])),
    '',
    'Options of the commands:',
    '',
    line(['option', 'commands', 'what it does', 'default']),
    line(['---', '---', '---', '---']),
    ...local.map((row) => line([code(row.flags), [...row.commands].join(', '), meaning(row), defaultOf(row)])),
    '',
    'Environment:',
    '',
    line(['variable', 'what it sets']),
    line(['---', '---']),
    ...rows.flatMap((row) => (row.env ? [line([code(row.env), `as ${code(`--${longName(row)}`)}`])] : [])),
    ...ENVIRONMENT.map(([name, what]) => line([code(name), what])),
    '',
    END,
  ].join('\n');
}

/** The page with its option reference replaced by the generated one; throws when a marker is missing. */
export function withOptionsSection(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/options.md needs the markers ${START} and ${END}`);
  return `${page.slice(0, start)}${optionsSection()}${page.slice(end + END.length)}`;
}
