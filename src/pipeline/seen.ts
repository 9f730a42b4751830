// Which hosts this run has met already. Kept in a private temporary SQLite database (empty file name):
// SQLite holds it in its small page cache and spills to a temp file as it grows, so a 10,000,000-row input
// with millions of distinct hosts is deduplicated in flat memory, where a JS Set would grow without bound.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** Records keys met in this run; `add` tells whether each is new. */
export interface SeenSet {
  /** For each key, true when it had not been met before in this run. Marks them met. */
  add(keys: readonly string[]): boolean[];
  close(): void;
}

/** Opens an empty seen-set backed by a temporary on-disk SQLite database. */
export function openSeenSet(): SeenSet {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database('');
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE seen (k TEXT PRIMARY KEY) WITHOUT ROWID');
  const insert = db.prepare('INSERT OR IGNORE INTO seen (k) VALUES (?)');
  const addAll = db.transaction((keys: readonly string[]) => keys.map((k) => insert.run(k).changes === 1));
  return {
    add: (keys) => addAll(keys),
    close: () => db.close(),
  };
}
