// Storage failures at the store's boundary: a cache whose writes throw SQLITE_FULL (as better-sqlite3 throws
// it) part-way through a run, sharing that fails, a merge that fails, the limiter's shared slots failing. The
// sandbox's charges prove every paid answer reached its rows and that no repeat was bought twice.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerStore } from '../../src/store/contract.js';
import type { SlotStore } from '../../src/store/contract.js';
import { memorySlots } from '../../src/store/memory-slots.js';
import type { RunEvent } from '../../src/run/stats.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { CacheCorruptError, storageTrouble } from '../../src/store/errors.js';
import { MERGE_EVERY } from '../../src/store/sqlite/journal.js';
import { failoverSlots } from '../../src/store/sqlite/slots.js';
import { type Harness, harness } from '../helpers/run.js';
import { tempDir } from './helpers.js';

/** An error shaped as better-sqlite3 throws it. */
function sqliteError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** `store`, whose writes throw `error` once `okWrites` writes have gone through. */
function failingAfter(store: AnswerStore, okWrites: number, error: () => Error): AnswerStore & { writes: number } {
  const out = {
    ...store,
    writes: 0,
    async putMany(entries: Parameters<AnswerStore['putMany']>[0]) {
      out.writes++;
      if (out.writes > okWrites) throw error();
      return store.putMany(entries);
    },
  };
  return out;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a cache whose writes fail mid-run', () => {
  it('every paid answer reaches its rows, is counted not kept and said once; repeats are not bought twice; a re-run pays for exactly those', async () => {
    h = await harness({ rpm: 0 });
    const hosts = h.sb.hostList().slice(0, 250);
    const absent = Array.from({ length: 20 }, (_, i) => `absent-${i}.example`);
    // Repeats after the first write fails: they must come from what the run holds, not the service.
    const input = [...hosts, ...absent, ...hosts.slice(0, 120), ...absent.slice(0, 5)];
    const store = failingAfter(h.cache, 1, () => sqliteError('SQLITE_FULL', 'database or disk is full'));
    const events: RunEvent[] = [];
    const { rows, stats } = await h.run('profile', input, { store, concurrency: 1, onEvent: (e) => events.push(e) });

    expect(rows).toHaveLength(input.length);
    expect(rows.filter((r) => r.status === 'error')).toEqual([]);
    expect(rows.filter((r) => r.status === 'missing').map((r) => r.host)).toEqual([...absent, ...absent.slice(0, 5)]);
    expect(rows.filter((r) => r.status === 'found').every((r) => r.data !== null)).toBe(true);
    const charges = h.sb.charges();
    expect(charges.total).toBe(hosts.length + absent.length);
    expect(Math.max(...Object.values(charges.byHost))).toBe(1);
    expect(stats.lookupsSpent).toBe(charges.total);
    // The first batch (100 hosts) was written; every answer after it was not.
    expect(stats.notKept).toBe(charges.total - 100);
    expect(stats.notKeptCause).toBe('the cache is not writable (disk full)');
    expect(events.filter((e) => e.type === 'not-kept')).toEqual([{ type: 'not-kept', cause: 'the cache is not writable (disk full)', count: 100 }]);
    expect(store.writes).toBe(2); // nothing more was tried after the failure

    h.sb.resetCounters();
    const again = await h.run('profile', input);
    expect(h.sb.charges().total).toBe(stats.notKept);
    expect(again.stats.notKept).toBe(0);
  });

  it('an answer not kept ends its claim, so another run does not wait for it in vain', async () => {
    h = await harness({ rpm: 0 });
    const released: string[] = [];
    const store = {
      ...failingAfter(h.cache, 0, () => sqliteError('SQLITE_READONLY', 'attempt to write a readonly database')),
      claim: async () => [],
      release: async (_endpoint: string, hosts: readonly string[]) => void released.push(...hosts),
    };
    const hosts = h.sb.hostList().slice(0, 30);
    const { stats } = await h.run('profile', hosts, { store });
    expect(stats.notKept).toBe(30);
    expect(stats.notKeptCause).toBe('the cache is not writable (read-only)');
    expect([...released].sort()).toEqual([...hosts].sort());
  });

  it('a failure that is not the storage (a bug) still stops the run: it is not taken for a full disk', async () => {
    h = await harness({ rpm: 0 });
    const store = failingAfter(h.cache, 0, () => new TypeError('bug'));
    await expect(h.run('profile', h.sb.hostList().slice(0, 10), { store })).rejects.toThrow(/^bug$/);
  });

  it('sharing the cache with other runs fails: one not-shared event, the run goes on alone and answers every row', async () => {
    h = await harness({ rpm: 0 });
    const cache = h.cache;
    const busy = () => {
      throw sqliteError('SQLITE_BUSY', 'database is locked');
    };
    // Tried once (the claim before the first batch), then never again: the run goes on alone.
    let tries = 0;
    const tryOnce = () => {
      tries++;
      return busy();
    };
    const store: AnswerStore = { ...cache, getFresh: tryOnce, claim: tryOnce, release: tryOnce };
    const events: RunEvent[] = [];
    const hosts = h.sb.hostList().slice(0, 300);
    const { rows, stats } = await h.run('profile', hosts, { store, onEvent: (e) => events.push(e) });
    expect(rows.filter((r) => r.status === 'error')).toEqual([]);
    expect(h.sb.charges().total).toBe(300);
    expect(stats.notKept).toBe(0);
    expect(events.filter((e) => e.type === 'not-shared')).toEqual([
      { type: 'not-shared', cause: 'the cache cannot be shared with other runs (locked by another process for too long)' },
    ]);
    expect(tries).toBe(1);
  });
});

describe('the journal merge', () => {
  it('a merge that fails does not fail the write it follows: the answers are committed and read back, and merged later', async () => {
    const dir = tempDir();
    const cache = await openCache({ dir });
    const db = new Database(`${dir}/cache.sqlite`);
    // A real SQLite failure in the merge only: moving rows into `answers` is refused.
    db.exec("CREATE TRIGGER no_merge BEFORE INSERT ON answers BEGIN SELECT RAISE(ABORT, 'no room'); END");
    const entries = Array.from({ length: MERGE_EVERY }, (_, i) => ({ endpoint: 'domain', host: `h${i}.example`, status: 'missing' as const, body: null }));
    await expect(cache.putMany(entries)).resolves.toEqual(expect.any(Number));
    expect((await cache.getMany('domain', ['h0.example', `h${MERGE_EVERY - 1}.example`], Number.POSITIVE_INFINITY)).size).toBe(2);
    db.exec('DROP TRIGGER no_merge');
    await cache.close();
    expect(db.prepare('SELECT COUNT(*) AS n FROM answers').get()).toEqual({ n: MERGE_EVERY });
    db.close();
  });
});

describe("the limiter's shared slots", () => {
  it('a step that fails for the storage moves the limiter to slots of its own, said once; a ticket from the file never answers a memory slot', async () => {
    const inner = memorySlots();
    let broken = false;
    const full = () => {
      if (broken) throw sqliteError('SQLITE_FULL', 'database or disk is full');
    };
    const shared: SlotStore = {
      ...inner,
      shared: true,
      take: (now, limit, holdMs) => (full(), inner.take(now, limit, holdMs)),
      answer: (...a) => (full(), inner.answer(...a)),
      pause: (...a) => (full(), inner.pause(...a)),
    };
    const troubles: string[] = [];
    const slots = failoverSlots(shared, (t) => troubles.push(t));
    const first = await slots.take(0, 1, 1000);
    expect(first).toEqual({ id: 1 });
    expect(slots.shared).toBe(true);
    broken = true;
    // Limit 1: the memory slots start empty, so the run can still send.
    const second = await slots.take(1, 1, 1000);
    expect(second).toEqual({ id: 1 });
    expect(slots.shared).toBe(false);
    expect(troubles).toEqual(['disk full']);
    // The same id, answered by the ticket from the file: ignored, so the memory slot stays in flight.
    await slots.answer(1, 2, true, 2);
    await slots.pause(5, false, 2, 1000);
    expect(await slots.take(3, 1, 1000)).toEqual({ retryAt: 5, paused: true });
    expect(troubles).toHaveLength(1);
  });

  it('a failure that is not the storage is thrown', async () => {
    const slots = failoverSlots(
      {
        ...memorySlots(),
        take: () => {
          throw new RangeError('bug');
        },
      },
      () => {},
    );
    await expect(slots.take(0, null, 1000)).rejects.toThrow(RangeError);
  });
});

describe('storageTrouble', () => {
  it('names the storage failures and nothing else', () => {
    expect(storageTrouble(sqliteError('SQLITE_FULL', 'x'))).toBe('disk full');
    expect(storageTrouble(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe('disk full');
    expect(storageTrouble(sqliteError('SQLITE_READONLY_DBMOVED', 'x'))).toBe('read-only');
    expect(storageTrouble(Object.assign(new Error('x'), { code: 'EROFS' }))).toBe('read-only');
    expect(storageTrouble(sqliteError('SQLITE_BUSY', 'x'))).toBe('locked by another process for too long');
    expect(storageTrouble(sqliteError('SQLITE_IOERR_WRITE', 'x'))).toBe('I/O error');
    expect(storageTrouble(new CacheCorruptError('/c', 'file is not a database'))).toBe('damaged');
    expect(storageTrouble(new TypeError('bug'))).toBeNull();
    expect(storageTrouble(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeNull();
  });
});
