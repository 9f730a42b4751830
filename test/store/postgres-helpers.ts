// The PostgreSQL the store tests run against: DOMAIN_INTEL_TEST_POSTGRES, else the local server every machine
// of this project runs (trust authentication). Set and unreachable: the tests fail (CI sets it, and must never
// skip them). Unset and the default unreachable: they skip, saying so. Each test file works in schemas of its
// own, dropped when it ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, vi } from 'vitest';
import { maskUrl } from '../../src/config/store-url.js';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return err;
  } finally {
    await client.end().catch(() => {});
  }
}

async function testUrl(): Promise<string | null> {
  const given = process.env.DOMAIN_INTEL_TEST_POSTGRES;
  const url = given === undefined || given === '' ? DEFAULT_URL : given;
  const err = await reachable(url);
  if (err === null) return url;
  if (url === given) throw new Error(`DOMAIN_INTEL_TEST_POSTGRES=${maskUrl(given)} is set but unreachable: ${(err as Error).message}`);
  console.warn(`PostgreSQL store tests skipped: no server at ${DEFAULT_URL} (${(err as Error).message}); set DOMAIN_INTEL_TEST_POSTGRES to run them`);
  return null;
}

/** The server's URL, or null when the tests skip. */
export const PG_URL: string | null = await testUrl();

/** A connection of the test's own, to look at and bend what the store wrote (never the store's pool). */
// Never ended: test files that share a worker (the shared project does not isolate them) share this module, and
// so this pool, past the first file's end. An idle pool does not keep the worker alive.
export const admin: pg.Pool | null = PG_URL === null ? null : new pg.Pool({ connectionString: PG_URL, max: 2, allowExitOnIdle: true });

const made: string[] = [];

// A schema's name carries when it was made (ms since the epoch, base 36): PostgreSQL keeps no creation time for
// a schema, and a run killed before its afterAll leaves its schemas behind. Each file's cleanup also drops
// those made over LEFTOVER_MS ago by any run (none of this project's tests runs that long). Names without the
// time (older runs, other checkouts) are left alone: their age cannot be known cheaply.
const LEFTOVER_MS = 60 * 60_000;
const TIMED_NAME = /^di_test_([0-9a-z]{8,9})_[0-9a-f]{12}$/;

/**
 * A fresh schema name (created by the store on open), dropped after the file; where files share this module
 * (one worker), after the first of them, or an hour later by any run's cleanup.
 */
export function freshSchema(): string {
  const name = `di_test_${Date.now().toString(36)}_${randomBytes(6).toString('hex')}`;
  made.push(name);
  return name;
}

/** The schemas of test runs made over LEFTOVER_MS ago (by their names): left by a killed run. */
async function leftovers(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ nspname: string }>(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'di\\_test\\_%'`);
  return rows
    .map((r) => r.nspname)
    .filter((name) => {
      const made = TIMED_NAME.exec(name)?.[1];
      return made !== undefined && Date.now() - Number.parseInt(made, 36) > LEFTOVER_MS;
    });
}

/**
 * The store URL with `schema` in it. `machine`: a URL of its own, so a pool of its own, as another machine
 * has (handles on one URL in one process share a pool and what it did once, such as migrating).
 */
export const urlOf = (schema: string, machine?: number): string =>
  `${PG_URL}${(PG_URL as string).includes('?') ? '&' : '?'}schema=${schema}${machine === undefined ? '' : `&application_name=machine${machine}`}`;

/** Runs SQL as the test (not the store); resolves to the rows. */
export async function sql<R = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  return (await (admin as pg.Pool).query(text, values)).rows as R[];
}

afterAll(async () => {
  if (admin === null) return;
  for (const name of made.splice(0)) await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  // Another file's cleanup may drop the same leftover at once: whichever loses is not this file's failure.
  for (const name of await leftovers(admin)) await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`).catch(() => {});
});

/**
 * `fn`'s value and the round trips the store made for it: the statements its connections sent (each one
 * exchange with the server), the heartbeat's aside.
 */
export async function roundTrips<T>(fn: () => Promise<T>): Promise<{ value: T; n: number }> {
  const spy = vi.spyOn(pg.Client.prototype, 'query');
  try {
    const value = await fn();
    const n = spy.mock.calls.filter(([text]) => !(typeof text === 'string' && /SET last_seen/.test(text))).length;
    return { value, n };
  } finally {
    spy.mockRestore();
  }
}
