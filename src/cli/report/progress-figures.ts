// What the progress line shows, worked out from a run's live counters, its input's bytes and the rate
// limiter's pace. Pure: every figure is a function of what it is given, the clock included, so tests check
// the ETA against a known pace with a fake clock.
import type { RateLimiter } from '../../run/limit/limiter.js';
import type { SlotStore } from '../../store/contract.js';
import type { RunStats } from '../../run/stats.js';
import type { ProgressSnapshot } from '../output/progress.js';

/** The limiter's pace and what holds its slots now (RateLimiter and its SlotStore). */
export interface Pace {
  /** Requests per window, or null while unknown (then only the pace the run has managed counts). */
  limit: number | null;
  windowMs: number;
  /** Hosts one request asks about (the kind's batch size). */
  batchSize: number;
  /** Requests holding a slot now: sent within the last window, or in flight. */
  held: number;
  /** When the oldest of those was sent (its slot frees a window after it), or null when none. */
  oldestHeldAt: number | null;
  /** When requests resume after a 429 (epoch ms), or 0. */
  pausedUntil: number;
  /**
   * No rate given (plan, --rpm, --rate) nor learned by an earlier run, and the limit not met yet: the run
   * goes at whatever pace the service allows until its first 429 says how much that is, so an ETA from the
   * pace so far is a guess too soon by minutes (a tryout: `ETA ~26s` for a 3-minute run). None is shown.
   */
  learning?: boolean;
}

/** The size of a run's input file in bytes; `total` null when not known (stdin, a workbook). */
export interface InputMeter {
  total: number | null;
}

export interface EtaInput {
  now: number;
  /** Distinct hosts still to look up (estimated while the input is still being read). */
  hostsLeft: number;
  /** Requests the run has sent so far, and since when (the run's start): the pace it managed. */
  requestsSent: number;
  startedAt: number;
  pace: Pace;
}

/**
 * Time until the last lookup is answered. When the limit binds (more requests left than slots free), what the
 * limiter allows: the requests left in windows of `limit`, the first of them once the oldest slot held frees
 * (a window after the end of a 429 pause, whose slots all go at its end). Otherwise, or when the run has
 * gone slower than the limit allows (latency or concurrency set the pace), the pace the run has managed:
 * requests sent per second since it started (not hosts: the first request asks about one host only). The limiter's figure is what corrects the old ETA: a burst of a
 * window's requests at the start made the run's own pace read as seconds for a run with a minute of waiting
 * ahead.
 */
export function etaMs(e: EtaInput): number | null {
  if (e.hostsLeft <= 0) return 0;
  const { pace, now } = e;
  const resume = Math.max(0, pace.pausedUntil - now);
  const elapsed = now - e.startedAt;
  const batch = Math.max(1, pace.batchSize);
  const requests = Math.ceil(e.hostsLeft / batch);
  const managed = e.requestsSent > 0 && elapsed > 0 ? (requests / e.requestsSent) * elapsed + resume : null;
  if (pace.limit === null || pace.limit <= 0) return managed;
  const paused = resume > 0;
  const free = paused ? pace.limit : Math.max(0, pace.limit - pace.held);
  let limited = resume;
  if (requests > free) {
    const firstFree = paused ? resume + pace.windowMs : Math.max(0, (pace.oldestHeldAt ?? now) + pace.windowMs - now);
    limited = firstFree + (Math.ceil((requests - free) / pace.limit) - 1) * pace.windowMs;
  }
  if (managed === null) return limited;
  // Slower than the limit allows: something else sets the pace, and the limit's figure would be too soon.
  const slower = e.requestsSent / elapsed < pace.limit / pace.windowMs;
  return slower || requests <= free ? Math.max(limited, managed) : limited;
}

/**
 * Lookups a share of the file read has brought lately: the need per unit of the file, measured over the last
 * stretch read (at least MARGIN of the file, else null). Repeats grow as a list goes on, so a host seen late is
 * more often one seen already: scaling the whole need by the share read guessed high all run long (a tryout:
 * 15-38 s too high on 40 s runs), where the recent stretch says what the rest of the file will add.
 */
export type NeedRate = number | null;
const MARGIN = 0.1;

/** The progress line's figures from the run's counters as they stand. */
export function progressFigures(s: Readonly<RunStats>, meter: InputMeter | null, pace: Pace, now: number, rate: NeedRate = null): ProgressSnapshot {
  // Distinct hosts looked up so far: every one planned for a lookup that no longer waits for its answer.
  const lookupsDone = Math.max(0, s.lookupsNeeded - s.lookupsWaiting);
  const share = readShare(s, meter);
  // Until the input is read to its end the need is known only in part: what the recent stretch of the file
  // added, carried over the rest of it; before there is a stretch to measure, the share read scales the need.
  const needed = s.inputDone
    ? s.lookupsNeeded
    : share === null || share <= 0
      ? null
      : rate !== null
        ? Math.round(s.lookupsNeeded + rate * (1 - share))
        : Math.round(s.lookupsNeeded / share);
  const learning = pace.learning === true;
  const eta =
    needed === null || learning ? null : etaMs({ now, hostsLeft: Math.max(0, needed - lookupsDone), requestsSent: s.requests, startedAt: s.startedAt, pace });
  const elapsed = Math.max(1, now - s.startedAt);
  return {
    rows: s.rows,
    hosts: s.valid - s.duplicates,
    cached: s.cacheHits,
    lookupsDone,
    lookupsNeeded: s.inputDone ? s.lookupsNeeded : null,
    readShare: share,
    etaMs: eta,
    etaEstimated: !s.inputDone,
    ...(learning ? { etaLearning: true } : {}),
    lookupsPerSec: (lookupsDone * 1000) / elapsed,
    elapsedMs: now - s.startedAt,
    quotaRemaining: s.quota?.remaining ?? null,
    waitingUntil: pace.pausedUntil > now ? pace.pausedUntil : null,
    nextSlotAt: nextSlotAt(s, pace, lookupsDone),
  };
}

/** When the limiter frees a slot, while it holds them all and hosts are left to look up; else null. */
function nextSlotAt(s: Readonly<RunStats>, pace: Pace, lookupsDone: number): number | null {
  const left = s.inputDone ? s.lookupsNeeded - lookupsDone : s.lookupsWaiting;
  if (pace.limit === null || pace.limit <= 0 || pace.held < pace.limit || pace.oldestHeldAt === null || left <= 0) return null;
  return pace.oldestHeldAt + pace.windowMs;
}

/** The share of the input file read, while it is being read and its size is known; else null. */
function readShare(s: Readonly<RunStats>, meter: InputMeter | null): number | null {
  return !s.inputDone && meter !== null && meter.total !== null && meter.total > 0 ? Math.min(1, s.inputChars / meter.total) : null;
}

/** Where progress reads a run's live figures from. */
export interface LiveSources {
  /** The run's counters, null before its first report. */
  stats: () => Readonly<RunStats> | null;
  limiter: Pick<RateLimiter, 'limit' | 'windowMs' | 'pausedUntil'> & Partial<Pick<RateLimiter, 'measured'>>;
  slots: Pick<SlotStore, 'acceptedBetween'>;
  batchSize: number;
  meter: InputMeter | null;
  clock: () => number;
  /** No rate was given to the run (policy.ts givenRate undefined): until the limiter has one, it is learning it. */
  rateUnsaid?: boolean;
}

/**
 * What progress reads at each redraw: the run's counters as they stand (null before its first report), with
 * the limiter's pace and the slots it holds. A redraw never waits on the store: the slots are read in the
 * background, one read at a time, and a redraw shows what the last read found (a redraw old at most).
 */
export function liveFigures({ stats, limiter, slots, batchSize, meter, clock, rateUnsaid }: LiveSources): () => ProgressSnapshot | null {
  // (share read, need) as the redraws saw them, the oldest first: what the last stretch of the file added.
  const seen: { share: number; need: number }[] = [];
  const rateOf = (s: Readonly<RunStats>): NeedRate => {
    const share = readShare(s, meter);
    if (share === null) return null;
    if (seen.length === 0 || share > (seen.at(-1)?.share ?? 0)) seen.push({ share, need: s.lookupsNeeded });
    // Keep one sample older than the stretch measured, drop the rest: the list stays short.
    // (A hair under MARGIN counts: 0.6 - 0.5 is 0.0999... in floating point.)
    const reaches = (from: number): boolean => share - from >= MARGIN - 1e-9;
    while (seen.length > 2 && reaches(seen[1]?.share ?? 0)) seen.shift();
    const from = seen[0];
    return from !== undefined && reaches(from.share) ? (s.lookupsNeeded - from.need) / (share - from.share) : null;
  };
  let answered: { count: number; first: number | null } = { count: 0, first: null };
  let reading = false;
  const readSlots = (now: number) => {
    if (reading) return;
    reading = true;
    slots
      .acceptedBetween(now - limiter.windowMs, now + 1)
      .then((a) => {
        answered = a;
      })
      // The figures wait for the next read: a store that cannot be read now costs progress nothing more.
      .catch(() => undefined)
      .finally(() => {
        reading = false;
      });
  };
  return () => {
    const s = stats();
    if (s === null) return null;
    const now = clock();
    const rate = rateOf(s);
    readSlots(now);
    // The run's requests in flight include those waiting for a slot (they wait only when every slot is held).
    const held = answered.count + s.inFlight;
    const pace = {
      limit: limiter.limit,
      windowMs: limiter.windowMs,
      batchSize,
      held,
      oldestHeldAt: answered.first ?? (s.inFlight > 0 ? now : null),
      pausedUntil: limiter.pausedUntil,
      // Until two resets confirm the window, it is only bounded below: an ETA from it came out 3x too low (a
      // trial: 1m 13s, then 3m 43s once the window was known). A rate that is never confirmed shows no ETA.
      learning: rateUnsaid === true && (limiter.limit === null || limiter.measured?.confirmed === false),
    };
    return progressFigures(s, meter, pace, now, rate);
  };
}
