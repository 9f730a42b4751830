// The local cache's answers and history, read out for copying into another store (`store import`): the past
// answers first, then the answers, a thousand rows at a time, as kept (bodies as their JSON text).
import type Database from 'better-sqlite3';
import type { KeptAnswer } from '../contract.js';

const CHUNK = 1000;

/**
 * Every past answer, then every answer, of the cache open in `db` (whose journal is merged first by the caller).
 * History first: an answer the import replaces in the other store is then kept as the latest past answer of
 * that moment (the trigger's row, the later one), which is the one it replaced in the merged timeline.
 */
export async function* exportRows(db: Database.Database, withHistory = true): AsyncGenerator<KeptAnswer[], void, undefined> {
  // A page at a time, after the last row yielded (no statement is left open across a yield: it would hold
  // the file busy), so memory stays flat whatever the cache holds.
  // An older file may have no history table: then it has no past answers.
  const history = withHistory
    ? db.prepare(
        `SELECT rowid AS id, endpoint, host, status, body, fetched_at AS fetchedAt, replaced_at AS replacedAt FROM history
      WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`,
      )
    : null;
  for (let after = -1; history !== null; ) {
    const rows = history.all(after) as (KeptAnswer & { id: number })[];
    if (rows.length === 0) break;
    yield rows.map(({ id: _, ...row }) => row);
    after = (rows[rows.length - 1] as { id: number }).id;
  }
  const answers = db.prepare(
    `SELECT endpoint, host, status, body, fetched_at AS fetchedAt, NULL AS replacedAt FROM answers
      WHERE (endpoint, host) > (?, ?) ORDER BY endpoint, host LIMIT ${CHUNK}`,
  );
  for (let after = ['', '']; ; ) {
    const rows = answers.all(...after) as KeptAnswer[];
    if (rows.length === 0) break;
    yield rows;
    const last = rows[rows.length - 1] as KeptAnswer;
    after = [last.endpoint, last.host];
  }
}

/** The local cache read out for `store import`, and how to let it go. */
export interface ReadOnlyCache {
  readonly file: string;
  rows(): AsyncGenerator<KeptAnswer[], void, undefined>;
  close(): void;
}

/**
 * The local cache of `service` in `dir`, opened read-only (`store import`): its schema as found, never migrated,
 * never claimed for the service, its journal not merged. The journal's answers (a killed run's, not merged yet)
 * are read after the merged ones: newer, they replace them in the other store as a merge would have here.
 * Null when `dir` holds no cache of `service`: the default file if it is that service's (or no one's), else
 * the service's own file.
 */
export async function openReadOnly(dir: string, service: string, ownFile: string): Promise<ReadOnlyCache | null> {
  const [{ existsSync }, { join }, { openSqliteFile }] = await Promise.all([import('node:fs'), import('node:path'), import('./driver.js')]);
  const open = (file: string) => (existsSync(file) ? openSqliteFile(file, { readonly: true, fileMustExist: true }) : null);
  const tablesOf = (db: Database.Database) =>
    new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
  let file = join(dir, 'cache.sqlite');
  let db = open(file);
  if (db !== null && tablesOf(db).has('meta')) {
    const owner = (db.prepare("SELECT value FROM meta WHERE key = 'service'").get() as { value: string } | undefined)?.value;
    if (owner !== undefined && owner !== service) {
      db.close();
      file = join(dir, ownFile);
      db = open(file);
    }
  }
  if (db === null) return null;
  const held = db;
  const tables = tablesOf(held);
  return {
    file,
    async *rows() {
      for await (const chunk of exportRows(held, tables.has('history'))) yield chunk;
      if (!tables.has('recent')) return;
      const recent = held.prepare(
        `SELECT rowid AS id, endpoint, host, status, body, fetched_at AS fetchedAt FROM recent WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`,
      );
      for (let after = -1; ; ) {
        const rows = recent.all(after) as (Omit<KeptAnswer, 'replacedAt'> & { id: number })[];
        if (rows.length === 0) break;
        yield rows.map(({ id: _, ...row }) => ({ ...row, replacedAt: null }));
        after = (rows[rows.length - 1] as { id: number }).id;
      }
    },
    close: () => held.close(),
  };
}
