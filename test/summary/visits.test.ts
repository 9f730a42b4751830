// Visits percentiles: exact (nearest rank) while the figures fit the exact buffer, within 1% past it.
import { describe, expect, it } from 'vitest';
import { VisitsSketch } from '../../src/summary/visits.js';

/** A seeded list of figures spread over many orders of magnitude, like monthly visits. */
function figures(count: number, seed = 7): number[] {
  let x = seed;
  return Array.from({ length: count }, () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(10 ** ((x / 2 ** 31) * 8));
  });
}

const nearestRank = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1] as number;

describe('VisitsSketch', () => {
  it('is null with no figures, and ignores what is not a figure', () => {
    const v = new VisitsSketch();
    expect(v.result()).toBeNull();
    v.add(Number.NaN);
    v.add(-5);
    expect(v.result()).toBeNull();
  });

  it('gives exact nearest-rank percentiles for a list that fits', () => {
    const list = figures(5_001);
    const v = new VisitsSketch();
    for (const f of list) v.add(f);
    const sorted = [...list].sort((a, b) => a - b);
    expect(v.result()).toEqual({
      count: list.length,
      min: sorted[0],
      p25: nearestRank(sorted, 0.25),
      p50: nearestRank(sorted, 0.5),
      p75: nearestRank(sorted, 0.75),
      p90: nearestRank(sorted, 0.9),
      max: sorted.at(-1),
    });
  });

  it('stays within 1% (and exact at the ends) past the exact buffer', () => {
    const list = figures(200_000, 11);
    const v = new VisitsSketch();
    for (const f of list) v.add(f);
    const sorted = [...list].sort((a, b) => a - b);
    const r = v.result();
    expect(r?.count).toBe(list.length);
    expect(r?.min).toBe(sorted[0]);
    expect(r?.max).toBe(sorted.at(-1));
    for (const [p, got] of [
      [0.25, r?.p25],
      [0.5, r?.p50],
      [0.75, r?.p75],
      [0.9, r?.p90],
    ] as const) {
      const want = nearestRank(sorted, p);
      expect(Math.abs((got as number) - want), `p${p * 100}: ${got} vs ${want}`).toBeLessThanOrEqual(want * 0.01 + 1);
    }
  });
});
