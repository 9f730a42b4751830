// The client-side rate limiter. The service counts requests per minute per plan (§8) and we do not know where
// its minute starts, nor exactly when it counted a request: only that it was after we sent it and before its
// answer came back. So a slot is held from the moment a request is sent until one window after its answer
// arrived: request i+limit starts only after answer i + windowMs (+ a small margin for clock skew). Two
// requests a limit apart are then always more than a window apart on the service's clock, so no fixed
// window of that length ever sees more than `limit`, and a known plan never meets a 429. The cost is one
// round trip per window (0.3% of a minute at 200 ms). A 429 still pauses every worker until its reset.
// With no known limit the limiter starts open and learns the limit from the first 429.
import { sleep } from '../api/sleep.js';

export { sleep };

/** Where the limiter keeps its slots: in memory for one run, or shared by every run of an account (store/slots.ts). */
// biome-ignore lint/suspicious/noEmptyInterface: contract, filled in by the limiter part
export interface SlotStore {}

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

/** One request's hold on the limiter. */
export interface Ticket {
  startedAt: number;
  answeredAt: number | null;
}

/** Sliding-window limiter shared by every worker of a run. */
export class RateLimiter {
  #limit: number | null;
  readonly windowMs: number;
  readonly #margin: number;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #onLearn: ((limit: number) => void) | undefined;
  /** Recent requests, oldest first: when each was sent and, once answered, when. */
  #slots: Ticket[] = [];
  /** Start times of requests that were accepted (not 429), for learning the limit. */
  #accepted: number[] = [];
  #pausedUntil = 0;
  #queue: Promise<void> = Promise.resolve();
  #answered: Promise<void> | null = null;
  #wakeOnAnswer: (() => void) | null = null;

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

  /** Waits for a slot, in arrival order; returns the ticket to hand back to `settle` when answered. */
  acquire(signal?: AbortSignal): Promise<Ticket> {
    const turn = this.#queue.then(() => this.#wait(signal));
    this.#queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  async #wait(signal?: AbortSignal): Promise<Ticket> {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const now = this.#clock();
      if (now < this.#pausedUntil) {
        await this.#sleep(this.#pausedUntil - now, signal);
        continue;
      }
      const limit = this.#limit;
      if (limit === null || this.#slots.length < limit) break;
      const oldest = this.#slots[0] as Ticket;
      // Still in flight: the service may count it as late as its answer, so wait for that answer (woken by
      // `settle`, not by polling: a poll would spin under an injected clock that never lets time pass).
      if (oldest.answeredAt === null) {
        await this.#nextAnswer(signal);
        continue;
      }
      const free = oldest.answeredAt + this.windowMs + this.#margin;
      if (now >= free) break;
      await this.#sleep(free - now, signal);
    }
    const ticket: Ticket = { startedAt: this.#clock(), answeredAt: null };
    this.#slots.push(ticket);
    if (this.#limit !== null) while (this.#slots.length > this.#limit) this.#slots.shift();
    else this.#slots = this.#slots.filter((t) => t.answeredAt === null || t.answeredAt >= ticket.startedAt - 2 * this.windowMs);
    return ticket;
  }

  /** Resolves at the next `settle` (or when the signal aborts). */
  #nextAnswer(signal?: AbortSignal): Promise<void> {
    this.#answered ??= new Promise<void>((resolve) => {
      this.#wakeOnAnswer = resolve;
    });
    if (!signal) return this.#answered;
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      void this.#answered?.then(done);
    });
  }

  /** Reports that the request behind `ticket` was answered (accepted: anything but a 429). */
  settle(ticket: Ticket, accepted: boolean): void {
    ticket.answeredAt = this.#clock();
    const wake = this.#wakeOnAnswer;
    this.#answered = null;
    this.#wakeOnAnswer = null;
    wake?.();
    if (!accepted) return;
    this.#accepted.push(ticket.startedAt);
    this.#trim(this.#accepted, this.#clock());
  }

  /** A 429 arrived: every worker waits until `resumeAt`; an unknown limit is learned from what got through. */
  rateLimit(resumeAt: number): void {
    if (resumeAt > this.#pausedUntil) this.#pausedUntil = resumeAt;
    // What the service accepted in the window that ends at resumeAt is its limit (or, with other clients
    // sharing the key, what is left of it): adopt it, never raising a known limit.
    const from = resumeAt - this.windowMs - this.#margin;
    const seen = this.#accepted.filter((t) => t >= from && t < resumeAt).length;
    if (seen > 0 && (this.#limit === null || seen < this.#limit)) {
      this.#limit = seen;
      this.#slots = this.#slots.slice(-seen);
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
