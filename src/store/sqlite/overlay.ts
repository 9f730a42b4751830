// The journal's overlay: where in `recent` each of this connection's unmerged answers is, by (endpoint, host).
// Typed arrays rather than a Map of strings: the journal holds up to tens of thousands of answers between merges,
// and a Map keyed by `${endpoint}\n${host}` took 6.7 MB of heap at 50,000 (the run's peak RSS 17 MB more),
// where these arrays take 1 MB and give the garbage collector nothing to trace. A key is kept as a 32-bit hash
// only: two keys can share one, so a lookup offers every rowid of its hash, newest first, to a check that reads
// the row and says whether it is the host's (journal.ts reads it anyway, for the answer).

/** Rowids by a hash of (endpoint, host), chained per bucket; a key added again is found at its newest rowid first. */
export class RowidIndex {
  #heads = new Int32Array(1 << 12).fill(-1);
  #next = new Int32Array(1 << 11);
  #hashes = new Int32Array(1 << 11);
  #rowids = new Float64Array(1 << 11);
  #size = 0;

  /** How many rowids were added since the last clear (a key added twice counts twice). */
  get size(): number {
    return this.#size;
  }

  clear(): void {
    this.#heads.fill(-1);
    this.#size = 0;
  }

  add(endpoint: string, host: string, rowid: number): void {
    if (this.#size === this.#rowids.length) this.#grow();
    const h = hashKey(endpoint, host);
    const bucket = h & (this.#heads.length - 1);
    const i = this.#size++;
    this.#hashes[i] = h;
    this.#rowids[i] = rowid;
    this.#next[i] = this.#heads[bucket] as number;
    this.#heads[bucket] = i;
  }

  /** The first of `(endpoint, host)`'s candidate rowids, newest first, for which `check` gives a value. */
  find<T>(endpoint: string, host: string, check: (rowid: number) => T | undefined): T | undefined {
    const h = hashKey(endpoint, host);
    for (let i = this.#heads[h & (this.#heads.length - 1)] as number; i !== -1; i = this.#next[i] as number) {
      if (this.#hashes[i] !== h) continue;
      const found = check(this.#rowids[i] as number);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  #grow(): void {
    const n = this.#rowids.length * 2;
    const grown = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.#next = grown(this.#next);
    this.#hashes = grown(this.#hashes);
    const rowids = new Float64Array(n);
    rowids.set(this.#rowids);
    this.#rowids = rowids;
    // Twice as many buckets as entries: chains stay about one long. Entries are re-chained oldest first, so
    // each chain still starts at its newest.
    this.#heads = new Int32Array(n * 2).fill(-1);
    const mask = this.#heads.length - 1;
    for (let i = 0; i < this.#size; i++) {
      const bucket = (this.#hashes[i] as number) & mask;
      this.#next[i] = this.#heads[bucket] as number;
      this.#heads[bucket] = i;
    }
  }
}

/** A 32-bit hash of endpoint, a separator and host (murmur3's mixing), without building the joined string. */
function hashKey(endpoint: string, host: string): number {
  let h = 0x9e3779b9 ^ (endpoint.length * 31 + host.length);
  for (let i = 0; i <= endpoint.length + host.length; i++) {
    const c = i < endpoint.length ? endpoint.charCodeAt(i) : i === endpoint.length ? 10 : host.charCodeAt(i - endpoint.length - 1);
    h = Math.imul(h ^ c, 0x5bd1e995);
    h ^= h >>> 15;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
