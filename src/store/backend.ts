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
  /**
   * A store only this run uses and no one keeps (--no-cache remembers a run's answers in one, so a repeat is
   * not bought twice): no other process reads it, so it is written without what sharing and keeping cost.
   */
  throwaway?: boolean;
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

/** What `store status` shows of a store, without changing it. */
export interface StoreStatus {
  backend: 'sqlite' | 'postgresql';
  /** The file, or the URL with its password masked. */
  where: string;
  /** The PostgreSQL schema (namespace) of the tables; null for SQLite. */
  schema: string | null;
  /** The schema version found (0: nothing created yet) and the one this build writes. */
  version: number;
  knownVersion: number;
  answers: number;
  history: number;
  /** Runs alive now, by machine (a shared store's presence, by heartbeat); null where the backend keeps none. */
  machines: { machine: string; runs: number; buying: number; lastSeen: number }[] | null;
}

export interface Backend {
  openStore(o: OpenStoreOptions): Promise<Store>;
  openAccount(o: OpenAccountOptions): Promise<AccountState>;
  accountReads(o: StoreWhere): AccountReads;
  /** What the store holds and who uses it now (store status); `service`: whose answers, for a backend that keeps them apart. */
  status(o: StoreWhere, service: string): Promise<StoreStatus>;
  /** Brings the store's schema up to this build's version (store migrate); resolves to the version found before and now. */
  migrate(o: StoreWhere, service: string): Promise<{ before: number; after: number }>;
  /** Removes a store found damaged beyond use (CacheCorruptError.path names it); resolves to what was removed. */
  discard(path: string): Promise<string[]>;
}
