// Virtual time for tests that talk real HTTP to the sandbox: one clock for the sandbox (its windows, its
// resets), the client (the resets it reads) and the limiter (its waits). Time stands still while any work is
// busy (a request in flight: `busy`), and jumps to the earliest sleeper's deadline once every piece of work is
// asleep, so a minute of windows runs in milliseconds and a loaded machine cannot make a resume late: the
// times the sandbox logs are the times the code asked for, whatever the scheduler did meanwhile.

import { Agent, type Dispatcher } from 'undici';
import { onAbort } from '../../src/api/sleep.js';

/** The real clock, in the same shape: for tests that must keep it (another machine's clock, a database's). */
export interface Time {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Runs `work`; on virtual time, time does not move until it settles. */
  busy<T>(work: () => Promise<T>): Promise<T>;
  /** A signal aborted once the clock reaches `at`. */
  signalAt(at: number): AbortSignal;
  /**
   * Sleeps `ms` on behalf of one piece of busy work: the sandbox's latency, waited out while the request that
   * met it holds the clock. For its length that request counts as asleep, so time can reach the answer.
   */
  lull(ms: number): Promise<void>;
  /** As `lull`, until `until` settles: a server that holds a request and never answers (a dead host). */
  idle(until: Promise<unknown>): Promise<void>;
  /**
   * Calls `fn` every `ms` until the function returned is called: an observer (progress redraws). On virtual
   * time it never moves the clock by itself: it is woken as time passes for the work's own sleepers, so a
   * redraw cannot push time on while the work does real things (reading its input) that hold nothing.
   */
  every(ms: number, fn: () => void): () => void;
}

export const realTime: Time = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const done = () => {
        clearTimeout(timer);
        forget();
        resolve();
      };
      const timer = setTimeout(done, ms);
      // One listener per signal however many sleep on it (as the product's sleep): Node warns past ten.
      const forget = signal ? onAbort(signal, done) : () => undefined;
    }),
  busy: (work) => work(),
  signalAt: (at) => AbortSignal.timeout(Math.max(1, at - Date.now())),
  lull: (ms) => realTime.sleep(ms),
  idle: (until) =>
    until.then(
      () => {},
      () => {},
    ),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

interface Sleeper {
  at: number;
  wake: () => void;
  /** An observer's (`every`): woken when time passes it, never a reason for time to move. */
  passive?: boolean;
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
      if (busy > 0 || !sleepers.some((s) => !s.passive)) {
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
          forget();
          resolve();
        },
      };
      const cancel = (): void => {
        sleepers = sleepers.filter((s) => s !== sleeper);
        changes++;
        resolve();
        tick();
      };
      const forget = signal ? onAbort(signal, cancel) : () => undefined;
      sleepers.push(sleeper);
      changes++;
      tick();
    });

  const idle = async (until: Promise<unknown>): Promise<void> => {
    // The request in flight stops counting while it waits (on the clock, or on nothing), and counts again
    // once woken. A request given up meanwhile (a client's timeout) has let go of the clock itself: the count
    // may then dip below zero until the wait ends, and only time that nothing else holds moves.
    busy--;
    changes++;
    tick();
    try {
      await until;
    } catch {
      // a wait that failed has ended all the same
    } finally {
      busy++;
      changes++;
    }
  };

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
    every(ms, fn) {
      let stopped = false;
      let sleeper: Sleeper | null = null;
      const schedule = (): void => {
        sleeper = {
          at: now + ms,
          passive: true,
          wake: () => {
            if (stopped) return;
            fn();
            schedule();
          },
        };
        sleepers.push(sleeper);
      };
      schedule();
      return () => {
        stopped = true;
        sleepers = sleepers.filter((s) => s !== sleeper);
      };
    },
    lull: (ms) => idle(sleep(ms)),
    idle,
    sleepers: () => sleepers.length,
  };
}

/**
 * An undici dispatcher (for the client's `dispatcher` option) whose requests hold `time` from the moment they
 * are dispatched until their answer is read or they fail: the CLI's requests, seen by a virtual clock.
 */
export function holdingDispatcher(time: Time): Dispatcher {
  const agent = new Agent();
  const ends = new Set(['onComplete', 'onError', 'onResponseEnd', 'onResponseError']);
  return agent.compose((dispatch) => (opts, handler) => {
    let release: () => void = () => {};
    void time.busy(() => new Promise<void>((resolve) => (release = resolve)));
    const held = new Proxy(handler, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value !== 'function') return value;
        if (!ends.has(String(prop))) return (value as (...a: unknown[]) => unknown).bind(target);
        return (...args: unknown[]) => {
          try {
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          } finally {
            release();
          }
        };
      },
    });
    try {
      return dispatch(opts, held);
    } catch (err) {
      release();
      throw err;
    }
  });
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

/** The sandbox's options for `time`: its windows read it, and its latency is waited out on it (`lull`). */
export function sandboxTime(time: Time): { clock: () => number; sleep: (ms: number) => Promise<void> } {
  return { clock: () => time.now(), sleep: (ms) => time.lull(ms) };
}
