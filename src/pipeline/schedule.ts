// The client-side rate limiter. The service counts requests per minute per plan (§8) and we do not know where
// its minute starts, so we hold a sliding window: at most `limit` request starts in any span of `windowMs`
// (plus a small margin for latency skew). That can never put more than `limit` into any fixed window of the
// same length, so a known plan never meets a 429. A 429 still pauses every worker until its reset.
// With no known limit the limiter starts open and learns the limit from the first 429.
import { sleep } from '../api/sleep.js';

export { sleep };

export interface LimiterOptions {
  /** Requests per window; null when the plan is unknown (learned from the first 429). */
  limit: number | null;
  windowMs: number;
  /** Extra spacing against latency skew between our clock and the service's; default 1% of the window, 5..250 ms. */
  marginMs?: number;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called when the limit is learned or lowered after a 429. */
  onLearn?: (limit: number) => void;
}

/** Sliding-window limiter shared by every worker of a run. */
export class RateLimiter {
  #limit: number | null;
  readonly windowMs: number;
  readonly #margin: number;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #onLearn: ((limit: number) => void) | undefined;
  /** Start times of recent requests, oldest first; at most `limit` kept when the limit is known. */
  #starts: number[] = [];
  /** Start times of requests that were accepted (not 429), for learning the limit. */
  #accepted: number[] = [];
  #pausedUntil = 0;
  #queue: Promise<void> = Promise.resolve();
  rateLimited = 0;

  constructor(opts: LimiterOptions) {
    this.#limit = opts.limit !== null && opts.limit > 0 ? opts.limit : null;
    this.windowMs = opts.windowMs;
    this.#margin = opts.marginMs ?? Math.min(250, Math.max(5, Math.round(opts.windowMs * 0.01)));
    this.#clock = opts.clock ?? Date.now;
    this.#sleep = opts.sleep ?? sleep;
    this.#onLearn = opts.onLearn;
  }

  /** Requests per window in force, or null while unknown. */
  get limit(): number | null {
    return this.#limit;
  }

  /** When requests may resume after a 429 (epoch ms), or 0. */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** Waits for a slot, in arrival order; returns the start time to report back with `settle`. */
  acquire(signal?: AbortSignal): Promise<number> {
    const turn = this.#queue.then(() => this.#wait(signal));
    this.#queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  async #wait(signal?: AbortSignal): Promise<number> {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const now = this.#clock();
      if (now < this.#pausedUntil) {
        await this.#sleep(this.#pausedUntil - now, signal);
        continue;
      }
      const limit = this.#limit;
      if (limit === null || this.#starts.length < limit) break;
      const oldest = this.#starts[0] ?? 0;
      const free = oldest + this.windowMs + this.#margin;
      if (now >= free) break;
      await this.#sleep(free - now, signal);
    }
    const now = this.#clock();
    this.#starts.push(now);
    const keep = this.#limit ?? 0;
    if (this.#limit !== null) while (this.#starts.length > keep) this.#starts.shift();
    else this.#trim(this.#starts, now);
    return now;
  }

  /** Reports how a request that started at `startedAt` ended. */
  settle(startedAt: number, accepted: boolean): void {
    if (!accepted) return;
    this.#accepted.push(startedAt);
    this.#trim(this.#accepted, this.#clock());
  }

  /** A 429 arrived: every worker waits until `resumeAt`; an unknown limit is learned from what got through. */
  rateLimit(resumeAt: number): void {
    this.rateLimited++;
    if (resumeAt > this.#pausedUntil) this.#pausedUntil = resumeAt;
    // What the service accepted in the window that ends at resumeAt is its limit (or, with other clients
    // sharing the key, what is left of it): adopt it, never raising a known limit.
    const from = resumeAt - this.windowMs - this.#margin;
    const seen = this.#accepted.filter((t) => t >= from && t < resumeAt).length;
    if (seen > 0 && (this.#limit === null || seen < this.#limit)) {
      this.#limit = seen;
      this.#starts = this.#starts.slice(-seen);
      this.#onLearn?.(seen);
    }
  }

  #trim(list: number[], now: number): void {
    const horizon = now - 2 * this.windowMs;
    let drop = 0;
    while (drop < list.length && (list[drop] ?? 0) < horizon) drop++;
    if (drop > 0) list.splice(0, drop);
  }
}
