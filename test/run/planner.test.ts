import { describe, expect, it } from 'vitest';
import type { AnswerStore } from '../../src/store/contract.js';
import { memoryStore } from '../../src/store/memory.js';
import { KINDS } from '../../src/domain/kinds.js';
import { Planner, type PlanTarget } from '../../src/run/planner.js';
import { openSeenSet } from '../../src/run/seen-keys.js';
import { emptyStats } from '../../src/run/stats.js';
import type { InputRecord, RunKind } from '../../src/domain/types.js';

const records = (values: string[]): InputRecord[] => values.map((value, i) => ({ line: i + 1, cells: [value], value }));

/** A planner with a target that records every decision; `asked` lists the hosts the store was asked about. */
function setup(kind: RunKind, opts: { store?: AnswerStore; dryRun?: boolean; refresh?: boolean } = {}) {
  const base = opts.store ?? memoryStore();
  const asked: string[] = [];
  const store: AnswerStore = {
    ...base,
    getMany: (endpoint, hosts, maxAgeMs) => (asked.push(...hosts), base.getMany(endpoint, hosts, maxAgeMs)),
  };
  const stats = emptyStats(Date.now());
  const decisions: [number, string, string | null][] = [];
  const queued = new Set<string>();
  const failed = new Map<string, string>();
  let stopped: string | null = null;
  const target: PlanTarget = {
    settled: (record, row) => void decisions.push([record.line, row.status, row.reason ?? null]),
    waiting: (key) => queued.has(key),
    pending: (key, record) => {
      decisions.push([record.line, queued.has(key) ? 'joins' : 'lookup', key]);
      queued.add(key);
    },
    failure: (key) => failed.get(key),
    stopped: () => stopped,
  };
  const planner = new Planner({
    spec: KINDS[kind],
    store,
    seen: openSeenSet(),
    stats,
    maxAgeMs: 86_400_000,
    refresh: opts.refresh === true,
    dryRun: opts.dryRun === true,
    stale: null,
    clock: Date.now,
  });
  return {
    stats,
    decisions,
    asked,
    base,
    failed,
    queued,
    plan: (values: string[]) => planner.plan(records(values), target),
    stop: (text: string) => {
      stopped = text;
    },
  };
}

describe('Planner', () => {
  it('marks invalid rows, queues each key once, and has repeats wait on it', async () => {
    const p = setup('profile');
    await p.plan(['a.example', 'not a host', 'HTTPS://A.EXAMPLE/x', 'b.example']);
    expect(p.decisions).toEqual([
      [1, 'lookup', 'a.example'],
      [2, 'invalid', expect.stringMatching(/space/)],
      [3, 'joins', 'a.example'],
      [4, 'lookup', 'b.example'],
    ]);
    expect(p.stats).toMatchObject({ rows: 4, valid: 3, invalid: 1, duplicates: 1, lookupsNeeded: 2, requestsNeeded: 1 });
  });

  it('answers from the store what it holds, counting a cache hit per distinct host', async () => {
    const store = memoryStore();
    await store.putMany([
      { endpoint: 'domain', host: 'held.example', status: 'found', body: { domain: 'held.example' } },
      { endpoint: 'domain', host: 'gone.example', status: 'missing', body: null },
    ]);
    const p = setup('profile', { store });
    await p.plan(['held.example', 'gone.example', 'held.example', 'new.example']);
    expect(p.decisions).toEqual([
      [1, 'found', null],
      [2, 'missing', null],
      [3, 'found', null],
      [4, 'lookup', 'new.example'],
    ]);
    expect(p.stats).toMatchObject({ cacheHits: 2, duplicates: 1, lookupsNeeded: 1 });
  });

  it('asks a store empty for its endpoint only about repeats, and answers repeats of a known missing key from the seen-set', async () => {
    const p = setup('profile');
    await p.plan(['a.example', 'b.example']);
    expect(p.asked).toEqual([]);
    p.queued.clear(); // both answered since: a found, b missing
    await p.base.putMany([
      { endpoint: 'domain', host: 'a.example', status: 'found', body: {} },
      { endpoint: 'domain', host: 'b.example', status: 'missing', body: null },
    ]);
    await p.plan(['a.example', 'b.example', 'c.example']);
    expect(p.asked).toEqual(['a.example', 'b.example']);
    await p.plan(['b.example']);
    expect(p.asked).toEqual(['a.example', 'b.example']); // b is known missing now: no read
    expect(p.decisions.at(-1)).toEqual([1, 'missing', null]);
  });

  it('gives rows of a key that failed earlier the same reason, and rows planned after a stop the stop reason', async () => {
    const p = setup('traffic');
    p.failed.set('a.example', 'boom (after 4 retries)');
    p.stop('interrupted');
    await p.plan(['a.example', 'b.example']);
    expect(p.decisions).toEqual([
      [1, 'error', 'boom (after 4 retries)'],
      [2, 'error', 'interrupted'],
    ]);
    expect(p.stats.lookupsNeeded).toBe(0);
  });

  it('under --dry-run counts each lookup once and queues nothing', async () => {
    const p = setup('traffic', { dryRun: true });
    await p.plan(['a.example', 'b.example', 'a.example', 'bad host']);
    expect(p.decisions).toEqual([[4, 'invalid', expect.any(String)]]);
    expect(p.stats).toMatchObject({ rows: 4, lookupsNeeded: 2, requestsNeeded: 2, duplicates: 1 });
  });

  it('keys employees rows by registrable domain: hosts of one organisation share one lookup', async () => {
    const p = setup('employees');
    await p.plan(['shop.example.co.uk', 'www.example.co.uk', 'other.example']);
    expect(p.decisions).toEqual([
      [1, 'lookup', 'example.co.uk'],
      [2, 'joins', 'example.co.uk'],
      [3, 'lookup', 'other.example'],
    ]);
  });
});
