// The client-side rate limiter. The service counts requests per window (§8) and we do not know where its
// window starts, nor exactly when it counted a request: only that it was after we sent it and before its
// answer came back. So a slot is held from the moment a request is sent until one window after its answer
// arrived (+ a small margin for clock skew): two requests a limit apart are then always more than a window
// apart on the service's clock, so no window of that length ever sees more than `limit`, and a known limit
// never meets a 429 from this run. The slots live in a SlotStore: in memory for one run, or in SQLite
// (store/sqlite/slots.ts) so every process of one account on this machine paces against the same slots.
// A 429 pauses every user of the slots until the reset, which frees the refused slots and the oldest accepted
// one (window-bounds.ts says why). A 429 that named no reset pauses until our best estimate of the window's
// next boundary, but frees no slot early: a wrong guess would otherwise meet a 429 in every window.
// A limit the user gave (plan, --rpm, --rate) is never changed: a 429 under it means another client shares
// the account, so we wait for the reset and keep the limit. With no limit given the limiter learns the window
// and the limit from each 429 (window-bounds.ts), and raises the limit when it may be too low (a client we
// cannot see shared the account while we measured, then stopped): after PROBE_WINDOWS whole windows with no
// 429 while demand waits at the cap, by one, and again only once the service was seen to accept the raised
// limit within one window (#proves): so at most one more than it allows is ever sent in a window, and a raise
// costs at most one 429 there. A raise the next 429 proves useless doubles the wait before the following
// one, up to MAX_PROBE_WINDOWS: a right limit costs one 429 every 64 windows.
// Nor may a request go while another's 429 may be on its way back: for a window after a 429 requests go one
// at a time, and beyond the limit since a reset that only bounds the window (it may be far longer) alone.
import { nextBoundary } from '../../api/reset.js';
import { sleep } from '../../api/sleep.js';
import type { SlotStore } from '../../store/contract.js';
import { memorySlots } from '../../store/memory-slots.js';
import { Changes } from './changes.js';
import type { LimiterOptions, Ticket } from './ticket.js';
import { LONGEST_WINDOW_MS, WindowBounds } from './window-bounds.js';

export type { LimiterOptions, Ticket } from './ticket.js';

const PROBE_WINDOWS = 4;
const MAX_PROBE_WINDOWS = 64;

/** Rate limiter shared by every worker of a run, and through a shared SlotStore by every run of an account. */
export class RateLimiter {
  #limit: number | null;
  #windowMs: number;
  readonly #given: boolean;
  readonly #slots: SlotStore;
  readonly #marginOption: number | undefined;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #onLearn: LimiterOptions['onLearn'];
  #queue: Promise<void> = Promise.resolve();
  readonly #changes = new Changes();
  /** When the last 429 came or the limit last changed: the raise waits PROBE windows after it. */
  #quietSince: number;
  #probeWindows = PROBE_WINDOWS;
  /** The limit before the last probe raised it, until the raise is refused (a 429) or proven (#proves). */
  #probedFrom: number | null = null;
  /** What the resets showed of the window; `known` false while it is only the configured default or a bound. */
  readonly #bounds: WindowBounds;
  /** The latest announced reset: where the service's windows begin, for a guess when a 429 names none. */
  #lastReset: number | null = null;
  /** The configured window is only a default (nothing known of the service's): see rateLimit. */
  readonly #windowGuessed: boolean;
  /** A reset came as whole seconds to wait: what is measured from such resets is used, never told to be kept. */
  #rounded = false;
  /** Bare 429s in a row while no window is known: the next look comes 2^(n-1) seconds later. */
  #blind = 0;
  /** The pause as the slots last said (progress reads it between steps). */
  #pausedUntil = 0;
  /** 429s being taken, whole and one at a time (null: none); no slot is taken meanwhile: the pause comes first. */
  #rateLimits: Promise<void> | null = null;
  /** Tickets not yet settled or released, and until when they go one at a time (see the top of the file). */
  #inFlight = 0;
  #trialUntil = 0;
  /** The request sent alone beyond the limit since a reset that only bounds the window (WindowBounds.beyond). */
  #beyondId: number | null = null;

  constructor(o: LimiterOptions) {
    this.#limit = o.limit !== null && o.limit > 0 ? o.limit : null;
    this.#windowMs = o.windowMs;
    this.#given = o.given && this.#limit !== null;
    this.#bounds = WindowBounds.atStart(this.#limit, o.windowMs, o.windowGuessed === true);
    this.#windowGuessed = o.windowGuessed === true;
    this.#slots = o.slots ?? memorySlots();
    this.#marginOption = o.marginMs;
    this.#clock = o.clock ?? Date.now;
    this.#sleep = o.sleep ?? sleep;
    this.#onLearn = o.onLearn;
    this.#quietSince = this.#clock();
  }

  /** Requests per window in force, or null while unknown. */
  get limit(): number | null {
    return this.#limit;
  }

  /** What was measured of a rate not given (a probe's try left out) and whether two resets confirmed its window; null: nothing, or from resets in whole seconds. */
  get measured(): { requests: number; windowMs: number; confirmed: boolean } | null {
    const requests = this.#probedFrom ?? this.#limit;
    return this.#given || this.#rounded || requests === null ? null : { requests, windowMs: this.#windowMs, confirmed: this.#bounds.known };
  }

  /** The window in force (ms): given, or the best estimate. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** When requests may resume after a 429 (epoch ms), or 0: as the slots said at the last step. */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /**
   * Whether a request may go while others are in flight: not for a window after a 429; nor, while the window
   * is only a bound from one reset (WindowBounds.doubtful), beyond the limit since it: were the window fixed,
   * the reset began one that takes the limit, but it may be far longer than the bound (see the top of the file).
   */
  async #mayJoin(now: number): Promise<boolean> {
    if (now < this.#trialUntil) return false;
    return !this.#bounds.doubtful || (this.#limit !== null && (await this.#sinceReset(now)) + this.#inFlight < this.#limit);
  }

  /** Requests accepted since the last announced reset. */
  async #sinceReset(now: number): Promise<number> {
    return this.#lastReset === null ? 0 : (await this.#slots.acceptedBetween(this.#lastReset, now + 1)).count;
  }

  get #holdMs(): number {
    return this.#windowMs + (this.#marginOption ?? Math.min(250, Math.max(5, Math.round(this.#windowMs * 0.01))));
  }

  /** Waits for a slot, in arrival order; returns the ticket to hand back to `settle` (or `release`). */
  acquire(signal?: AbortSignal): Promise<Ticket> {
    const turn = this.#queue.then(() => this.#wait(signal));
    this.#queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  async #wait(signal?: AbortSignal): Promise<Ticket> {
    // While learning, answers already in are read first (sleep(0) is a turn of the event loop): a 429 among them pauses this one.
    if (!this.#given && (this.#limit === null || this.#bounds.doubtful || this.#clock() < this.#trialUntil)) await this.#sleep(0, signal);
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      if (this.#rateLimits !== null) await this.#rateLimits;
      const now = this.#clock();
      if (this.#inFlight > 0 && !(await this.#mayJoin(now))) {
        await this.#changes.next(signal);
        continue;
      }
      const beyond = this.#bounds.doubtful && (await this.#sinceReset(now)) >= (this.#limit ?? Number.POSITIVE_INFINITY);
      const got = await this.#slots.take(now, this.#limit, this.#holdMs);
      if ('id' in got) {
        this.#inFlight++;
        if (beyond) this.#beyondId = got.id;
        return { id: got.id, startedAt: now, answeredAt: null };
      }
      if (got.paused) this.#pausedUntil = Math.max(this.#pausedUntil, got.retryAt ?? 0);
      // A pause (perhaps another process's 429) is not a quiet window: no probe right after it.
      if (got.paused) this.#quietSince = Math.max(this.#quietSince, got.retryAt ?? now);
      else if (this.#probe(now)) continue;
      await this.#until(now, got.retryAt, signal);
    }
  }

  /**
   * Waits until `retryAt`, or for a local answer or release when only one can free a slot. Answers of
   * other processes cannot wake us, so with a shared store no wait is longer than a poll.
   */
  async #until(now: number, retryAt: number | null, signal?: AbortSignal): Promise<void> {
    const poll = this.#slots.shared ? Math.max(1, Math.min(250, Math.round(this.#windowMs / 20))) : Number.POSITIVE_INFINITY;
    const ms = Math.min(retryAt === null ? Number.POSITIVE_INFINITY : retryAt - now, poll);
    // Not a poll when nothing else can free a slot: an injected clock that never advances must not spin.
    if (ms === Number.POSITIVE_INFINITY) return this.#changes.next(signal);
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    await Promise.race([this.#sleep(ms, both), this.#changes.next(both)]);
    stop.abort();
  }

  /** The request behind `ticket` goes now: the window is bounded by when requests were sent (window-bounds.ts). */
  sent(ticket: Ticket): void {
    ticket.sentAt = this.#clock();
  }

  /** Reports that the request behind `ticket` was answered (accepted: anything but a 429). */
  async settle(ticket: Ticket, accepted: boolean): Promise<void> {
    const at = this.#clock();
    ticket.answeredAt = at;
    this.#inFlight--;
    this.#bounds.roundTrip(at - (ticket.sentAt ?? ticket.startedAt));
    if (accepted) this.#blind = 0;
    // Kept for the longest window we believe unless the window was given: a window widened later holds it too.
    const keep = this.#given ? this.#holdMs : Math.max(this.#holdMs, LONGEST_WINDOW_MS);
    try {
      await this.#slots.answer(ticket.id, at, accepted, at + keep, ticket.sentAt);
      if (accepted && this.#probedFrom !== null && (await this.#proves(at))) this.#probedFrom = null;
      if (ticket.id === this.#beyondId && this.#lastReset !== null) {
        this.#beyondId = null;
        const windowMs = this.#bounds.beyond(this.#lastReset, at, accepted, this.#windowMs);
        if (windowMs !== null) this.#adopt(this.#limit, windowMs);
      }
    } finally {
      this.#changes.notify();
    }
  }

  /**
   * A raise is proven once the service accepted the raised limit within one of its windows (measured, not a
   * bound): requests sent since it began, answered by `now`. One that merely met no 429 may never have been
   * tried (paced requests seldom fill a window): climbing on it could send two too many in one window.
   */
  async #proves(now: number): Promise<boolean> {
    const limit = this.#limit;
    if (limit === null || !this.#bounds.known) return false;
    const begun = this.#guessReset(now) - this.#windowMs;
    return (await this.#slots.acceptedBetween(begun, now + 1)).count >= limit;
  }

  /** Gives back a slot whose request was never sent. */
  async release(ticket: Ticket): Promise<void> {
    this.#inFlight--;
    await this.#slots.release(ticket.id).finally(() => this.#changes.notify());
  }

  /** A 429 arrived: every worker waits until its reset (null: it named none, so until our estimate of the window's end; `rounded`: given in whole seconds). */
  rateLimit(resumeAt: number | null, rounded = false): Promise<void> {
    const now = this.#clock();
    const turn = (this.#rateLimits ?? Promise.resolve())
      .then(() => this.#pause(now, resumeAt, rounded))
      .finally(async () => {
        this.#pausedUntil = Math.max(this.#pausedUntil, await this.#slots.pausedUntil());
      });
    const taken: Promise<void> = turn
      .catch(() => undefined)
      .finally(() => {
        if (this.#rateLimits === taken) this.#rateLimits = null;
      });
    this.#rateLimits = taken;
    return turn;
  }

  async #pause(now: number, resumeAt: number | null, rounded: boolean): Promise<void> {
    this.#rounded ||= rounded;
    const announced = resumeAt !== null;
    // The first 429 after a resume opens a pause; those of requests already in flight belong to it.
    const fresh = now >= (await this.#slots.pausedUntil());
    if (!announced && !this.#bounds.known && this.#windowGuessed) {
      // A bare 429 and no window known (the configured one is only a default): nothing to learn from, and
      // waiting out a default minute against a service whose window may be two seconds would stall the run.
      // A 429 costs no lookup (§8.6), so look again after 1 s, 2 s, 4 s... never later than our guess.
      if (fresh) this.#blind++;
      await this.#slots.pause(Math.min(now + 1000 * 2 ** (this.#blind - 1), this.#guessReset(now)), false, now, this.#holdMs);
      this.#quietSince = now;
      return;
    }
    const until = resumeAt ?? this.#guessReset(now);
    // Learnt first: what the reset frees is held by the window it shows (no other worker takes a slot meanwhile).
    if (!this.#given) await this.#learn(now, until, announced, fresh);
    await this.#slots.pause(until, announced, now, this.#holdMs);
    this.#quietSince = now;
    // One request at a time for a window after the resume (see the top of the file).
    if (fresh && !this.#given) this.#trialUntil = until + this.#holdMs;
  }

  async #learn(now: number, until: number, announced: boolean, fresh: boolean): Promise<void> {
    if (announced) this.#lastReset = until;
    const probedFrom = this.#probedFrom;
    const r = { until, announced, now, fresh, probedFrom, marginMs: this.#holdMs - this.#windowMs, windowMs: this.#windowMs, limit: this.#limit };
    const { windowMs, requests, confirmed } = await this.#bounds.learn(this.#slots, r);
    if (probedFrom !== null && requests !== null && requests <= probedFrom) this.#probeWindows = Math.min(MAX_PROBE_WINDOWS, this.#probeWindows * 2);
    this.#probedFrom = null;
    this.#adopt(requests, windowMs, true, confirmed);
  }

  /** Our estimate of when the service's window ends: the next boundary after the last announced reset, else of the clock. */
  #guessReset(now: number): number {
    const [w, last] = [this.#windowMs, this.#lastReset];
    return last === null ? nextBoundary(now, w) : last + Math.max(1, Math.ceil((now - last) / w)) * w;
  }

  /** The raise: after whole windows at the cap with no 429, the raise before proven, one more (see the top of the file). */
  #probe(now: number): boolean {
    const limit = this.#limit;
    if (this.#given || limit === null || this.#probedFrom !== null) return false;
    if (now - this.#quietSince < this.#probeWindows * this.#windowMs) return false;
    this.#probedFrom = limit;
    this.#adopt(limit + 1, this.#windowMs, false);
    return true;
  }

  /**
   * Paces at `requests` per `windowMs` from now on. Only a measure is told to onLearn (and so stored and
   * announced), never a probe's try; nor, when the configured window was only a default, an estimate made
   * before two resets measured the window; nor anything measured from resets given in whole seconds (a
   * window read from them was seen at 1.0 s and 9.7 s against a 2-s service).
   */
  #adopt(requests: number | null, windowMs: number, measured = true, confirmed = false): void {
    if (requests === null || (requests === this.#limit && windowMs === this.#windowMs && !confirmed)) return;
    this.#limit = requests;
    this.#windowMs = windowMs;
    this.#quietSince = this.#clock();
    if (measured && !this.#rounded && (this.#bounds.known || !this.#windowGuessed)) this.#onLearn?.({ requests, windowMs });
  }
}
