// The store's schema and its versions. Migrations run in one transaction under a transaction-scoped advisory
// lock, so machines that start together migrate once (the others wait, then find it done); schema_version
// says which have run. A build meeting a schema newer than it knows refuses with one line: it cannot tell
// what the newer tables mean, and must not write into them as if they were its own.
import { VERSION } from '../../version.js';
import { StoreUnavailableError } from '../errors.js';
import type { Db, Query } from './pool.js';
import { accountSchema } from './sql-account.js';
import { answersSchema } from './sql-answers.js';
import { slotsV2Schema } from './sql-slots-v2.js';
import { claimV3Schema } from './sql-claim-v3.js';
import { boundV4Schema } from './sql-bound-v4.js';

/** The migrations in order: migration i (from 0) brings the schema to version i + 1. */
const MIGRATIONS: readonly ((schema: string) => string)[] = [(s) => `${answersSchema(s)}\n${accountSchema(s)}`, slotsV2Schema, claimV3Schema, boundV4Schema];

/** The schema version this build writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** SQLSTATE of a table or schema that does not exist (yet). */
export const isAbsent = (err: unknown): boolean => /^(42P01|3F000)$/.test(String((err as { code?: unknown } | null)?.code ?? ''));

/** The version of `schema`, or 0 when it holds no store yet. */
export async function schemaVersion(query: Query, schema: string): Promise<number> {
  try {
    const rows = await query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${schema}.schema_version`);
    return rows[0]?.v ?? 0;
  } catch (err) {
    if (isAbsent(err)) return 0;
    throw err;
  }
}

function newer(db: Db, schema: string, version: number): StoreUnavailableError {
  return new StoreUnavailableError(
    db.shown,
    `the store ${db.shown} (schema ${schema}) is at version ${version}, written by a newer domain-intel than this one (which knows ${SCHEMA_VERSION}); upgrade domain-intel to use it`,
    { code: 'store_version' },
  );
}

/** Brings `schema` up to this build's version; returns the version found before. Once per pool and schema in a process. */
export function migrate(db: Db, schema: string): Promise<number> {
  const key = `migrated ${schema}`;
  let done = db.memo.get(key) as Promise<number> | undefined;
  if (done === undefined) {
    done = migrateNow(db, schema);
    db.memo.set(key, done);
    done.catch(() => db.memo.delete(key)); // tried again by the next open
  }
  return done;
}

async function migrateNow(db: Db, schema: string): Promise<number> {
  // Up to date already (every open but the first): one read, no lock, no write.
  const found = await schemaVersion(db.query, schema);
  if (found > SCHEMA_VERSION) throw newer(db, schema, found);
  if (found === SCHEMA_VERSION) return found;
  return db.tx(async (q) => {
    // Keyed by the schema, so stores in two schemas of one database migrate apart.
    await q('SELECT pg_advisory_xact_lock(hashtext($1))', [`domain-intel migrate ${schema}`]);
    await q(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await q(`CREATE TABLE IF NOT EXISTS ${schema}.schema_version (
      version    integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      by_build   text
    )`);
    // Read again under the lock: another machine may have migrated while this one waited.
    const before = await schemaVersion(q, schema);
    if (before > SCHEMA_VERSION) throw newer(db, schema, before);
    for (let v = before; v < SCHEMA_VERSION; v++) {
      await q((MIGRATIONS[v] as (s: string) => string)(schema));
      await q(`INSERT INTO ${schema}.schema_version (version, by_build) VALUES ($1, $2)`, [v + 1, `domain-intel ${VERSION}`]);
    }
    return before;
  });
}
