// The options of `domain-intel catalog` of its own, a part of the one option table (options.ts spreads them
// in). --category, --format, --refresh and --raw are the table's shared rows.
import type { OptionRow } from './row.js';

export const CATALOG_OPTIONS = {
  verbose: {
    flags: '--verbose',
    help: 'say where the catalog came from: the cache (and how old) or the service (said anyway when it may predate the current data release)',
    commands: ['catalog'],
  },
} as const satisfies Record<string, OptionRow>;
