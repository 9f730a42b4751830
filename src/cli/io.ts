// Everything the CLI takes from the world outside it, passed in as one value. The entry point (entry.ts)
// builds it from `process`; tests build it from strings and fake streams and run the whole CLI inside their
// own process (test/helpers/cli.ts). Nothing else in src/cli touches `process`.

/** The signals a run answers with an orderly stop. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

export interface Io {
  /** The words after the program name, as the user typed them. */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: NodeJS.ReadStream;
  /** Data. Its `isTTY` and `columns` decide formats, colour and table widths. */
  readonly stdout: NodeJS.WriteStream;
  /** Messages, progress and summaries. */
  readonly stderr: NodeJS.WriteStream;
  /** Wall-clock time in epoch ms. */
  readonly clock: { now(): number };
  readonly signals: {
    on(signal: StopSignal, listener: () => void): void;
    off(signal: StopSignal, listener: () => void): void;
  };
  /** Ends the program at once with `code` (a second Ctrl-C); a normal run returns its code instead. */
  exit(code: number): void;
}

/** How a write to an output whose reader went away fails (`| head` closed it). */
export function isClosedPipe(err: NodeJS.ErrnoException): boolean {
  return err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED';
}
