import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort, sleep } from '../../src/api/sleep.js';
import { Changes } from '../../src/run/limit/changes.js';

// Every worker of a run waits on the run's signal; a listener each made Node print "MaxListenersExceededWarning:
// Possible EventTarget memory leak detected" on stderr at --concurrency 11 and more.
describe('waits on one signal', () => {
  it('30 sleepers and 30 limiter waiters hold one abort listener on it, and all wake when it aborts', async () => {
    const stop = new AbortController();
    const changes = new Changes();
    const waits = Array.from({ length: 30 }, () => [sleep(60_000, stop.signal), changes.next(stop.signal)]).flat();
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    stop.abort();
    await Promise.all(waits);
  });

  it('a sleeper that wakes on time, and a waiter a change wakes, leave nothing behind to call', async () => {
    const stop = new AbortController();
    const changes = new Changes();
    const called: string[] = [];
    onAbort(stop.signal, () => called.push('kept'));
    await sleep(1, stop.signal);
    const waiting = changes.next(stop.signal);
    changes.notify();
    await waiting;
    stop.abort();
    expect(called).toEqual(['kept']);
  });

  it('a callback taken back is not called', () => {
    const stop = new AbortController();
    const called: string[] = [];
    const forget = onAbort(stop.signal, () => called.push('forgotten'));
    onAbort(stop.signal, () => called.push('kept'));
    forget();
    stop.abort();
    expect(called).toEqual(['kept']);
  });
});
