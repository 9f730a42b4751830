// What a store backend gives store/open.ts, which picks one by the store URL's scheme: the answers, an
// account, the reads of every account, and the way out of a damaged store. A backend lives in a folder of its
// own under store/ (sqlite/, and postgres/ next), loaded only when chosen.
import type { AccountReads, AccountState, Store } from './contract.js';

/** Where the store is: a URL for a backend of its own (none: SQLite in the cache directory), and that directory. */
export interface StoreWhere {
  url?: string;
  /** The cache directory: SQLite's files, and a shared backend's local leftovers (none yet). */
  dir: string;
}

export interface OpenStoreOptions extends StoreWhere {
  /**
   * The service the answers come from (its base URL): an answer is only as true as the service that gave it,
   * so a store keeps the answers of one service apart from another's. Undefined: whoever filled it (tests, a
   * run's throwaway store).
   */
  service?: string;
  /** Epoch-ms clock, injectable so tests can age answers without waiting. */
  clock?: () => number;
}

export interface OpenAccountOptions extends StoreWhere {
  baseUrl: string;
  key: string;
  clock?: () => number;
  /**
   * Told (once) when the limiter's shared slots can no longer be written mid-run and the run goes on with
   * slots of its own; the account's other writes reject, for their callers to survive.
   */
  onTrouble?: (message: string) => void;
}

export interface Backend {
  openStore(o: OpenStoreOptions): Promise<Store>;
  openAccount(o: OpenAccountOptions): Promise<AccountState>;
  accountReads(o: StoreWhere): AccountReads;
  /** Removes a store found damaged beyond use (CacheCorruptError.path names it); resolves to what was removed. */
  discard(path: string): Promise<string[]>;
}
