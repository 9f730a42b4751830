// `store status` and `store migrate` of a PostgreSQL store: what it holds and who uses it now, read without
// creating or changing anything; and its schema brought up to this build's version, on request rather than by
// the first run that connects.
import type { StoreStatus } from '../backend.js';
import { openDb } from './pool.js';
import { isAbsent, migrate, SCHEMA_VERSION, schemaVersion } from './schema.js';
import { parseStoreUrl } from './url.js';

/** The status of the store at `url`; a store not created yet is version 0 and holds nothing. */
export async function postgresStatus(url: string): Promise<StoreStatus> {
  const where = parseStoreUrl(url);
  const db = await openDb(where);
  try {
    const version = await schemaVersion(db.query, where.schema);
    const status: StoreStatus = {
      backend: 'postgresql',
      where: where.shown,
      schema: where.schema,
      version,
      knownVersion: SCHEMA_VERSION,
      answers: 0,
      history: 0,
      machines: [],
    };
    if (version === 0) return status;
    const s = where.schema;
    try {
      const [counts] = await db.query<{ answers: number; history: number }>(
        `SELECT (SELECT COUNT(*) FROM ${s}.answers) AS answers, (SELECT COUNT(*) FROM ${s}.history) AS history`,
      );
      // Alive: heard from within the lease, on the server's clock (machine and pid are for reading, not judging).
      // A run is a process: its answers and its account hold a presence each, so processes are counted.
      const machines = await db.query<{ machine: string; runs: number; buying: number; last_seen: number }>(
        `SELECT machine, (COUNT(DISTINCT pid))::int AS runs, (COUNT(DISTINCT pid) FILTER (WHERE buying))::int AS buying, MAX(last_seen) AS last_seen
           FROM ${s}.runs WHERE last_seen > ${s}.now_ms() - $1 GROUP BY machine ORDER BY machine`,
        [where.leaseMs],
      );
      return {
        ...status,
        answers: counts?.answers ?? 0,
        history: counts?.history ?? 0,
        machines: machines.map((m) => ({ machine: m.machine, runs: m.runs, buying: m.buying, lastSeen: m.last_seen })),
      };
    } catch (err) {
      // A newer schema may have moved these tables: its version is said, and what this build cannot read is not.
      if (version > SCHEMA_VERSION && isAbsent(err)) return status;
      throw err;
    }
  } finally {
    await db.letGo();
  }
}

/** Brings the store at `url` up to this build's version (a newer one is refused in one line). */
export async function postgresMigrate(url: string): Promise<{ before: number; after: number }> {
  const where = parseStoreUrl(url);
  const db = await openDb(where);
  try {
    const before = await migrate(db, where.schema);
    return { before, after: SCHEMA_VERSION };
  } finally {
    await db.letGo();
  }
}
