// What the limiter (limiter.ts) learns of the service's window from a 429, when no rate was given. The
// spec says only "requests per minute" (§8); where a window starts, whether it is fixed or sliding, and
// whether a refused request counts are not shown. The readings, and what one rule makes of each:
//
// | reading                       | a 429's reset R is               | at R the service frees   | one reset tells of the window W  |
// | ----------------------------- | -------------------------------- | ------------------------ | -------------------------------- |
// | fixed windows on the clock    | the end of the current window    | every request counted    | W ≥ R − (start of the oldest     |
// |                               |                                  |                          | request it counted); resets are  |
// |                               |                                  |                          | W apart (or a multiple)          |
// | sliding, over the last W      | when the oldest counted request  | that one request only    | W = R − (count time of the       |
// |                               | leaves the window                |                          | oldest counted); resets are any  |
// |                               |                                  |                          | distance apart                   |
// | either, refused not counted   | (as above)                       | (refused: never held)    |                                  |
// | (the sandbox's, our choice)   |                                  |                          |                                  |
//
// The rules, right under every reading:
// - What a reset frees (store/contract.ts `pause`): the refused slots, and the oldest accepted slot (one
//   request's worth); every other slot frees one window after its answer. Freeing all at R (right for fixed
//   windows only) met 16 to 23 429s in every window of a sliding one.
// - The window: one reset gives a lower bound, never its length: the n requests the service counted last,
//   n the limit, all began within the window that ends at R, so W ≥ R − (start of the n-th most recent).
//   The bound only grows; the window in force never goes below it. A first reset replaces the configured
//   default by the bound; a later one widens the window to its bound. Two resets a window apart (the gap no
//   shorter than the bound and under half as long again) confirm it under the fixed reading: only then is
//   what was learned told to be kept.
// - While the window is only the bound of one reset (it may be far longer: 616 ms where it was 2 s), the
//   limiter sends alone what goes beyond the limit since that reset (limiter.ts): a second 429 in flight
//   behind the first was the second of the window. Two of them accepted end the doubt as a second reset
//   does; the first one's answer bounds the window from above (were the limit right, a window had ended).
// - The limit: the requests accepted that began in the window ending at R, or up to a round trip before it
//   (they may have been counted in it: counting only those sent in it took 9 for the sandbox's 10). A 429
//   never raises the limit in force (a probe's try excluded: its 429 shows the raise was refused), unless
//   its reset widened the window: the limit swung between 3 and 4 where the service allows 3.
// Answered slots are kept in the store for the longest window we believe (a minute, or the window if longer),
// and each taker holds them by its own window (store/contract.ts `take`), so a window widened later also
// holds the slots answered before it.
import type { SlotStore } from '../../store/contract.js';
import { SAME_RESET_MS, smallestGap } from './resets.js';

/** How long answered slots are kept for a window learned later: the spec's plans count per minute. */
export const LONGEST_WINDOW_MS = 60_000;

/** What the limiter was pacing at when a 429 came, and the 429. */
export interface Refusal {
  /** The announced reset, or our guess when none was announced. */
  until: number;
  announced: boolean;
  now: number;
  /** The 429 opened a pause (none held when it came). */
  fresh: boolean;
  windowMs: number;
  limit: number | null;
  /** The limit before a probe raised it, while the probe is on trial. */
  probedFrom: number | null;
  /** The limiter's margin over the window. */
  marginMs: number;
}

/** What the limiter learns of a window from its resets: a lower bound, and whether two resets confirmed it. */
export class WindowBounds {
  /** The longest window the resets prove (0: none seen). */
  #lo = 0;
  /** A reset has replaced the configured window (the default, or one a caller gave with no limit). */
  #bounded = false;
  /** The window in force was measured (confirmed by two resets), or learned before: not a bound's guess. */
  known: boolean;
  /** A second reset, or requests beyond the limit accepted (`beyond`), tested the bound of the first. */
  #tested = false;
  /** When requests sent alone beyond the limit since the last reset were answered accepted. */
  #beyond: number[] = [];
  /** The longest round trip seen: a request sent that long before a window began may have been counted in it. */
  #rttMs = 0;

  /** `bound`: a window an earlier run's reset bounded below (0: none), which a first reset widens, never narrows. */
  constructor(known: boolean, bound = 0) {
    this.known = known;
    this.#lo = bound;
    this.#bounded = bound > 0;
  }

  /**
   * A limiter's start: a limit with its window known (given, or confirmed before), or none; or a limit with its
   * window guessed, which is an earlier run's unconfirmed one (policy.ts): the window only bounded below, to confirm.
   */
  static atStart(limit: number | null, windowMs: number, windowGuessed: boolean): WindowBounds {
    const bound = limit !== null && windowGuessed ? windowMs : 0;
    return new WindowBounds(limit !== null && bound === 0, bound);
  }

  /** A request was answered `ms` after it was sent. */
  roundTrip(ms: number): void {
    this.#rttMs = Math.max(this.#rttMs, ms);
  }

  /** The window is only a bound from one reset: it may be far longer (the limiter sends alone beyond the limit). */
  get doubtful(): boolean {
    return this.#bounded && !this.known && !this.#tested;
  }

  /**
   * A request sent alone beyond the limit since the reset `from` (the window doubtful) was answered at `at`.
   * Accepted, and were the limit right, a window has ended since `from`: the window is no longer than
   * `at - from`. The first such answer may be one the limit undercounted (another client's request was in
   * the window the reset ended), so the second ends the doubt, and the first bounds the window. Returns the
   * window to pace at, or null to keep the one in force.
   */
  beyond(from: number, at: number, accepted: boolean, windowMs: number): number | null {
    if (!accepted || !this.doubtful) return null;
    this.#beyond.push(at - from);
    if (this.#beyond.length < 2) return null;
    this.#tested = true;
    const most = this.#beyond[0] as number;
    return most > windowMs ? most : null;
  }

  /** The window and limit to pace at after the 429 `r` (requests null: nothing to go by); confirmed: two resets just measured the window. */
  async learn(slots: SlotStore, r: Refusal): Promise<{ windowMs: number; requests: number | null; confirmed: boolean }> {
    const { until, marginMs } = r;
    const known = this.known;
    let windowMs = r.windowMs;
    const before = r.probedFrom ?? r.limit;
    if (r.announced) {
      // The requests the service counted last: the limit while the window is only a bound (paced at it, a 429
      // says the window is longer); else those we sent in the window in force, no more than the limit.
      const counted = (await slots.acceptedBetween(until - windowMs - marginMs, until)).count;
      const n = before === null ? Math.max(1, counted) : !this.known || counted === 0 ? before : Math.min(before, counted);
      const oldest = await slots.recentAccepted(until, n);
      this.#lo = Math.max(this.#lo, until - r.now, oldest === null ? 0 : until - oldest);
      const gap = r.fresh ? smallestGap(await slots.noteReset(until), Math.min(SAME_RESET_MS, windowMs / 3)) : null;
      this.#tested ||= gap !== null;
      this.#beyond = [];
      if (gap !== null && gap >= this.#lo - marginMs && gap < this.#lo * 1.5) [windowMs, this.known] = [Math.max(gap, this.#lo), true];
      else windowMs = this.#bounded || this.known ? Math.max(windowMs, this.#lo) : this.#lo;
      this.#bounded = true;
    }
    const widened = windowMs > r.windowMs;
    // Those sent up to a round trip before the window began may have been counted in it: counted too (no more
    // than the limit before) unless the window widened, when the count is all there is to go by.
    const reach = widened || before === null ? 0 : this.#rttMs;
    const seen = (await slots.acceptedBetween(until - windowMs - marginMs - reach, until)).count;
    let requests = seen > 0 ? seen : r.limit;
    if (requests !== null && before !== null && !widened) requests = Math.min(requests, before);
    return { windowMs, requests, confirmed: this.known && !known };
  }
}
