// The two ways a command is told to stop early, as AbortSignals its work can watch: the user interrupts
// (Ctrl-C, SIGTERM, SIGHUP), or the reader of stdout goes away (EPIPE, e.g. `domain-intel batch big.csv | head`).
import { EXIT } from './exit-codes.js';
import { isClosedPipe, type Io, type StopSignal } from './io.js';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface Stops {
  /** Aborted on the first Ctrl-C, SIGTERM or SIGHUP (a second one exits at once). */
  readonly interrupted: AbortSignal;
  /** Aborted when the reader of stdout went away (EPIPE). */
  readonly outputClosed: AbortSignal;
  /** Stops answering signals: after this, Ctrl-C is the program's again. */
  release(): void;
}

/** Starts watching `io`'s signals and stdout for the length of one command. */
export function watchStops(io: Io): Stops {
  const interrupt = new AbortController();
  const onSignal = (): void => {
    // The first stop lets answers in flight land and writes what the run has; a second means "now".
    if (interrupt.signal.aborted) io.exit(EXIT.INTERRUPTED);
    interrupt.abort();
  };
  for (const signal of STOP_SIGNALS) io.signals.on(signal, onSignal);

  const closed = new AbortController();
  // Stop quietly and spend nothing more. Left in place after release(): the last flush before exit can
  // still meet the closed pipe, and an 'error' event nobody listens to would crash with a stack trace.
  io.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (isClosedPipe(err)) closed.abort();
    else throw err;
  });

  return {
    interrupted: interrupt.signal,
    outputClosed: closed.signal,
    release() {
      for (const signal of STOP_SIGNALS) io.signals.off(signal, onSignal);
    },
  };
}
