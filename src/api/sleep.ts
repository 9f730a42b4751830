/**
 * Calls `fn` when `signal` aborts; returns what takes it back. One listener on a signal, however many wait on
 * it: every worker of a run waits on the run's signal (sleeping, or for the limiter), and a listener each
 * (`--concurrency 16`) made Node print a leak warning on stderr past ten.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let waiting = onAborts.get(signal);
  if (waiting === undefined) {
    const all = new Set<() => void>();
    waiting = all;
    onAborts.set(signal, all);
    signal.addEventListener(
      'abort',
      () => {
        onAborts.delete(signal);
        for (const f of all) f();
      },
      { once: true },
    );
  }
  const set = waiting;
  set.add(fn);
  return () => void set.delete(fn);
}
const onAborts = new WeakMap<AbortSignal, Set<() => void>>();

/** Sleeps `ms`, resolving early (without error) when the signal aborts; 0, a turn of the event loop (what I/O has come is read first). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    if (ms <= 0) return void setImmediate(resolve);
    const timer = setTimeout(done, ms);
    const forget = signal ? onAbort(signal, done) : () => undefined;
    function done() {
      clearTimeout(timer);
      forget();
      resolve();
    }
  });
}

/**
 * A signal aborted (as AbortSignal.timeout does) `ms` from now on `wait`'s clock, or a timer's without one;
 * `clear` drops the wait, so a virtual clock is not left with a sleeper nobody needs.
 */
export function timeoutSignal(ms: number, wait?: (ms: number, signal?: AbortSignal) => Promise<void>): { signal: AbortSignal; clear(): void } {
  if (!wait) return { signal: AbortSignal.timeout(ms), clear() {} };
  const timeout = new AbortController();
  const cleared = new AbortController();
  void wait(ms, cleared.signal).then(() => {
    if (!cleared.signal.aborted) timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  });
  // Aborted with a reason of its own: with none, abort() makes a DOMException, stack and all, for every request.
  return { signal: timeout.signal, clear: () => cleared.abort(CLEARED) };
}

/** The reason a cleared wait is aborted with (nobody reads it). */
const CLEARED = 'cleared';
