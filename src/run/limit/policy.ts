// The limiter's policy: which limit a run paces at and where its slots live. A rate the user gave (plan,
// --rpm, --rate) is the user's word and is never replaced by learning; with none, what an earlier run of the
// account learned (requests per the window it saw) stands until the service says otherwise, and what this run
// learns is kept for the next. The slots are the account's, shared by every run of it (store/open.ts).
//
// Kept as soon as it is learned, so no stop loses it (Ctrl-C, a kill, a crash): a rate two resets confirmed
// when the limiter says so (onLearn); before that, after each 429, what it has so far (the limit seen, the
// window bounded below by one reset), marked unconfirmed. A run stopped between the two starts the next from
// that bound, not from nothing (a new user's resumed run met the 429s again), and the next confirms it.
import type { ResolvedConfig } from '../../config/resolve.js';
import type { AccountState, LearnedRate } from '../../store/contract.js';
import { type LimiterOptions, RateLimiter } from './limiter.js';

/**
 * The rate a run was given: requests per window, never learned over; null, pacing turned off (--rpm 0: the
 * limiter runs open, learns from a 429 if one comes, and keeps nothing); undefined, nothing said.
 */
export type GivenRate = LearnedRate | null | undefined;

export interface PacingOptions {
  rate?: GivenRate;
  /** The window assumed while nothing is known of the service's (default a minute). */
  windowMs?: number;
  /** The account whose slots and learned rate the run uses; none: slots of the run's own, nothing kept. */
  account?: AccountState | null;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told each rate learned from the service (never a given one). */
  onLearn?: (rate: LearnedRate) => void;
  /** Told when a learned rate could not be kept for the next run. */
  onLearnLost?: (err: unknown) => void;
}

/** The rate the resolved configuration gives (GivenRate): a plan, --rpm or --rate, pacing off, or nothing said. */
export function givenRate(config: Pick<ResolvedConfig, 'rpm' | 'windowMs' | 'sources'>): GivenRate {
  if (config.sources.rate === 'default') return undefined;
  return config.rpm === null ? null : { requests: config.rpm, windowMs: config.windowMs };
}

/** The limiter a run paces with, under the policy above. */
export async function pacedLimiter(o: PacingOptions): Promise<RateLimiter> {
  const given = o.rate ?? null;
  const unsaid = o.rate === undefined;
  const account = unsaid ? (o.account ?? null) : null;
  const learned = account ? await account.learnedRate() : null;
  const windowMs = o.windowMs ?? 60_000;
  let kept = learned;
  const keep = (rate: LearnedRate) => {
    kept = rate;
    account?.saveLearnedRate(rate).catch((err: unknown) => o.onLearnLost?.(err));
  };
  const options: LimiterOptions = {
    limit: given?.requests ?? learned?.requests ?? null,
    windowMs: given?.windowMs ?? learned?.windowMs ?? windowMs,
    given: given !== null,
    // Nothing said and nothing learned: the window is only a default, so a bare 429 is looked past, not waited
    // out; or it is an unconfirmed one's, a lower bound (limiter.ts confirms it).
    windowGuessed: given === null && (learned === null || learned.unconfirmed === true),
    ...(o.account ? { slots: o.account.slots } : {}),
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.sleep ? { sleep: o.sleep } : {}),
    onLearn: (rate) => {
      o.onLearn?.(rate);
      if (account) keep({ requests: rate.requests, windowMs: rate.windowMs });
    },
  };
  if (account === null) return new RateLimiter(options);
  const limiter: RateLimiter = new KeepingLimiter(options, () => {
    const m = limiter.measured;
    if (m === null || m.confirmed || (kept?.requests === m.requests && kept.windowMs === m.windowMs)) return;
    keep({ requests: m.requests, windowMs: m.windowMs, unconfirmed: true });
  });
  return limiter;
}

/** A limiter that, after each 429 it took, has `after` keep what it measured so far. */
class KeepingLimiter extends RateLimiter {
  readonly #after: () => void;

  constructor(o: LimiterOptions, after: () => void) {
    super(o);
    this.#after = after;
  }

  override async rateLimit(resumeAt: number | null, rounded = false): Promise<void> {
    try {
      await super.rateLimit(resumeAt, rounded);
    } finally {
      this.#after();
    }
  }
}
