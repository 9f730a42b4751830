import { describe, expect, it } from 'vitest';
import type { InputState } from '../../src/run/input-state.js';
import { INPUT_QUIET_MS } from '../../src/run/input-state.js';
import { intake, type IntakeParts, type RecordSource } from '../../src/run/intake.js';
import { OrderedBuffer } from '../../src/run/ordered-buffer.js';
import { PLAN_CHUNK } from '../../src/run/planner.js';
import { emptyStats } from '../../src/run/stats.js';
import type { InputRecord } from '../../src/domain/types.js';

/** Intake with a planner that only notes its chunks and a dispatcher that notes partial sends. */
function setup(records: RecordSource, opts: { maxBuffered?: number; settle?: boolean } = {}) {
  const buffer = new OrderedBuffer<'profile'>({ kind: 'profile', maxBuffered: opts.maxBuffered ?? 100_000, stats: emptyStats(0), keep: true });
  const chunks: InputRecord[][] = [];
  const input: InputState = { done: false, pausedForBuffer: false, lastAt: 0 };
  const pending: ReturnType<typeof buffer.add>[] = [];
  const dispatcher = { cancelled: false, inflight: 0, partials: 0, sendPartial() {}, stop() {} };
  dispatcher.sendPartial = () => {
    dispatcher.partials++;
    // What a partial batch does in a real run: answers come back, rows leave, the reader is woken.
    setImmediate(() => {
      for (const slot of pending.splice(0)) buffer.settle(slot, { status: 'missing' });
      buffer.take();
      buffer.notify();
    });
  };
  const plan = (chunk: InputRecord[]) => {
    chunks.push(chunk);
    for (const r of chunk) {
      const slot = opts.settle ? buffer.add(r, { status: 'found', host: r.value }) : buffer.addPending(r, r.value);
      if (!slot.done) pending.push(slot);
    }
  };
  const parts: IntakeParts<'profile'> = { records, plan, buffer, dispatcher, input };
  return { chunks, input, dispatcher, buffer, run: () => intake(parts) };
}

describe('intake', () => {
  it('plans PLAN_CHUNK rows at a time, numbering plain hosts from line 1, arrays as given', async () => {
    const hosts = Array.from({ length: PLAN_CHUNK + 10 }, (_, i) => `h${i}.example`);
    const s = setup([...hosts.slice(0, 5), hosts.slice(5).map((value, i) => ({ line: i + 6, cells: [value], value }))], { settle: true });
    await s.run();
    expect(s.chunks.map((c) => c.length)).toEqual([PLAN_CHUNK, 10]);
    expect(s.chunks.flat().map((r) => r.line)).toEqual(hosts.map((_, i) => i + 1));
    expect(s.chunks[0]![0]).toEqual({ line: 1, cells: ['h0.example'], value: 'h0.example' });
    expect(s.input.done).toBe(true);
  });

  it('plans what it has once input has been quiet, without waiting for a whole chunk', async () => {
    let release = () => {};
    async function* slow() {
      yield 'a.example';
      yield 'b.example';
      await new Promise<void>((r) => {
        release = r;
      });
      yield 'c.example';
    }
    const s = setup(slow(), { settle: true });
    const done = s.run();
    await new Promise((r) => setTimeout(r, INPUT_QUIET_MS * 2.5));
    expect(s.chunks.map((c) => c.map((r) => r.value))).toEqual([['a.example', 'b.example']]);
    expect(s.input.done).toBe(false);
    release();
    await done;
    expect(s.chunks.map((c) => c.length)).toEqual([2, 1]);
  });

  it('pauses reading while the buffer is full, and sends a partial batch when nothing else would free it', async () => {
    let read = 0;
    function* hosts() {
      for (; read < PLAN_CHUNK * 4; ) yield `h${read++}.example`;
    }
    const s = setup(hosts(), { maxBuffered: PLAN_CHUNK });
    await s.run();
    expect(s.dispatcher.partials).toBe(2); // after chunks 2 and 4: one chunk held fits, two do not
    expect(s.chunks.length).toBe(4);
    expect(s.buffer.full).toBe(false);
    expect(s.input.pausedForBuffer).toBe(false);
  });

  it('stops reading once the run is cancelled', async () => {
    let read = 0;
    const run = { cancel: () => {} };
    const s = setup(
      (function* () {
        for (;;) {
          read++;
          if (read === 10) run.cancel();
          yield `h${read}.example`;
        }
      })(),
    );
    run.cancel = () => {
      s.dispatcher.cancelled = true;
    };
    await s.run();
    expect(read).toBe(10);
    expect(s.chunks).toEqual([]); // what was read is not planned after a cancel
    expect(s.input.done).toBe(true);
  });

  it('marks input done even when reading fails', async () => {
    const s = setup(
      (async function* () {
        yield 'a.example';
        throw new Error('disk gone');
      })(),
    );
    await expect(s.run()).rejects.toThrow('disk gone');
    expect(s.input.done).toBe(true);
  });
});
