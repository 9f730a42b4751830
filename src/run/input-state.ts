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
