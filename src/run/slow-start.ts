// Slow start: a run buys no further ahead of its consumer than the consumer has shown it reads, as TCP opens
// its window. `batch big.csv | head -3` reads three rows; with every request going out at once it bought nine
// batches before its first row was written (issue 26). So the window starts at one batch of lookups; each
// lookup whose rows the consumer took, and came back for more, opens it by one (the window doubles a round)
// until `concurrency` batches fit and the run goes at full pace. Lookups answered but not yet taken count
// against it with those in flight: a run never sends while its consumer has not taken what it has.
//
// "Taken" is when the consumer comes back for more, two turns of the event loop later: a writer gathers rows
// and writes them on the next turn (output/write.ts), and a write to a pipe whose reader has gone fails then;
// that failure stops the run before the window opens, so nothing is sent after the output has closed.

/** The lookups a run may have bought ahead of its consumer. */
export class SlowStart {
  /** Lookups at which the window is fully open: the run is limited by its concurrency alone. */
  readonly #full: number;
  #window: number;
  /** Lookups answered so far, and how many of them the consumer has taken (running counts). */
  #answered = 0;
  #taken = 0;
  /** Rows handed to the consumer that it has not come back from (or whose turns have not passed yet). */
  #handed = 0;

  constructor(batchSize: number, concurrency: number) {
    this.#window = batchSize;
    this.#full = batchSize * concurrency;
  }

  /**
   * Whether `size` more lookups may go, with `inflight` lookups in flight. `idle`: nothing is in flight and the
   * consumer has no row to take. Rows answered but not taken then wait behind a row whose key is still queued
   * (put aside while another run buys it, sent again after a refusal): unless the consumer is still coming
   * back from rows handed to it, they cannot hold the queue back, or nothing would ever settle that row.
   */
  allows(size: number, inflight: number, idle: boolean): boolean {
    if (this.#window >= this.#full) return true;
    const ahead = inflight + (idle && this.#handed === 0 ? 0 : this.#answered - this.#taken);
    return ahead === 0 || ahead + size <= this.#window;
  }

  /** A request of `lookups` came back with its rows settled or about to be: they are the consumer's to take. */
  answered(lookups: number): void {
    this.#answered += lookups;
  }

  /**
   * Rows are handed to the consumer now; the function returned is called when it comes back for more, and
   * then, two turns later, opens the window by what was answered until now and calls `open` (which sends
   * nothing once the run has stopped).
   */
  taking(open: () => void): () => void {
    const mark = this.#answered;
    this.#handed++;
    return () => {
      if (this.#window >= this.#full) {
        this.#handed--;
        return;
      }
      setImmediate(() =>
        setImmediate(() => {
          this.#handed--;
          if (mark > this.#taken) {
            this.#window += mark - this.#taken;
            this.#taken = mark;
          }
          open();
        }),
      );
    };
  }
}
