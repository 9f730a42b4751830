// What the reader tells the dispatcher about the input, apart from both so neither imports the other.

/** What the reader tells the dispatcher about the input (the run's reader updates it). */
export interface InputState {
  /** Every row has been read and planned. */
  done: boolean;
  /** Reading waits for the buffer to drain: the reader decides then when a partial batch goes. */
  pausedForBuffer: boolean;
  /** When the last row was read (performance.now(): real time, as the quiet timers'). */
  lastAt: number;
}

/** How long input must be quiet before a partial chunk is planned (and a partial batch sent, dispatcher.ts). */
export const INPUT_QUIET_MS = 200;

/**
 * The dispatcher's wait for a whole batch while input keeps coming: once input has been quiet for
 * INPUT_QUIET_MS (a slow trickle from an interactive pipe), `flush` sends what is queued as it is. A pause for
 * back-pressure is not quiet input: the reader decides then. One timer, armed while a partial batch waits.
 */
export class QuietInput {
  readonly #input: InputState;
  readonly #flush: () => void;
  #timer: NodeJS.Timeout | undefined;

  /** `flush` sends what is queued; it is called only while input is not done and reading is not paused. */
  constructor(input: InputState, flush: () => void) {
    this.#input = input;
    this.#flush = flush;
  }

  /** A partial batch waits: flush it once input has been quiet long enough (unless already armed). */
  arm(): void {
    this.#timer ??= setTimeout(() => this.#check(), INPUT_QUIET_MS);
  }

  /** The run is over: no flush. */
  clear(): void {
    clearTimeout(this.#timer);
  }

  #check(): void {
    this.#timer = undefined;
    const input = this.#input;
    if (input.done || input.pausedForBuffer) return;
    const quietFor = performance.now() - input.lastAt;
    if (quietFor < INPUT_QUIET_MS) this.#timer = setTimeout(() => this.#check(), INPUT_QUIET_MS - quietFor);
    else this.#flush();
  }
}
