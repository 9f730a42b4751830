// The limiter's policy: which limit a run paces at and where its slots live. A rate the user gave (plan,
// --rpm, --rate) is the user's word and is never replaced by learning; with none, what an earlier run of the
// account learned (requests per the window it saw) stands until the service says otherwise, and what this run
// learns is kept for the next. The slots are the account's, shared by every run of it (store/open.ts).
import type { ResolvedConfig } from '../../config/resolve.js';
import type { AccountState, LearnedRate } from '../../store/contract.js';
import { RateLimiter } from './limiter.js';

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
  const learned = unsaid && o.account ? await o.account.learnedRate() : null;
  const windowMs = o.windowMs ?? 60_000;
  return new RateLimiter({
    limit: given?.requests ?? learned?.requests ?? null,
    windowMs: given?.windowMs ?? learned?.windowMs ?? windowMs,
    given: given !== null,
    // Nothing said and nothing learned: the window is only a default, so a bare 429 is looked past, not waited out.
    windowGuessed: given === null && learned === null,
    ...(o.account ? { slots: o.account.slots } : {}),
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.sleep ? { sleep: o.sleep } : {}),
    onLearn: (rate) => {
      o.onLearn?.(rate);
      if (unsaid && o.account) o.account.saveLearnedRate(rate).catch((err: unknown) => o.onLearnLost?.(err));
    },
  });
}
