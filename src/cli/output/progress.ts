// The live progress line on stderr during a batch run. On a TTY it is an ora spinner redrawn in place; off a
// TTY (pipes, CI, --json) nothing is drawn and only log lines pass through, so logs stay clean text.
// ora is imported dynamically, and only when a spinner will be drawn: loading it (and its dependencies) at
// start-up would cost every invocation, `--help` included. Lines written to the same stream while the spinner
// is drawn (the logger's warnings) appear above it: ora clears the line, writes them and draws the spinner
// again below (its documented handling of writes to its stream; test/cli/output/progress.test.ts checks it).
import type { Ora } from 'ora';
import { groupedNumber, humanDuration } from './format.js';
import { type Style, truncateToWidth } from './terminal.js';

/** Where a run stands, as reported by the pipeline's progress callback. */
export interface ProgressSnapshot {
  rowsRead: number;
  hostsDone: number;
  lookupsSpent: number;
  cacheHits: number;
  ratePerSec: number;
  etaMs: number | null;
  quotaRemaining: number | null;
  /** Epoch ms until which requests are paused by a 429, if they are. */
  waitingUntil?: number | null;
}

export interface Progress {
  /** Show the latest figures (throttled); a no-op when not drawing. */
  update(p: ProgressSnapshot): void;
  /** Clear the line and stop drawing; safe to call twice. */
  stop(): void;
}

export interface ProgressOptions {
  /** stderr in practice; never stdout, which carries data. */
  stream: NodeJS.WriteStream;
  /** Draw a spinner: the caller's decision (a TTY, not --json, not --quiet). */
  enabled: boolean;
  style: Style;
  /** Clock, for the 429 countdown and throttling. */
  now?: () => number;
  /** Least time between redraws of the text; 100 ms keeps updates at 10/s or fewer. */
  throttleMs?: number;
}

function etaText(ms: number): string {
  // Sub-minute precision is noise in an estimate: whole seconds, rounded up so it never reads 0s early.
  return ms < 59_500 ? `${Math.max(1, Math.ceil(ms / 1000))}s` : humanDuration(ms);
}

function rateText(rate: number): string {
  if (!Number.isFinite(rate) || rate <= 0) return '0/s';
  return rate >= 10 ? `${groupedNumber(Math.round(rate))}/s` : `${rate.toFixed(1)}/s`;
}

/** The progress line's text: '1,234 rows · 900 hosts · 45/s · ETA 25s · 900 lookups · 12 cached · quota 49,100'. */
export function formatProgressLine(p: ProgressSnapshot, now: number): string {
  const n = groupedNumber;
  const parts: string[] = [];
  if (p.waitingUntil != null && p.waitingUntil > now) {
    parts.push(`paused by rate limit, resuming in ${etaText(p.waitingUntil - now)}`);
  }
  parts.push(`${n(p.rowsRead)} rows`);
  parts.push(`${n(p.hostsDone)} hosts`);
  parts.push(rateText(p.ratePerSec));
  if (p.etaMs !== null && Number.isFinite(p.etaMs)) parts.push(`ETA ${etaText(p.etaMs)}`);
  parts.push(`${n(p.lookupsSpent)} lookups`, `${n(p.cacheHits)} cached`);
  if (p.quotaRemaining !== null) parts.push(`quota ${n(p.quotaRemaining)}`);
  return parts.join(' · ');
}

// ora moves the cursor with these; a stream without them (a fake TTY, some wrappers) cannot host a spinner.
// Nor can a terminal that reports a width of 0 (`script` with no real terminal behind it, some CI ptys):
// ora divides by that width when it counts the lines to clear, and then clears lines forever.
function canMoveCursor(stream: NodeJS.WriteStream): boolean {
  return (
    (stream.columns ?? 80) > 0 && typeof stream.cursorTo === 'function' && typeof stream.moveCursor === 'function' && typeof stream.clearLine === 'function'
  );
}

const NO_PROGRESS: Progress = { update() {}, stop() {} };

/** A progress display on `opts.stream`; loads ora only when it will draw a spinner. */
export async function createProgress(opts: ProgressOptions): Promise<Progress> {
  const { stream, style } = opts;
  if (!opts.enabled || stream.isTTY !== true || !canMoveCursor(stream)) return NO_PROGRESS;

  const { default: ora } = await import('ora');
  const now = opts.now ?? Date.now;
  const throttleMs = opts.throttleMs ?? 100;
  let spinner: Ora | null = null;
  let latest: ProgressSnapshot | null = null;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const schedule = (delay: number): void => {
    if (timer !== undefined) return;
    timer = setTimeout(draw, Math.max(0, delay));
    // A pending redraw must never keep the process alive after the run.
    timer.unref();
  };

  function draw(): void {
    timer = undefined;
    if (stopped || latest === null) return;
    const at = now();
    lastDraw = at;
    // One line only: a wrapped line would leave debris when ora clears it on a narrow terminal.
    const columns = stream.columns && stream.columns > 10 ? stream.columns : 80;
    const text = truncateToWidth(formatProgressLine(latest, at), columns - 3);
    const waiting = latest.waitingUntil != null && latest.waitingUntil > at;
    if (spinner === null) {
      // discardStdin off: the input may be stdin itself, and raw mode would also swallow Ctrl-C.
      spinner = ora({ stream, text, isEnabled: true, discardStdin: false, color: style.enabled ? 'cyan' : false });
      spinner.start();
    } else {
      spinner.text = text;
    }
    if (style.enabled) spinner.color = waiting ? 'yellow' : 'cyan';
    // While paused nothing else calls update, so the countdown refreshes itself.
    if (waiting) schedule(1000);
  }

  return {
    update(p) {
      if (stopped) return;
      latest = p;
      const since = now() - lastDraw;
      if (since >= throttleMs) {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
        draw();
      } else {
        schedule(throttleMs - since);
      }
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      // ora's stop clears the line and shows the cursor again.
      spinner?.stop();
      spinner = null;
    },
  };
}
