// The change feed's options (`domain-intel changes`), a part of the one option table (options.ts spreads them
// in). The input's own options (--column, --input-format), --format and --raw are the table's shared rows.
import { InvalidArgumentError } from 'commander';
import { parseSince, type Since } from '../../changes/since.js';
import { list } from './parsers.js';
import type { OptionRow } from './row.js';

/** --since, checked at parse time: a bad value is a usage error naming the option. */
function since(value: string): Since {
  try {
    return parseSince(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** The changes command's options, in the order help lists them. */
export const CHANGES_OPTIONS = {
  all: { flags: '--all', help: 'every host with a past answer in the cache, instead of an input', commands: ['changes'] },
  since: {
    flags: '--since <date|duration>',
    help: 'compare with the answer held then (2026-11-20, 2026-11-20T06:00:00Z, or 1d, 20h ago); default: the answer the latest replaced',
    commands: ['changes'],
    parse: since,
  },
  field: {
    flags: '--field <list>',
    help: 'only these fields, comma-separated column names (technologies,traffic_band,...; status for gone/back)',
    commands: ['changes'],
    parse: list,
  },
  tech: { flags: '--tech <name>', help: 'only hosts that adopted or dropped this technology (its catalog name)', commands: ['changes'] },
} as const satisfies Record<string, OptionRow>;
