// Virtual time for tests that talk real HTTP to the sandbox: one clock for the sandbox (its windows, its
// resets), the client (the resets it reads) and the limiter (its waits). Time stands still while any work is
// busy (a request in flight: `busy`), and jumps to the earliest sleeper's deadline once every piece of work is
// asleep, so a minute of windows runs in milliseconds and a loaded machine cannot make a resume late: the
// times the sandbox logs are the times the code asked for, whatever the scheduler did meanwhile.

/** The real clock, in the same shape: for tests that must keep it (another machine's clock, a database's). */
export interface Time {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Runs `work`; on virtual time, time does not move until it settles. */
  busy<T>(work: () => Promise<T>): Promise<T>;
  /** A signal aborted once the clock reaches `at`. */
  signalAt(at: number): AbortSignal;
}

export const realTime: Time = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
  busy: (work) => work(),
  signalAt: (at) => AbortSignal.timeout(Math.max(1, at - Date.now())),
};

interface Sleeper {
  at: number;
  wake: () => void;
}

/**
 * A clock that starts at `start` (epoch ms) and moves only when everything is asleep. "Asleep" is judged after
 * a few turns of the event loop with nothing busy and nothing new: work woken by a sleeper starts its next
 * request (or sleep) within the microtasks that follow, before the next turn.
 */
export function virtualTime(start: number): Time & { sleepers(): number } {
  let now = start;
  let busy = 0;
  let changes = 0;
  let sleepers: Sleeper[] = [];
  let ticking = false;

  const idleTurns = 3;
  const tick = (): void => {
    if (ticking) return;
    ticking = true;
    let seen = changes;
    let quiet = 0;
    const turn = (): void => {
      if (busy > 0 || sleepers.length === 0) {
        ticking = false;
        return;
      }
      if (changes !== seen) {
        seen = changes;
        quiet = 0;
      } else quiet++;
      if (quiet < idleTurns) return void setImmediate(turn);
      ticking = false;
      // Everything is asleep: the earliest deadline comes, and all who wait for it wake together.
      const at = Math.min(...sleepers.map((s) => s.at));
      now = Math.max(now, at);
      const due = sleepers.filter((s) => s.at <= now);
      sleepers = sleepers.filter((s) => s.at > now);
      changes++;
      for (const s of due) s.wake();
      tick();
    };
    setImmediate(turn);
  };

  const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const sleeper: Sleeper = {
        at: now + ms,
        wake: () => {
          signal?.removeEventListener('abort', cancel);
          resolve();
        },
      };
      const cancel = (): void => {
        sleepers = sleepers.filter((s) => s !== sleeper);
        changes++;
        resolve();
        tick();
      };
      signal?.addEventListener('abort', cancel, { once: true });
      sleepers.push(sleeper);
      changes++;
      tick();
    });

  return {
    now: () => now,
    sleep,
    async busy(work) {
      busy++;
      changes++;
      try {
        return await work();
      } finally {
        busy--;
        changes++;
        tick();
      }
    },
    signalAt(at) {
      const stop = new AbortController();
      void sleep(at - now).then(() => stop.abort(new Error(`virtual time reached ${at}`)));
      return stop.signal;
    },
    sleepers: () => sleepers.length,
  };
}

/** `target` with every method that returns a promise run as `time.busy`: a client whose requests hold virtual time. */
export function busyWhileCalling<T extends object>(target: T, time: Time): T {
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        return result instanceof Promise ? time.busy(() => result) : result;
      };
    },
  });
}
