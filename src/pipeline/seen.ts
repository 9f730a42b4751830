// Which hosts this run has met already. The first MEMORY_KEYS distinct keys live in a JS Set (about 25 MB at
// the cap, and some 25x faster per key than SQLite, measured side by side); past that every key moves to a
// private temporary SQLite database (empty file name), which holds them in its small page cache and spills to
// a temp file as it grows, so a 10,000,000-row input with millions of distinct hosts is still deduplicated
// in flat memory, where a Set alone would grow without bound.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** Records keys met in this run; `add` tells whether each is new. */
export interface SeenSet {
  /** For each key, true when it had not been met before in this run. Marks them met. */
  add(keys: readonly string[]): boolean[];
  close(): void;
}

/** Distinct keys held in memory before the set moves to SQLite. */
export const MEMORY_KEYS = 200_000;

/** Opens an empty seen-set; past `memoryKeys` distinct keys it moves from memory to a temporary database. */
export function openSeenSet(memoryKeys = MEMORY_KEYS): SeenSet {
  let memory: Set<string> | null = new Set<string>();
  let disk: SeenSet | null = null;
  return {
    add(keys) {
      if (memory !== null && memory.size + keys.length <= memoryKeys) {
        const set = memory;
        return keys.map((k) => {
          const before = set.size;
          return set.add(k).size > before;
        });
      }
      if (disk === null) {
        disk = openDiskSet();
        if (memory !== null) disk.add([...memory]);
        memory = null;
      }
      return disk.add(keys);
    },
    close() {
      memory = null;
      disk?.close();
    },
  };
}

/** The same set in a temporary on-disk SQLite database. */
function openDiskSet(): SeenSet {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database('');
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('CREATE TABLE seen (k TEXT PRIMARY KEY) WITHOUT ROWID');
  // One statement per chunk of keys, not one per key: RETURNING names the keys this insert added.
  const statements = new Map<number, BetterSqlite3.Statement>();
  const insertMany = (n: number): BetterSqlite3.Statement => {
    let stmt = statements.get(n);
    if (!stmt) {
      stmt = db.prepare(`INSERT OR IGNORE INTO seen (k) VALUES ${Array.from({ length: n }, () => '(?)').join(',')} RETURNING k`).pluck();
      statements.set(n, stmt);
    }
    return stmt;
  };
  return {
    add(keys) {
      const distinct = [...new Set(keys)];
      const added = new Set<string>();
      for (let i = 0; i < distinct.length; i += KEYS_PER_STATEMENT) {
        const part = distinct.slice(i, i + KEYS_PER_STATEMENT);
        for (const k of insertMany(part.length).all(...part) as string[]) added.add(k);
      }
      // Only a key's first place in this chunk is new; a repeat within the chunk is a duplicate.
      return keys.map((k) => added.delete(k));
    },
    close: () => db.close(),
  };
}

/** Bound parameters per statement: well under SQLite's limit (32,766), and few distinct statement shapes. */
const KEYS_PER_STATEMENT = 256;
