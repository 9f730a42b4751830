// The local cache's answers and history, read out for copying into another store (`store import`): the past
// answers first, then the answers, a thousand rows at a time, as kept (bodies as their JSON text).
import type Database from 'better-sqlite3';
import type { KeptAnswer } from '../contract.js';

const CHUNK = 1000;

interface Row {
  endpoint: string;
  host: string;
  status: 'found' | 'missing';
  body: string | null;
  fetchedAt: number;
  replacedAt: number | null;
}

/**
 * Every past answer, then every answer, of the cache open in `db` (whose journal is merged first by the caller).
 * History first: an answer the import replaces in the other store is then kept as the latest past answer of
 * that moment (the trigger's row, the later one), which is the one it replaced in the merged timeline.
 */
export async function* exportRows(db: Database.Database): AsyncGenerator<KeptAnswer[], void, undefined> {
  // A page at a time, after the last row yielded (no statement is left open across a yield: it would hold
  // the file busy), so memory stays flat whatever the cache holds.
  const history = db.prepare(
    `SELECT rowid AS id, endpoint, host, status, body, fetched_at AS fetchedAt, replaced_at AS replacedAt FROM history
      WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`,
  );
  for (let after = -1; ; ) {
    const rows = history.all(after) as (Row & { id: number })[];
    if (rows.length === 0) break;
    yield rows.map(({ id: _, ...row }) => row);
    after = (rows[rows.length - 1] as { id: number }).id;
  }
  const answers = db.prepare(
    `SELECT endpoint, host, status, body, fetched_at AS fetchedAt, NULL AS replacedAt FROM answers
      WHERE (endpoint, host) > (?, ?) ORDER BY endpoint, host LIMIT ${CHUNK}`,
  );
  for (let after = ['', '']; ; ) {
    const rows = answers.all(...after) as Row[];
    if (rows.length === 0) break;
    yield rows;
    const last = rows[rows.length - 1] as Row;
    after = [last.endpoint, last.host];
  }
}
