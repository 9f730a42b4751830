// Keys another process is buying right now (its claims, store/sqlite/claims.ts): put aside and handed back after a
// moment, when that process's answers should be in the cache, so the run looks them up there instead of
// buying them too. One timer for all of them; taking them back (a stop) cancels it.

/** How long keys wait: a little more than a request's round trip on a good day; a slow one just waits again. */
const LATER_MS = 250;

export class Later {
  readonly #due: (keys: string[]) => void;
  readonly #ms: number;
  #keys: string[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** `due` receives the keys once `ms` has passed since the first of them was put aside. */
  constructor(due: (keys: string[]) => void, ms = LATER_MS) {
    this.#due = due;
    this.#ms = ms;
  }

  /** Puts `keys` aside. */
  add(keys: string[]): void {
    if (keys.length === 0) return;
    this.#keys.push(...keys);
    this.#timer ??= setTimeout(() => this.#due(this.take()), this.#ms);
  }

  /** Every key put aside, now; the timer is cancelled. */
  take(): string[] {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#keys.splice(0);
  }
}
