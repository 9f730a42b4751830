// The sandbox's release months, apart from the data they move (release.ts): what the CLI's option parser needs
// to check a --release, without loading the catalog and the event tables every command would then pay for.

/** The first release: the dataset before anything moved, and the default. */
export const FIRST_RELEASE = '2025-10';

/**
 * Releases go up to ten years past the first: building one replays every month since the first, per host,
 * so the cost grows with the distance; nobody needs a sandbox further ahead than that.
 */
const MAX_MONTHS = 120;

export function shiftMonth(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) + delta;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export function monthsFrom(a: string, b: string): number {
  const [ya, ma] = a.split('-').map(Number) as [number, number];
  const [yb, mb] = b.split('-').map(Number) as [number, number];
  return yb * 12 + mb - (ya * 12 + ma);
}

/** Months from the first release to `release` (YYYY-MM); a RangeError for a malformed or out-of-range one. */
export function releaseOffset(release: string): number {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(release)) throw new RangeError(`release must be a month YYYY-MM, got ${JSON.stringify(release)}`);
  const offset = monthsFrom(FIRST_RELEASE, release);
  if (offset < 0 || offset > MAX_MONTHS) {
    throw new RangeError(`release must be from ${FIRST_RELEASE} to ${shiftMonth(FIRST_RELEASE, MAX_MONTHS)}, got ${release}`);
  }
  return offset;
}
