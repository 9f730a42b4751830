// The live progress of a batch run on stderr. On a TTY it is an ora spinner, redrawn in place four times a
// second from the run's live figures (a timer, not the pipeline's callbacks: those stop while the run waits
// for the rate limiter, which froze the numbers for seconds at a time). Off a TTY, with --progress, it is a
// plain line every --progress-interval (10 s by default), for cron and CI logs. Nothing is drawn otherwise.
// ora is imported dynamically, and only when a spinner will be drawn: loading it (and its dependencies) at
// start-up would cost every invocation, `--help` included. Lines written to the same stream while the spinner
// is drawn (the logger's warnings) appear above it: ora clears the line, writes them and draws the spinner
// again below (its documented handling of writes to its stream; test/cli/output/progress.test.ts checks it).
import type { Ora } from 'ora';
import { everyMs, type IoClock } from '../io.js';
import { groupedNumber, humanDuration } from './format.js';
import { displayWidth, type Style, truncateToWidth } from './terminal.js';

/** Where a run stands: its live figures (cli/report/progress-figures.ts), read at each redraw. */
export interface ProgressSnapshot {
  rows: number;
  /** Distinct valid hosts met so far (not rows: a host repeated on 3 rows is one). */
  hosts: number;
  /** Distinct hosts answered from the cache. */
  cached: number;
  /** Distinct hosts looked up so far (sent and settled). */
  lookupsDone: number;
  /** Distinct hosts the run looks up in all: null until the input has been read to its end. */
  lookupsNeeded: number | null;
  /** Share of the input file's bytes read (0..1) while it is still being read; null when unknown or done. */
  readShare: number | null;
  etaMs: number | null;
  /** The ETA rests on an estimate of the need (the input is not all read yet): shown with a `~`. */
  etaEstimated: boolean;
  /** The rate limit is not known yet (none given or learned, none met): no ETA, said so. */
  etaLearning?: boolean;
  lookupsPerSec: number;
  elapsedMs: number;
  quotaRemaining: number | null;
  /** Epoch ms until which requests are paused by a 429, if they are. */
  waitingUntil: number | null;
  /**
   * Epoch ms when the limiter frees its next slot, while every slot is held and hosts wait for one (the run's
   * own pacing, not a 429); null otherwise. Said, or the counts stood still for a window with no reason given.
   */
  nextSlotAt?: number | null;
}

export interface Progress {
  /** Clear the line and stop drawing; safe to call twice, and on every way out of a run. */
  stop(): void;
}

export interface ProgressOptions {
  /** stderr in practice; never stdout, which carries data. */
  stream: NodeJS.WriteStream;
  /** Show progress at all: the caller's decision (not --json, not --quiet; a TTY, or --progress). */
  enabled: boolean;
  style: Style;
  /** The figures as they stand now, or null before the run reported any. */
  read: () => ProgressSnapshot | null;
  now?: () => number;
  /**
   * Calls a function every so often, on the same clock as `now` (the CLI's io.clock), until the function it
   * returns is called; default an interval timer that never keeps the process alive.
   */
  every?: IoClock['every'];
  /** Spinner redraw period on a TTY (default 250 ms: four times a second). */
  redrawMs?: number;
  /** No spinner before this many ms (default 0): for rows piped to another program (cli/run/batch-run.ts says why). */
  firstDrawMs?: number;
  /** Off a TTY: a plain line every this many ms; null draws nothing off a TTY. */
  plainEveryMs: number | null;
}

function etaText(ms: number): string {
  // Sub-minute precision is noise in an estimate: whole seconds, rounded up so it never reads 0s early.
  return ms < 59_500 ? `${Math.max(1, Math.ceil(ms / 1000))}s` : humanDuration(ms);
}

function rateText(rate: number): string {
  if (!Number.isFinite(rate) || rate <= 0) return '0/s';
  return rate >= 10 ? `${groupedNumber(Math.round(rate))}/s` : `${rate.toFixed(1)}/s`;
}

function percent(share: number): string {
  // Floor: 100% only when it is all done.
  return `${Math.floor(share * 100)}%`;
}

type FieldName = 'paused' | 'lookups' | 'read' | 'eta' | 'quota' | 'rows' | 'hosts' | 'cached' | 'rate';

/** One field of the line: its text, and a shorter one tried before it is dropped. */
interface Field {
  name: FieldName;
  full: string;
  short: string;
}

/** The line's fields in the order shown: where the run stands against its need and when it ends first. */
function progressFields(p: ProgressSnapshot, now: number): Field[] {
  const n = groupedNumber;
  const fields: Field[] = [];
  const add = (name: FieldName, full: string, short = full) => fields.push({ name, full, short });
  if (p.waitingUntil !== null && p.waitingUntil > now) {
    const wait = etaText(p.waitingUntil - now);
    add('paused', `paused by rate limit, resuming in ${wait}`, `paused ${wait}`);
  } else if (p.nextSlotAt != null && p.nextSlotAt - now >= 1000) {
    const wait = etaText(p.nextSlotAt - now);
    add('paused', `at the rate limit, next request in ${wait}`, `next in ${wait}`);
  }
  if (p.lookupsNeeded !== null) {
    const of = `lookups ${n(p.lookupsDone)} / ${n(p.lookupsNeeded)}`;
    add('lookups', p.lookupsNeeded > 0 ? `${of} (${percent(p.lookupsDone / p.lookupsNeeded)})` : of, of);
  } else {
    add('lookups', `lookups ${n(p.lookupsDone)}`);
    if (p.readShare !== null) add('read', `read ${percent(p.readShare)}`);
  }
  if (p.etaLearning === true) add('eta', 'ETA: learning the rate', 'ETA ?');
  else if (p.etaMs !== null && Number.isFinite(p.etaMs)) add('eta', `ETA ${p.etaEstimated ? '~' : ''}${etaText(p.etaMs)}`);
  if (p.quotaRemaining !== null) add('quota', `quota ${n(p.quotaRemaining)}`);
  add('rows', `${n(p.rows)} rows`);
  add('hosts', `${n(p.hosts)} hosts`);
  add('cached', `${n(p.cached)} cached`);
  const rate = rateText(p.lookupsPerSec);
  add('rate', rate.replace('/s', ' lookups/s'), rate);
  return fields;
}

/**
 * What a narrow terminal gives up, least useful first: the pace, then the counts a summary gives anyway,
 * then the long forms and the quota; the need (lookups done of needed) and the ETA go last (the issue saw
 * lookups and quota cut first at 60 columns).
 */
const GIVE_UP: readonly (readonly [FieldName, 'short' | 'drop'])[] = [
  ['rate', 'short'],
  ['rate', 'drop'],
  ['cached', 'drop'],
  ['hosts', 'drop'],
  ['rows', 'drop'],
  ['paused', 'short'],
  ['read', 'drop'],
  ['quota', 'drop'],
  ['lookups', 'short'],
  ['eta', 'drop'],
  ['paused', 'drop'],
];

const SEP = ' · ';

/**
 * The progress line's text in at most `width` columns (none: in full): fields shortened or dropped in the
 * order of GIVE_UP until it fits, so no field is ever cut mid-number.
 */
export function formatProgressLine(p: ProgressSnapshot, now: number, width = Number.POSITIVE_INFINITY): string {
  const fields = progressFields(p, now);
  const shown = new Map<FieldName, 'full' | 'short' | 'drop'>(fields.map((f) => [f.name, 'full']));
  const line = () =>
    fields
      .flatMap((f) => {
        const form = shown.get(f.name);
        return form === 'drop' ? [] : [form === 'short' ? f.short : f.full];
      })
      .join(SEP);
  const fits = () => displayWidth(line()) <= width;
  const taken: (readonly [FieldName, 'short' | 'drop', 'full' | 'short' | 'drop' | undefined])[] = [];
  for (const [name, step] of GIVE_UP) {
    if (fits()) break;
    if (!shown.has(name)) continue;
    taken.push([name, step, shown.get(name)]);
    shown.set(name, step);
  }
  // A later step may free more room than it needed: give back what now fits, the most useful first, up to
  // the first that does not (a less useful field never shows where a more useful one could not).
  for (const [name, step, before] of taken.reverse()) {
    if (before === undefined || shown.get(name) !== step) continue;
    shown.set(name, before);
    if (fits()) continue;
    shown.set(name, step);
    break;
  }
  // What is left is still too wide (a terminal under 20 columns): cut it.
  return truncateToWidth(line(), width);
}

/** The plain line written off a TTY: every field, with the time elapsed, for a log. */
export function plainProgressLine(p: ProgressSnapshot, now: number): string {
  return `progress after ${humanDuration(p.elapsedMs)}: ${formatProgressLine(p, now)}`;
}

// ora moves the cursor with these; a stream without them (a fake TTY, some wrappers) cannot host a spinner.
// Nor can a terminal that reports a width of 0 (`script` with no real terminal behind it, some CI ptys):
// ora divides by that width when it counts the lines to clear, and then clears lines forever.
function canMoveCursor(stream: NodeJS.WriteStream): boolean {
  return (
    (stream.columns ?? 80) > 0 && typeof stream.cursorTo === 'function' && typeof stream.moveCursor === 'function' && typeof stream.clearLine === 'function'
  );
}

const NO_PROGRESS: Progress = { stop() {} };

/** A progress display on `opts.stream`: a spinner on a TTY, plain lines off one; loads ora only for a spinner. */
export async function createProgress(opts: ProgressOptions): Promise<Progress> {
  const { stream, style } = opts;
  if (!opts.enabled) return NO_PROGRESS;
  const now = opts.now ?? Date.now;
  if (stream.isTTY !== true) return opts.plainEveryMs === null ? NO_PROGRESS : plainProgress(stream, opts.read, now, opts.plainEveryMs, opts.every ?? everyMs);
  if (!canMoveCursor(stream)) return NO_PROGRESS;

  const { default: ora } = await import('ora');
  let spinner: Ora | null = null;
  let stopped = false;
  const firstAt = now() + (opts.firstDrawMs ?? 0);

  function draw(): void {
    const latest = opts.read();
    const at = now();
    if (stopped || latest === null || at < firstAt) return;
    // One line only: a wrapped line would leave debris when ora clears it on a narrow terminal. The spinner
    // and its space take 2 columns; one more spare keeps the cursor off the last column (some terminals wrap).
    const columns = stream.columns && stream.columns > 10 ? stream.columns : 80;
    const text = formatProgressLine(latest, at, columns - 3);
    const waiting = latest.waitingUntil !== null && latest.waitingUntil > at;
    if (spinner === null) {
      // discardStdin off: the input may be stdin itself, and raw mode would also swallow Ctrl-C.
      spinner = ora({ stream, text, isEnabled: true, discardStdin: false, color: style.enabled ? 'cyan' : false });
      spinner.start();
    } else {
      spinner.text = text;
    }
    if (style.enabled) spinner.color = waiting ? 'yellow' : 'cyan';
    // Now, not at the spinner's next frame: the figures read are those of this moment.
    spinner.render();
  }

  // The figures change while nothing calls back (a wait for the limiter, a 429's countdown): a timer reads them.
  const cancel = (opts.every ?? everyMs)(opts.redrawMs ?? 250, draw);
  return {
    stop() {
      stopped = true;
      cancel();
      // ora's stop clears the line and shows the cursor again.
      spinner?.stop();
      spinner = null;
    },
  };
}

/** Off a TTY: one plain line every `ms`, nothing to clear afterwards. */
function plainProgress(stream: NodeJS.WriteStream, read: () => ProgressSnapshot | null, now: () => number, ms: number, every: IoClock['every']): Progress {
  const stop = every(ms, () => {
    const latest = read();
    if (latest !== null) stream.write(`${plainProgressLine(latest, now())}\n`);
  });
  return { stop };
}
