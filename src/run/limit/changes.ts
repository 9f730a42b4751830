// What the limiter's waiters (limiter.ts) wait on when only a local answer or release can free a slot.
import { onAbort } from '../../api/sleep.js';

/** Resolves each waiter at the next `notify`: a local `settle` or `release`. */
export class Changes {
  #changed: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  /** Resolves at the next `notify` (or when the signal aborts). */
  next(signal: AbortSignal | undefined): Promise<void> {
    this.#changed ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    if (!signal) return this.#changed;
    const changed = this.#changed;
    return new Promise<void>((resolve) => {
      const forget = onAbort(signal, resolve);
      void changed.then(() => {
        forget();
        resolve();
      });
    });
  }

  notify(): void {
    const wake = this.#wake;
    this.#changed = null;
    this.#wake = null;
    wake?.();
  }
}
