// Everything the CLI takes from the world outside it, passed in as one value. The entry point (entry.ts)
// builds it from `process`; tests build it from strings and fake streams and run the whole CLI inside their
// own process (test/helpers/cli.ts). Nothing else in src/cli touches `process`.
import type { Dispatcher } from 'undici';
import { sleep } from '../api/sleep.js';

/**
 * The signals a run answers with an orderly stop. SIGHUP too: a closed terminal or a dropped ssh session ended
 * a run at once (exit 129), with no FILE.partial and --no-cache's temporary cache left behind (a trial).
 */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export interface Io {
  /** The words after the program name, as the user typed them. */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: NodeJS.ReadStream;
  /** Data. Its `isTTY` and `columns` decide formats, colour and table widths. */
  readonly stdout: NodeJS.WriteStream;
  /** Messages, progress and summaries. */
  readonly stderr: NodeJS.WriteStream;
  /**
   * Time: the wall clock in epoch ms, and waiting on it. Every wait of a command (the limiter's pace, a 429's
   * reset, a retry's backoff, a request's timeout, progress redraws) and every time it reads goes through this, so a test can run
   * the whole CLI on a virtual clock (test/helpers/virtual-time.ts) and a minute of windows takes milliseconds.
   */
  readonly clock: IoClock;
  /**
   * The undici dispatcher requests go through; none (the program's case): the client's own, with its proxy.
   * Tests pass one that tells a virtual clock which requests are in flight (time stands still meanwhile).
   */
  readonly dispatcher?: Dispatcher;
  readonly signals: {
    on(signal: StopSignal, listener: () => void): void;
    off(signal: StopSignal, listener: () => void): void;
  };
  /** Ends the program at once with `code` (a second Ctrl-C); a normal run returns its code instead. */
  exit(code: number): void;
}

export interface IoClock {
  now(): number;
  /** Resolves after `ms` on this clock, or early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fn` every `ms` until the function returned is called: for what only watches the work (progress),
   * never what the work waits for; it never keeps the program alive.
   */
  every(ms: number, fn: () => void): () => void;
}

/** `every` on an interval timer. */
export function everyMs(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms);
  // A pending redraw must never keep the process alive after the run.
  timer.unref();
  return () => clearInterval(timer);
}

/** The real clock: Date.now and timers. */
export const REAL_CLOCK: IoClock = { now: () => Date.now(), sleep, every: everyMs };

/** `clock` as the library's options take it: a `clock` function and a `sleep`. */
export function timing(clock: IoClock): { clock: () => number; sleep: IoClock['sleep'] } {
  return { clock: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal) };
}

/** How a write to an output whose reader went away fails (`| head` closed it). */
export function isClosedPipe(err: NodeJS.ErrnoException): boolean {
  return err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED';
}
