import { describe, expect, it } from 'vitest';
import { openSeenSet } from '../../src/pipeline/seen.js';

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
