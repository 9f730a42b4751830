// What a RateLimiter (limiter.ts) is built with, and the ticket it hands each request.
import type { SlotStore } from '../../store/contract.js';

export interface LimiterOptions {
  /** Requests per window; null when unknown (learned from the first 429). */
  limit: number | null;
  /** The window in force (given, or the best estimate). */
  windowMs: number;
  /** True when a plan/--rpm/--rate set the limit: learning never changes it. */
  given: boolean;
  /**
   * True when `windowMs` is only a default, nothing known of the service's (no rate given or learned): a 429
   * that names no reset is then looked past at 1 s, 2 s, 4 s... rather than waited out for a default window.
   * With a limit: both are what an earlier run learned before two resets confirmed the window, which is then
   * only a lower bound; this run confirms it before telling onLearn.
   */
  windowGuessed?: boolean;
  /** Default memorySlots(). */
  slots?: SlotStore;
  /** Extra spacing against latency skew between our clock and the service's; default 1% of the window, 5..250 ms. */
  marginMs?: number;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called on each change of the learned limit or window; never when the limit was given. */
  onLearn?: (rate: { requests: number; windowMs: number }) => void;
}

/** One request's hold on the limiter. */
export interface Ticket {
  id: number;
  startedAt: number;
  /** When the request was sent (RateLimiter.sent), if it was: a little after its slot was granted. */
  sentAt?: number;
  answeredAt: number | null;
}
