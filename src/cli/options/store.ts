// Where what is kept between runs lives, a part of the one option table (table.ts spreads it in after the
// network's): the local SQLite cache by default, or a PostgreSQL database a team shares (issue 25).
import { SETTINGS } from '../../config/settings-table.js';
import type { OptionRow } from './row.js';

export const STORE_OPTIONS = {
  store: {
    flags: '--store <url>',
    // Checked by the config resolver, not here: commander would quote a rejected value, and a store URL may
    // carry user:password@.
    help: 'keep answers, history and the account in a shared PostgreSQL store, postgres://[user@]host[:port]/database (password: PGPASSWORD or ~/.pgpass); sqlite: the local cache (the default)',
    commands: 'global',
    setting: 'store',
    env: SETTINGS.store.env,
  },
} as const satisfies Record<string, OptionRow>;
