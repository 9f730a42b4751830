// Which hosts this run has met already.
//
// The first MEMORY_KEYS distinct keys are remembered as 64-bit fingerprints in an open-addressing table of
// typed arrays: 24 bytes a key at most with its 4-byte tag (12 MB for 500,000 keys, 48 MB at the cap), no
// object per key for the garbage collector to trace, and 0.6 us a key against 3.0 us for the SQLite set
// below (1,000,000 keys, side by side; a 1,000,000-row run with 500,000 distinct hosts spent 5.5 s of its
// 50 s in SQLite when the in-memory part was a Set capped at 200,000 strings). Past the cap the table stops
// growing but is still consulted; keys met for the first time after that go, as text, to a private
// temporary SQLite database (empty file name), which holds them in its small page cache and spills to a
// temp file, so an input with tens of millions of distinct hosts is still deduplicated in flat memory.
//
// A fingerprint can collide: two different keys with the same 64 bits. The odds for n distinct keys are
// about n^2 / 2^65: 1 in 37,000,000 for 1,000,000 keys. What a collision would cost is small and never a
// lookup: the run asks the cache or the service about every key it has no answer for whatever this set
// says, so the only effect is one row counted as a duplicate (and, under --dry-run, one lookup too few in
// the estimate).
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** Records keys met in this run; `add` tells whether each is new. */
export interface SeenSet {
  /** For each key, true when it had not been met before in this run. Marks them met. */
  add(keys: readonly string[]): boolean[];
  /**
   * Notes that the service does not hold `key`, as it said at `fetchedAt` (epoch ms): an answer with no body,
   * so its time is all there is to keep, and repeats of the key are answered without reading the cache. Kept
   * for keys held in memory only; else a no-op.
   */
  markMissing(key: string, fetchedAt: number): void;
  /**
   * When the service said it does not hold `key` (epoch ms, to the second), if markMissing(key) was called in
   * this run (or, rarely, for a key whose fingerprint collides); else null.
   */
  missingSince(key: string): number | null;
  close(): void;
}

/** Distinct keys held in memory (as fingerprints) before newer ones go to SQLite. */
const MEMORY_KEYS = 2_000_000;

/** Opens an empty seen-set; past `memoryKeys` distinct keys, newer keys go to a temporary database. */
export function openSeenSet(memoryKeys = MEMORY_KEYS): SeenSet {
  const memory = new FingerprintSet(memoryKeys);
  let disk: Pick<SeenSet, 'add' | 'close'> | null = null;
  return {
    add(keys) {
      const fresh = new Array<boolean>(keys.length);
      const overflow: number[] = [];
      for (let i = 0; i < keys.length; i++) {
        const met = memory.add(keys[i] as string);
        if (met === FULL) overflow.push(i);
        else fresh[i] = met === NEW;
      }
      if (overflow.length > 0) {
        disk ??= openDiskSet();
        const onDisk = disk.add(overflow.map((i) => keys[i] as string));
        for (let j = 0; j < overflow.length; j++) fresh[overflow[j] as number] = onDisk[j] as boolean;
      }
      return fresh;
    },
    markMissing(key, fetchedAt) {
      // Whole seconds since 1970 fit 32 bits until 2106; 0 is kept for "not known missing".
      memory.setTag(key, Math.max(1, Math.floor(fetchedAt / 1000)));
    },
    missingSince(key) {
      const seconds = memory.tag(key);
      return seconds === 0 ? null : seconds * 1000;
    },
    close() {
      disk?.close();
    },
  };
}

const NEW = 1;
const MET = 0;
/** Not in the table, and the table is full: the caller must ask elsewhere. */
const FULL = -1;

/**
 * 64-bit fingerprints of keys, open addressing with linear probing; (0, 0) marks an empty slot. Each slot
 * also holds a 32-bit tag: when the service said it does not hold the key, in seconds (0: not known). Four
 * bytes rather than one, so a repeat of such a host can say when its answer was fetched (its fetched_at).
 */
class FingerprintSet {
  #hi = new Int32Array(1 << 12);
  #lo = new Int32Array(1 << 12);
  #tags = new Uint32Array(1 << 12);
  #size = 0;
  readonly #max: number;
  // The fingerprint of the key last hashed (two lanes), and the slot where it is or would go.
  #fpHi = 0;
  #fpLo = 0;

  constructor(maxKeys: number) {
    this.#max = maxKeys;
  }

  /** Slot of `key`'s fingerprint, or -1-(the empty slot where it would go). */
  #find(key: string): number {
    // Two independent 32-bit hashes of the UTF-16 code units (multiply-xorshift lanes, different seeds and
    // multipliers, murmur3's finaliser), read as one 64-bit fingerprint.
    let a = 0x9e3779b9 ^ key.length;
    let b = 0x85ebca6b ^ key.length;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x5bd1e995);
      a ^= a >>> 15;
      b = Math.imul(b ^ c, 0x27d4eb2f);
      b ^= b >>> 13;
    }
    const hi = fmix(a);
    const lo = fmix(b) || 1;
    this.#fpHi = hi;
    this.#fpLo = lo;
    const mask = this.#lo.length - 1;
    let i = lo & mask;
    for (;;) {
      const l = this.#lo[i] as number;
      if (l === 0) return -1 - i;
      if (l === lo && this.#hi[i] === hi) return i;
      i = (i + 1) & mask;
    }
  }

  tag(key: string): number {
    const i = this.#find(key);
    return i >= 0 ? (this.#tags[i] as number) : 0;
  }

  setTag(key: string, tag: number): void {
    const i = this.#find(key);
    if (i >= 0) this.#tags[i] = tag;
  }

  add(key: string): number {
    const found = this.#find(key);
    if (found >= 0) return MET;
    if (this.#size >= this.#max) return FULL;
    const hi = this.#fpHi;
    const lo = this.#fpLo;
    let i = -1 - found;
    if ((this.#size + 1) * 2 > this.#lo.length) {
      this.#grow();
      const mask = this.#lo.length - 1;
      i = lo & mask;
      while (this.#lo[i] !== 0) i = (i + 1) & mask;
    }
    this.#hi[i] = hi;
    this.#lo[i] = lo;
    this.#size++;
    return NEW;
  }

  #grow(): void {
    const oldHi = this.#hi;
    const oldLo = this.#lo;
    const oldTags = this.#tags;
    this.#hi = new Int32Array(oldLo.length * 2);
    this.#lo = new Int32Array(oldLo.length * 2);
    this.#tags = new Uint32Array(oldLo.length * 2);
    const mask = this.#lo.length - 1;
    for (let j = 0; j < oldLo.length; j++) {
      const lo = oldLo[j] as number;
      if (lo === 0) continue;
      let i = lo & mask;
      while (this.#lo[i] !== 0) i = (i + 1) & mask;
      this.#lo[i] = lo;
      this.#hi[i] = oldHi[j] as number;
      this.#tags[i] = oldTags[j] as number;
    }
  }
}

function fmix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/** The same set in a temporary on-disk SQLite database, holding the keys themselves. */
function openDiskSet(): Pick<SeenSet, 'add' | 'close'> {
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
