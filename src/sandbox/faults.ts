// Seeded fault injection. Every roll draws the same number of values from one stream, whatever faults are
// enabled or apply, so a seed and a request order always give the same sequence of faults.
import { Rng } from './random.js';
import { FAULT_KINDS, type FaultRates } from './types.js';

/** Faults decided before the request is served: nothing is spent. */
type PreFault = 'unavailable' | 'burst503' | 'html500';
/** Faults applied to a successful answer after it was served and charged. */
export type PostFault = 'reset' | 'truncated' | 'garbage' | 'wrongType';

export interface FaultPlan {
  pre: PreFault | null;
  post: PostFault | null;
  slow: boolean;
  /** Batch only: fraction in [0, 1) choosing which submitted host to drop, or null. */
  omit: number | null;
}

const NO_FAULTS: FaultRates = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as unknown as FaultRates;

/** Fills in missing rates with 0 and checks each lies in [0, 1]. */
export function normaliseRates(rates: Partial<FaultRates> = {}): FaultRates {
  const out = { ...NO_FAULTS };
  for (const [kind, value] of Object.entries(rates)) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) throw new RangeError(`unknown fault kind: ${kind}`);
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new RangeError(`fault rate ${kind} must be within 0..1`);
    out[kind as keyof FaultRates] = value;
  }
  return out;
}

export class FaultInjector {
  private readonly rng: Rng;
  private burstLeft = 0;

  constructor(
    seed: number | string,
    readonly rates: FaultRates,
  ) {
    this.rng = Rng.for(seed, 'faults');
  }

  /**
   * Decides the faults of one request. `can503` is false where the spec lists no 503 (the catalog);
   * an ongoing burst then neither applies nor advances.
   */
  roll(can503: boolean): FaultPlan {
    const r = this.rates;
    const [unavailable, burst, burstLength, html500, slow, reset, truncated, garbage, wrongType, omit, omitAt] = Array.from({ length: 11 }, () =>
      this.rng.float(),
    ) as [number, number, number, number, number, number, number, number, number, number, number];
    let pre: PreFault | null = null;
    if (can503 && this.burstLeft > 0) {
      this.burstLeft -= 1;
      pre = 'burst503';
    } else if (can503 && unavailable < r.unavailable) {
      pre = 'unavailable';
    } else if (can503 && burst < r.burst503) {
      this.burstLeft = 2 + Math.floor(burstLength * 6); // this request plus 2..7 more: 3..8 in a row
      pre = 'burst503';
    } else if (html500 < r.html500) {
      pre = 'html500';
    }
    let post: PostFault | null = null;
    if (reset < r.reset) post = 'reset';
    else if (truncated < r.truncated) post = 'truncated';
    else if (garbage < r.garbage) post = 'garbage';
    else if (wrongType < r.wrongType) post = 'wrongType';
    return { pre, post, slow: slow < r.slow, omit: omit < r.omitHost ? omitAt : null };
  }
}
