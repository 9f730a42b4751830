// What the limiter reads from the resets a service announced (limiter.ts).

/** Announced resets closer than this (or a third of the window) are one reset read twice (Retry-After and epoch seconds round up to a second). */
export const SAME_RESET_MS = 1000;

/** The window length read from announced resets: the smallest gap between distinct ones (closer than `same`: one reset read twice), or null before two. */
export function smallestGap(resets: number[], same: number): number | null {
  const sorted = [...resets].sort((a, b) => a - b);
  let best: number | null = null;
  let start = sorted[0];
  for (const at of sorted) {
    if (start === undefined || at - start < same) continue;
    // Each reset is read at its earliest: a late reading (rounded up to a second) would stretch the gap.
    best = best === null ? at - start : Math.min(best, at - start);
    start = at;
  }
  return best;
}
