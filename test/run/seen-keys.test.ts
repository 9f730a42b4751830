import { describe, expect, it } from 'vitest';
import { openSeenSet } from '../../src/run/seen-keys.js';

describe.each([
  ['in memory', undefined],
  ['moved to disk', 3],
])('openSeenSet (%s)', (_name, memoryKeys) => {
  it('marks only the first place of each key as new, within a chunk and across chunks', () => {
    const seen = openSeenSet(memoryKeys);
    try {
      expect(seen.add(['a.com', 'b.com', 'a.com', 'c.com', 'b.com'])).toEqual([true, true, false, true, false]);
      expect(seen.add(['c.com', 'd.com', 'd.com', 'a.com'])).toEqual([false, true, false, false]);
      expect(seen.add([])).toEqual([]);
    } finally {
      seen.close();
    }
  });

  it('handles chunks larger than one statement holds, with repeats straddling the split', () => {
    const seen = openSeenSet(memoryKeys);
    try {
      const keys = Array.from({ length: 700 }, (_, i) => `h${i % 600}.example`);
      const fresh = seen.add(keys);
      expect(fresh.filter(Boolean).length).toBe(600);
      expect(fresh.slice(0, 600).every(Boolean)).toBe(true);
      expect(fresh.slice(600).some(Boolean)).toBe(false);
      expect(seen.add(['h599.example', 'h600.example'])).toEqual([false, true]);
    } finally {
      seen.close();
    }
  });
});

describe('openSeenSet fingerprints', () => {
  it('counts exactly across many table growths, with repeats far apart and close together', () => {
    const seen = openSeenSet();
    try {
      const n = 150_000;
      const first = seen.add(Array.from({ length: n }, (_, i) => `host-${i}.example`));
      expect(first.every(Boolean)).toBe(true);
      // Every key again, in reverse order, interleaved with as many new ones.
      const again = Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? `host-${n - 1 - i / 2}.example` : `new-${i}.example`));
      const fresh = seen.add(again);
      expect(fresh.filter((f, i) => f !== (i % 2 === 1)).length).toBe(0);
    } finally {
      seen.close();
    }
  });

  it('still recognises keys held in the full table once newer keys go to disk', () => {
    const seen = openSeenSet(2);
    try {
      expect(seen.add(['a.com', 'b.com'])).toEqual([true, true]);
      expect(seen.add(['c.com', 'a.com', 'c.com', 'b.com', 'd.com'])).toEqual([true, false, false, false, true]);
      expect(seen.add(['d.com', 'a.com', 'e.com'])).toEqual([false, false, true]);
    } finally {
      seen.close();
    }
  });
});

describe('openSeenSet: missing marks', () => {
  it('remembers which keys were answered missing, across table growth, and only for keys held in memory', () => {
    const seen = openSeenSet(5_000);
    try {
      const keys = Array.from({ length: 6_000 }, (_, i) => `k${i}.example`);
      seen.add(keys.slice(0, 10));
      for (const k of keys.slice(0, 10)) if (k.endsWith('3.example') || k.endsWith('7.example')) seen.markMissing(k, Number(k.slice(1, -8)) * 1000 + 999);
      seen.add(keys.slice(10)); // grows the table several times, then overflows to disk
      seen.markMissing('k5999.example', 5_999_000); // on disk: not kept
      // The time comes back to the second: 3,999 ms is kept as 3,000.
      expect(keys.filter((k) => seen.missingSince(k) !== null)).toEqual(['k3.example', 'k7.example']);
      expect(seen.missingSince('k3.example')).toBe(3000);
      expect(seen.missingSince('k7.example')).toBe(7000);
      expect(seen.missingSince('never-added.example')).toBeNull();
      // A time near the end of 32-bit seconds survives too (2100-01-01).
      seen.markMissing('k1.example', Date.UTC(2100, 0, 1));
      expect(seen.missingSince('k1.example')).toBe(Date.UTC(2100, 0, 1));
    } finally {
      seen.close();
    }
  });
});
