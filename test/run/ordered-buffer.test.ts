import { describe, expect, it } from 'vitest';
import { OrderedBuffer } from '../../src/run/ordered-buffer.js';
import { emptyStats } from '../../src/run/stats.js';
import type { InputRecord } from '../../src/domain/types.js';

const rec = (line: number): InputRecord => ({ line, cells: [`h${line}.example`], value: `h${line}.example` });

function buffer(maxBuffered = 3, keep = true) {
  const stats = emptyStats(0);
  return { stats, buf: new OrderedBuffer<'profile'>({ kind: 'profile', maxBuffered, stats, keep }) };
}

describe('OrderedBuffer', () => {
  it('hands rows out in input order, as many as are ready, whatever order they settle in', () => {
    const { buf } = buffer(100);
    const a = buf.addPending(rec(1), 'h1.example');
    buf.add(rec(2), { status: 'invalid', host: null, reason: 'empty value' });
    const c = buf.addPending(rec(3), 'h3.example');
    expect(buf.take()).toEqual([]); // row 1 still waits
    expect(buf.blocked).toBe(true);
    buf.settle(c, { status: 'missing' });
    expect(buf.take()).toEqual([]);
    buf.settle(a, { status: 'found', data: { domain: 'h1.example' } });
    expect(buf.take().map((r) => [r.line, r.status])).toEqual([
      [1, 'found'],
      [2, 'invalid'],
      [3, 'missing'],
    ]);
    expect(buf.empty).toBe(true);
    expect(buf.blocked).toBe(false);
  });

  it('is full past maxBuffered rows not yet handed out, and not once they are taken', () => {
    const { buf } = buffer(3);
    for (let i = 1; i <= 4; i++) buf.add(rec(i), { status: 'invalid', host: null, reason: 'x' });
    expect(buf.full).toBe(true);
    expect(buf.take().length).toBe(4);
    expect(buf.full).toBe(false);
  });

  it('counts found, missing and error rows once each, whether settled at once or later', () => {
    const { buf, stats } = buffer(100);
    buf.add(rec(1), { status: 'found', host: 'h1.example', data: {}, cached: true });
    const later = buf.addPending(rec(2), 'h2.example');
    buf.add(rec(3), { status: 'error', host: 'h3.example', reason: 'boom' });
    buf.add(rec(4), { status: 'invalid', host: null, reason: 'bad' });
    expect(stats).toMatchObject({ found: 1, missing: 0, errors: 1 });
    buf.settle(later, { status: 'missing' });
    expect(stats).toMatchObject({ found: 1, missing: 1, errors: 1 });
  });

  it('keeps nothing under a dry run, but still counts', () => {
    const { buf, stats } = buffer(1, false);
    for (let i = 1; i <= 5; i++) buf.add(rec(i), { status: 'missing', host: `h${i}.example`, cached: true });
    expect(buf.take()).toEqual([]);
    expect(buf.full).toBe(false);
    expect(stats.missing).toBe(5);
  });

  it('keeps order across many rows taken in steps (the front is compacted as it goes)', () => {
    const { buf } = buffer(100_000);
    const lines: number[] = [];
    for (let i = 1; i <= 10_000; i++) {
      buf.add(rec(i), { status: 'invalid', host: null, reason: 'x' });
      if (i % 777 === 0) lines.push(...buf.take().map((r) => r.line));
    }
    lines.push(...buf.take().map((r) => r.line));
    expect(lines).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
  });

  it('wakes every waiter of changed() at the next notify, with one promise until then', async () => {
    const { buf } = buffer();
    const first = buf.changed();
    expect(buf.changed()).toBe(first);
    let woken = 0;
    void first.then(() => woken++);
    buf.notify();
    await first;
    expect(woken).toBe(1);
    expect(buf.changed()).not.toBe(first);
  });
});
