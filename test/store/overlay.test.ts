// The journal's overlay: rowids by (endpoint, host), the newest first, every candidate offered to the check.
import { describe, expect, it } from 'vitest';
import { RowidIndex } from '../../src/store/sqlite/overlay.js';

describe('the journal overlay', () => {
  it('finds every key at its newest rowid, across growth, and offers older ones when the check refuses', () => {
    const index = new RowidIndex();
    const n = 20_000; // past several doublings of its arrays
    for (let i = 0; i < n; i++) index.add('domain', `h${i}.example`, i + 1);
    for (let i = 0; i < n; i += 7) index.add('domain', `h${i}.example`, n + i + 1); // stored again, later
    expect(index.size).toBe(n + Math.ceil(n / 7));
    for (let i = 0; i < n; i++) {
      const seen: number[] = [];
      const found = index.find('domain', `h${i}.example`, (rowid) => {
        seen.push(rowid);
        return undefined; // refuse all: every candidate of the hash is offered, its own among them
      });
      expect(found).toBeUndefined();
      const own = i % 7 === 0 ? [n + i + 1, i + 1] : [i + 1];
      expect(seen.filter((r) => own.includes(r))).toEqual(own); // newest first
      expect(index.find('domain', `h${i}.example`, (rowid) => (own.includes(rowid) ? rowid : undefined))).toBe(own[0]);
    }
    // Endpoints are apart: the same host under another endpoint is not offered.
    expect(index.find('traffic', 'h1.example', (rowid) => (rowid === 2 ? rowid : undefined))).toBeUndefined();
    index.clear();
    expect(index.size).toBe(0);
    expect(index.find('domain', 'h1.example', (rowid) => rowid)).toBeUndefined();
  });
});
