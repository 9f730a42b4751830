// The PostgreSQL backend: a team's shared store, named by a postgres:// or postgresql:// URL. Opening a
// handle opens (or shares) the process's pool for the URL, brings the schema up to date under an advisory
// lock, and hands out the contract's answers (`Store`) or an account (`AccountState`). store/open.ts picks
// this backend by the URL's scheme; nothing else imports it, and pg is loaded only here, when it is chosen.
import { StoreUnavailableError } from '../errors.js';
import { accountReadsOf, postgresAccount } from './account.js';
import { postgresAnswers } from './answers.js';
import type { Backend } from '../backend.js';
import type { AccountReads, AccountState, Store } from '../contract.js';
import { type Db, openDb } from './pool.js';
import { presence } from './presence.js';
import { isAbsent, migrate, SCHEMA_VERSION, schemaVersion } from './schema.js';
import { postgresMigrate, postgresStatus } from './status.js';
import { parseStoreUrl } from './url.js';

/** What a PostgreSQL handle may be told besides its URL. */
export interface PostgresOptions {
  /** The schema (namespace) of the store's tables; wins over the URL's `?schema=`; default domain_intel. */
  schema?: string;
  /**
   * A clock that stands for the server's (epoch ms): answers are stamped and aged by it and slots timed by it.
   * For tests, which compress time: machines sharing a store must leave it unset, so that they agree.
   */
  clock?: () => number;
}

export interface PostgresStoreOptions extends PostgresOptions {
  /**
   * The service the answers come from (its base URL). A schema holds one service's answers: the first to store
   * there owns it, and another is refused with a line saying to give it a schema of its own (a sandbox's or a
   * staging service's answers must never answer for the real one). Undefined: no check.
   */
  service?: string;
}

export interface PostgresAccountOptions extends PostgresOptions {
  baseUrl: string;
  key: string;
}

/** The pool for `url`, with its schema migrated; the pool is let go again if that fails. */
async function opened(url: string, options: PostgresOptions): Promise<{ db: Db; schema: string; leaseMs: number }> {
  const where = parseStoreUrl(url, options.schema);
  const db = await openDb(where);
  try {
    await migrate(db, where.schema);
    return { db, schema: where.schema, leaseMs: where.leaseMs };
  } catch (err) {
    await db.letGo();
    throw err;
  }
}

/** Makes `service` the owner of the answers in `schema` if none is yet; refuses another's. */
async function ownedBy(db: Db, schema: string, service: string): Promise<void> {
  await db.query(`INSERT INTO ${schema}.meta (key, value) VALUES ('service', $1) ON CONFLICT (key) DO NOTHING`, [service]);
  const [row] = await db.query<{ value: string }>(`SELECT value FROM ${schema}.meta WHERE key = 'service'`);
  const owner = row?.value ?? service;
  if (owner === service) return;
  throw new StoreUnavailableError(
    db.shown,
    `the store ${db.shown} (schema ${schema}) holds the answers of ${owner}, not of ${service}; give ${service} a schema of its own (add ?schema=NAME to the URL)`,
    { code: 'store_service' },
  );
}

/** Opens (creating or migrating the schema if needed) the answers of the PostgreSQL store at `url`. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const { db, schema, leaseMs } = await opened(url, options);
  try {
    if (options.service !== undefined) await ownedBy(db, schema, options.service);
  } catch (err) {
    await db.letGo();
    throw err;
  }
  return postgresAnswers(db, { schema, clock: options.clock ?? null, presence: presence(db, schema, leaseMs), close: () => db.letGo() });
}

/** Opens (creating or migrating the schema if needed) the state of one account in the PostgreSQL store at `url`. */
export async function openPostgresAccount(url: string, options: PostgresAccountOptions): Promise<AccountState> {
  const { db, schema, leaseMs } = await opened(url, options);
  return postgresAccount(db, {
    schema,
    baseUrl: options.baseUrl,
    key: options.key,
    clock: options.clock ?? null,
    presence: presence(db, schema, leaseMs),
    close: () => db.letGo(),
  });
}

/** The reads of every account in the store at `url`, creating nothing: a store not made yet holds none. */
export function postgresAccountReads(url: string, options: PostgresOptions = {}): AccountReads {
  const where = parseStoreUrl(url, options.schema);
  return accountReadsOf(async (fn, absent) => {
    const db = await openDb(where);
    try {
      const version = await schemaVersion(db.query, where.schema);
      if (version === 0) return absent;
      if (version > SCHEMA_VERSION) await migrate(db, where.schema); // refuses with the newer-version line
      return await fn(db.query);
    } catch (err) {
      if (isAbsent(err)) return absent;
      throw err;
    } finally {
      await db.letGo();
    }
  }, where.schema);
}

/** The backend store/open.ts serves postgres:// and postgresql:// URLs with. */
export const postgres: Backend = {
  openStore: (o) => openPostgresStore(o.url as string, { service: o.service, clock: o.clock }),
  openAccount: (o) => openPostgresAccount(o.url as string, { baseUrl: o.baseUrl, key: o.key, clock: o.clock }),
  accountReads: (o) => postgresAccountReads(o.url as string),
  status: (o) => postgresStatus(o.url as string),
  migrate: (o) => postgresMigrate(o.url as string),
  // Nothing here is ever found damaged the way a file is (CacheCorruptError): there is nothing to discard.
  discard: async () => [],
};
