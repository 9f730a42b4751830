// The rate limiter's slots kept in SQLite (the account state file, store/state.ts), so every run of one
// account on this machine paces against the same window. Contract only: the limiter part fills it in.
import type Database from 'better-sqlite3';
import type { SlotStore } from '../pipeline/schedule.js';

/** Tables the shared slots need; store/state.ts creates them with its own. */
export const SLOTS_SCHEMA = '';

/** The slots of `account` (base URL and key fingerprint) in `db`, shared with every process using the file. */
export function sqliteSlots(_db: Database.Database, _account: string, _clock: () => number = Date.now): SlotStore {
  throw new Error('sqliteSlots: not built yet');
}
