// Which trailing columns are taken for an earlier run's (input/own-columns.ts): only an exact list our writer produces,
// the longest that ends the header, never the whole header.
import { describe, expect, it } from 'vitest';
import { earlierColumns, ourColumnLists } from '../../src/input/own-columns.js';
import { columnsFor } from '../../src/output/write.js';

describe('earlierColumns', () => {
  const profile = columnsFor('profile');
  const lists = ourColumnLists('');

  it("finds every kind's columns ending the header, as written now and before fetched_at", () => {
    for (const kind of ['profile', 'traffic', 'employees'] as const) {
      const ours = columnsFor(kind);
      expect(earlierColumns(['name', 'domain', ...ours], lists)).toBe(2);
      expect(earlierColumns(['domain', ...ours.filter((c) => c !== 'fetched_at')], lists)).toBe(1);
    }
  });

  it('takes the longest list that ends the header, with the prefix the run uses', () => {
    const withChanges = ourColumnLists('', [], [['change', 'changed_fields']]);
    expect(earlierColumns(['domain', ...profile, 'change', 'changed_fields'], withChanges)).toBe(1);
    expect(earlierColumns(['domain', ...profile.map((c) => `di_${c}`)], ourColumnLists('di_'))).toBe(1);
    expect(earlierColumns(['domain', ...profile.map((c) => `di_${c}`)], lists)).toBe(-1);
    expect(earlierColumns(['domain', 'technologies', 'status'], ourColumnLists('', ['technologies', 'status']))).toBe(1);
  });

  it("leaves a header that only looks like ours: a partial list, a column out of order, or nothing of the user's", () => {
    expect(earlierColumns(['domain', 'status', 'host', 'reason'], lists)).toBe(-1);
    expect(earlierColumns(['domain', ...profile.slice(1), profile[0] as string], lists)).toBe(-1);
    expect(earlierColumns([...profile], lists)).toBe(-1);
    expect(earlierColumns(['domain', ...profile, 'notes'], lists)).toBe(-1);
  });
});
