import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/domain/kinds.js';
import { OrderedBuffer } from '../../src/run/ordered-buffer.js';
import { openSeenSet } from '../../src/run/seen-keys.js';
import { emptyStats } from '../../src/run/stats.js';
import { Waiting } from '../../src/run/waiting-rows.js';

function setup() {
  const stats = emptyStats(0);
  const buffer = new OrderedBuffer<'employees'>({ kind: 'employees', maxBuffered: 100, stats, keep: true });
  const seen = openSeenSet();
  const waiting = new Waiting(buffer, KINDS.employees, seen);
  let line = 0;
  const add = (key: string, host: string) => waiting.add(key, buffer.addPending({ line: ++line, cells: [host], value: host }, host));
  return { stats, buffer, seen, waiting, add };
}

describe('Waiting', () => {
  it('tells when a key is new, and sends it as the host of its first row', () => {
    const w = setup();
    expect(w.add('example.com', 'shop.example.com')).toBe(true);
    expect(w.add('example.com', 'www.example.com')).toBe(false);
    expect(w.waiting.has('example.com')).toBe(true);
    expect(w.waiting.hostOf('example.com')).toBe('shop.example.com');
    expect(w.waiting.hostOf('other.example')).toBe('other.example');
  });

  it('settles every row of a key, each with its own host in the answer', () => {
    const w = setup();
    w.add('example.com', 'shop.example.com');
    w.add('example.com', 'www.example.com');
    w.waiting.settle('example.com', 'found', { host: 'shop.example.com', apex: 'example.com' }, null);
    expect(w.waiting.has('example.com')).toBe(false);
    const rows = w.buffer.take();
    expect(rows.map((r) => (r.data as { host: string }).host)).toEqual(['shop.example.com', 'www.example.com']);
    expect(w.stats.found).toBe(2);
  });

  it('remembers a failure only when asked, and a missing key in the seen-set', () => {
    const w = setup();
    w.seen.add(['gone.example', 'bad.example', 'stopped.example']);
    for (const key of ['gone.example', 'bad.example', 'stopped.example']) w.add(key, key);
    w.waiting.settle('gone.example', 'missing', null, null);
    w.waiting.settle('bad.example', 'error', null, 'boom', true);
    w.waiting.settle('stopped.example', 'error', null, 'interrupted');
    expect(w.seen.missingSince('gone.example')).not.toBeNull();
    expect(w.waiting.failure('bad.example')).toBe('boom');
    expect(w.waiting.failure('stopped.example')).toBeUndefined();
    expect(w.stats).toMatchObject({ missing: 1, errors: 2 });
  });
});
