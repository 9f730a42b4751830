// One pg.Pool per store URL in a process, shared by the handles opened on it (the answers and an account) and
// ended with the last of them. pg is loaded here, on first use: a command that keeps nothing in PostgreSQL
// never loads it. Nothing here keeps state in a session (no session advisory lock, no statement prepared by
// name, no temporary table, no LISTEN): every statement and transaction stands alone, so a pooler in
// transaction mode (PgBouncer) between us and the server works.
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { StoreUnavailableError } from '../errors.js';
import { type PgpassTarget, pgpassPassword } from './pgpass.js';
import type { StoreUrl } from './url.js';

/** Runs one statement; resolves to its rows. */
export type Query = <R = Record<string, unknown>>(text: string, values?: readonly unknown[]) => Promise<R[]>;

/** A pool and what is shared with it: the store's URL as shown, one statement, one transaction. */
export interface Db {
  /** The URL with its password masked, for messages. */
  readonly shown: string;
  readonly query: Query;
  /** Runs `fn` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
  tx<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  /** Ends the pool once every holder has let it go. */
  letGo(): Promise<void>;
  /** Per-process memo of this pool (migrations done, presence), by name. */
  readonly memo: Map<string, unknown>;
}

interface Entry {
  pool: Pool;
  holders: number;
  memo: Map<string, unknown>;
}

const pools = new Map<string, Entry>();

// Connections per process: each of a run's workers (--concurrency, 8 at most usually) has one statement at a time
// in flight (a slot step, a claim, a read, a store), and the quota memo and the heartbeat one more each. Fewer
// connections than workers queued every statement behind the others' (issue 25: 4 made a 8-worker run wait on
// the pool for most of each statement's time); an idle connection closes after idleTimeoutMillis.
const MAX_CONNECTIONS = 10;
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A FROM item that makes the statement's own transaction commit without waiting for its WAL to be flushed
 * (synchronous_commit off, for that transaction only: set_config's is_local; a pooler in transaction mode is
 * fine). For leases only, never for answers: slot steps, claims and heartbeats, each of which a server crash
 * may lose (the last few hundred ms of them), which costs at worst a host bought twice or a request paced a
 * little early. Issue 25: a commit's flush was most of each small statement's time at 8 workers.
 */
export const LEASE = "set_config('synchronous_commit', 'off', true) AS lease";

/** SQLSTATE classes and codes that mean the store cannot be used now, whatever was asked of it. */
const UNUSABLE_STATES = /^(08|28|53|57P0|3D000|25006|42501)/;
/** Errors of the connection itself (node's), before or after the server could say anything. */
const UNUSABLE_ERRNOS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** Whether `err` says the store cannot be reached or used (as opposed to a statement's own failure). */
function isUnusable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (UNUSABLE_ERRNOS.has(code) || UNUSABLE_STATES.test(code))) return true;
  const message = err instanceof Error ? err.message : '';
  return (
    NO_PASSWORD.test(message) ||
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Client has encountered a connection error/i.test(message)
  );
}

// pg's words when the server asks for a password and none was found (SCRAM says it thus; MD5 sends undefined).
const NO_PASSWORD = /client password must be a string|password must be a string/i;

/**
 * Whether `err` says the statement's work was undone for a reason another try does not meet: the connection
 * was lost under it (rather than the server being unreachable), or the server chose it as a deadlock's victim
 * (two machines storing and taking over claims of the same hosts) and rolled it back.
 */
function worthAnotherTry(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(57P01|57P02|08000|08003|08006|40P01|ECONNRESET|EPIPE)$/.test(code)) return true;
  return /Connection terminated|Client has encountered a connection error/i.test(err instanceof Error ? err.message : '');
}

/** `err` as the store's one-line error when it says the store is unusable; as it is otherwise (a bug stays a bug). */
function translated(shown: string, err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isUnusable(err)) return err;
  return unusable(shown, err);
}

/** `err` as the store's one-line error, whatever it is. */
function unusable(shown: string, err: unknown): StoreUnavailableError {
  if (err instanceof StoreUnavailableError) return err;
  const message = (err as Error | null)?.message;
  const detail = NO_PASSWORD.test(message ?? '')
    ? 'the server asks for a password and none was given (in the URL, PGPASSWORD or the password file ~/.pgpass)'
    : message || String((err as { code?: unknown }).code ?? err);
  return new StoreUnavailableError(shown, `cannot use the store ${shown}: ${detail}`, { cause: err });
}

async function newPool(url: StoreUrl): Promise<Pool> {
  const [{ default: pg }, { parseIntoClientConfig }] = await Promise.all([import('pg'), import('pg-connection-string')]);
  const fromUrl = parseIntoClientConfig(url.connectionString);
  const config: PoolConfig = {
    // Named in pg_stat_activity, unless the URL (or PGAPPNAME) names it otherwise.
    application_name: process.env.PGAPPNAME ?? 'domain-intel',
    ...fromUrl,
    max: MAX_CONNECTIONS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 10_000,
    // An idle pool does not keep the process alive: a command ends when its work does.
    allowExitOnIdle: true,
    // Times are epoch ms in bigint columns, and counts are bigint: all well inside a double. Set on this pool
    // only, not on pg's shared parsers, which a library caller's own pg may use.
    types: { getTypeParser: ((oid: number, format?: 'text') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as never },
    // The URL's password, else PGPASSWORD, else the password file (pgpass.ts), asked only if the server asks.
    // pg passes the function its connection parameters and takes undefined for none; its types say neither.
    password: fromUrl.password || ((async (params: PgpassTarget) => pgpassPassword(params)) as unknown as () => Promise<string>),
  };
  const pool = new pg.Pool(config);
  // An idle connection the server drops (a restart, a pooler) must not crash the process: the next statement
  // gets a fresh connection, or fails and says why.
  pool.on('error', () => {});
  return pool;
}

/** The pool of `url` in this process, opened on first use. */
export async function openDb(url: StoreUrl): Promise<Db> {
  let entry = pools.get(url.connectionString);
  if (entry === undefined) {
    entry = { pool: await newPool(url), holders: 0, memo: new Map() };
    // Another open may have made one while pg loaded: keep the first.
    const first = pools.get(url.connectionString);
    if (first !== undefined) {
      void entry.pool.end();
      entry = first;
    } else pools.set(url.connectionString, entry);
  }
  entry.holders++;
  const { pool, memo } = entry;
  const held = entry;
  const shown = url.shown;
  const run =
    (on: PoolClient): Query =>
    async <R>(text: string, values?: readonly unknown[]) =>
      (await on.query(text, values as unknown[] | undefined)).rows as R[];
  // A connection, by a general rule: anything that fails while one is made (refused, TLS asked for and not
  // offered or the reverse, authentication, an unknown database or role, a timeout) is the store's being
  // unusable, in whatever words the driver or the server chose; pg resolves connect() only once the server
  // has accepted the session. A statement's own failure on a made connection is judged by isUnusable.
  const connection = async (): Promise<PoolClient> => {
    try {
      return await pool.connect();
    } catch (err) {
      throw unusable(shown, err);
    }
  };
  // One statement on a connection of its own, as pool.query does: a failed one's connection is not reused.
  const one: Query = async (text, values) => {
    const client = await connection();
    let failed: Error | undefined;
    try {
      return await run(client)(text, values);
    } catch (err) {
      failed = err instanceof Error ? err : new Error(String(err));
      throw err;
    } finally {
      client.release(failed);
    }
  };
  // A statement whose connection was lost under it (the server restarted, a pooler or a failover dropped it),
  // or that lost a deadlock, is tried once more: each is idempotent, or errs on the safe side (a slot taken
  // twice holds one more request's room for a window). Failing again, or unreachable: the one line, for the run
  // to stop.
  const again = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (!worthAnotherTry(err)) throw translated(shown, err);
    }
    try {
      return await fn();
    } catch (err) {
      throw translated(shown, err);
    }
  };
  const tx = async <T>(fn: (q: Query) => Promise<T>): Promise<T> => {
    const client = await connection();
    const q = run(client);
    let broken: unknown;
    // A checked-out connection has no listener of the pool's: the server ending it (a restart, a kill) between
    // two statements of this transaction would be an uncaught error. The next statement fails and says why.
    const ignore = () => {};
    client.on('error', ignore);
    try {
      await q('BEGIN');
      const out = await fn(q);
      await q('COMMIT');
      return out;
    } catch (err) {
      await q('ROLLBACK').catch((e: unknown) => {
        broken = e; // the connection is gone: it must not go back to the pool
      });
      throw err;
    } finally {
      client.removeListener('error', ignore);
      client.release(broken instanceof Error ? broken : undefined);
    }
  };
  let gone = false;
  return {
    shown,
    query: (text, values) => again(() => one(text, values)),
    memo,
    tx: (fn) => again(() => tx(fn)),
    async letGo() {
      if (gone) return;
      gone = true;
      if (--held.holders > 0) return;
      pools.delete(url.connectionString);
      await pool.end();
    },
  };
}
