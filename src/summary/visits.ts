// Visits percentiles in bounded memory. The first EXACT values are kept as they are, so a list of up to that
// many hosts gets exact nearest-rank percentiles; every value also goes into a log-scale histogram (buckets 1%
// wide, a few thousand of them from 0 to past 10^13 visits), which answers once there are more, to within 1%.
// A million hosts cost the same 0.5 MB as a thousand.
import type { Summary } from './types.js';

const EXACT = 65_536;
const GAMMA = 1.01;
const LOG_GAMMA = Math.log(GAMMA);
const BUCKETS = 3_100;

/** Collects visits figures; `result` gives their count, min, max and percentiles. */
export class VisitsSketch {
  private readonly exact = new Float64Array(EXACT);
  private readonly buckets = new Float64Array(BUCKETS);
  private n = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = Number.NEGATIVE_INFINITY;

  add(visits: number): void {
    if (!Number.isFinite(visits) || visits < 0) return;
    if (this.n < EXACT) this.exact[this.n] = visits;
    this.n++;
    if (visits < this.min) this.min = visits;
    if (visits > this.max) this.max = visits;
    const b = bucketOf(visits);
    this.buckets[b] = (this.buckets[b] as number) + 1;
  }

  result(): Summary['visits'] {
    if (this.n === 0) return null;
    const at = this.n <= EXACT ? exactAt(this.exact.slice(0, this.n).sort()) : (p: number) => this.bucketAt(p);
    return { count: this.n, min: this.min, p25: at(0.25), p50: at(0.5), p75: at(0.75), p90: at(0.9), max: this.max };
  }

  /** The nearest-rank percentile from the histogram: its bucket's middle, kept within the exact min and max. */
  private bucketAt(p: number): number {
    const rank = Math.max(1, Math.ceil(p * this.n));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.buckets[i] as number;
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, Math.round(GAMMA ** (i + 0.5) - 1)));
    }
    return this.max;
  }
}

/** Nearest rank: the smallest value with at least p of the values at or below it. */
function exactAt(sorted: Float64Array): (p: number) => number {
  return (p) => sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1] as number;
}

function bucketOf(visits: number): number {
  return Math.min(BUCKETS - 1, Math.floor(Math.log(visits + 1) / LOG_GAMMA));
}
