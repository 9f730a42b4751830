// What a row's answer changed (row-change.ts): the lookup rule (against the answer held at planning), the
// history rule for cached rows (through a real cache's history, replacedByMany, read ahead), repeats of keys
// this run looked up (the bounded map, and the history rule past it), and the cells and JSON object written.
import { afterEach, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/domain/kinds.js';
import { enrich } from '../../src/run/enrich.js';
import { changesObject, changeValues, rowChange } from '../../src/domain/row-change.js';
import { ChangeTracker } from '../../src/run/change-tracker.js';
import { PLAN_CHUNK } from '../../src/run/planner.js';
import type { EnrichedRow, InputRecord } from '../../src/domain/types.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { harness, type Harness } from '../helpers/run.js';
import { tempDir } from '../store/helpers.js';

const spec = KINDS.profile;
const body = (technologies: string[], band = '1k-10k') => ({
  domain: 'a.example',
  technologies,
  traffic: { estimated_monthly_visits: 1, band, as_of: '2025-10' },
});
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0, 250);
const DAY = 86_400_000;

const row = (over: Partial<EnrichedRow>): EnrichedRow => ({
  kind: 'profile',
  line: 2,
  cells: [],
  value: 'a.example',
  status: 'found',
  host: 'a.example',
  reason: null,
  data: null,
  cached: false,
  fetchedAt: T0,
  ...over,
});

describe('rowChange', () => {
  it('lists the fields, what was adopted and dropped, the band before and when the previous answer was fetched', () => {
    const c = rowChange(
      spec,
      'a.example',
      { status: 'found', body: body(['HubSpot', 'Nginx']), fetchedAt: T0 - DAY },
      { status: 'found', body: body(['Nginx', 'Shopify'], '10k-100k') },
      T0,
    );
    expect(c).toEqual({
      change: 'changed',
      fields: ['technologies', 'traffic_band'],
      techAdded: ['Shopify'],
      techRemoved: ['HubSpot'],
      bandWas: '1k-10k',
      previousAt: T0 - DAY,
      second: Math.floor(T0 / 1000),
    });
    expect(changeValues(row({ change: c }))).toEqual({
      change: 'changed',
      changed_fields: ['technologies', 'traffic_band'],
      tech_added: ['Shopify'],
      tech_removed: ['HubSpot'],
      traffic_band_was: '1k-10k',
      previous_fetched_at: '2026-10-31T12:00:00Z',
    });
  });

  it('leaves tech and band empty when they did not move, and gone/back to the status alone', () => {
    const gone = rowChange(spec, 'a.example', { status: 'found', body: body(['Nginx']), fetchedAt: T0 - DAY }, { status: 'missing', body: null }, T0);
    expect(gone).toMatchObject({ change: 'gone', fields: ['status'], techAdded: [], techRemoved: [], bandWas: null });
    expect(rowChange(spec, 'a.example', null, { status: 'found', body: body(['Nginx']) }, T0)).toMatchObject({ change: 'new', fields: [], previousAt: null });
  });
});

describe('changeValues and changesObject', () => {
  it('are empty for invalid and error rows, and for a row without a change', () => {
    const c = rowChange(spec, 'a.example', null, { status: 'missing', body: null }, T0);
    for (const status of ['invalid', 'error'] as const) {
      expect(Object.values(changeValues(row({ status, change: c }))).every((v) => v === null)).toBe(true);
      expect(changesObject(row({ status, change: c }))).toBeNull();
    }
    expect(changesObject(row({}))).toBeNull();
    expect(changesObject(row({ status: 'missing', change: c }))).toMatchObject({ change: 'new', changed_fields: [] });
  });
});

describe('ChangeTracker', () => {
  const held = { status: 'found' as const, body: body(['Nginx']), fetchedAt: T0 - DAY };

  it('gives a repeat of a key it looked up what its first row got, without reading the history', async () => {
    let reads = 0;
    const t = new ChangeTracker(spec, {
      replacedByMany: async (_e, asks) => {
        reads++;
        return asks.map(() => null);
      },
    });
    const first = t.looked('a.example', 'a.example', held, 'found', body(['Nginx', 'Shopify']), T0);
    expect(first?.change).toBe('changed');
    // The repeat reads the answer back from the store, fetched within the same second.
    await t.readAhead([{ key: 'a.example', at: T0 + 500 }]);
    expect(t.fromStore('a.example', 'www.a.example', { status: 'found', body: body(['Nginx', 'Shopify']), fetchedAt: T0 + 500 })).toBe(first);
    expect(reads).toBe(0);
    // Another answer (another process refreshed it since): judged by the history rule.
    await t.readAhead([{ key: 'a.example', at: T0 + 5000 }]);
    expect(t.fromStore('a.example', 'a.example', { status: 'found', body: body(['Nginx', 'Shopify']), fetchedAt: T0 + 5000 })?.change).toBe('same');
    expect(reads).toBe(1);
    expect(t.looked('b.example', 'b.example', undefined, 'missing', null, T0)?.change).toBe('new');
    expect(t.looked('c.example', 'c.example', held, 'error', null, T0)).toBeUndefined();
  });

  it("past its bound, answers a repeat by the history rule and the store's previous fetch: changes stay exact", async () => {
    const past = new Map([['a.example', { ...held, replacedAt: T0 }]]);
    const t = new ChangeTracker(
      spec,
      { replacedByMany: async (_e, asks) => asks.map(({ host, at }) => (Math.floor(at / 1000) === Math.floor(T0 / 1000) ? (past.get(host) ?? null) : null)) },
      2,
    );
    // The rows below are answered from the store at T0: their history is read ahead, as the planner does.
    const ahead = (...keys: string[]) => t.readAhead(keys.map((key) => ({ key, at: T0 })));
    const a = t.looked('a.example', 'a.example', held, 'found', body(['Shopify']), T0);
    t.looked('b.example', 'b.example', undefined, 'found', body(['Nginx']), T0);
    t.looked('c.example', 'c.example', undefined, 'found', body(['Nginx']), T0); // a leaves the map
    await ahead('a.example', 'c.example', 'b.example', 'e.example', 'f.example');
    const again = t.fromStore('a.example', 'a.example', { status: 'found', body: body(['Shopify']), fetchedAt: T0 });
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
    expect(t.fromStore('c.example', 'c.example', { status: 'found', body: body(['Nginx']), fetchedAt: T0 })?.change).toBe('new');
    // b has left the map (a came back into it): the store's own record decides. Never fetched before: new.
    expect(t.fromStore('b.example', 'b.example', { status: 'found', body: body(['Nginx']), fetchedAt: T0, previousAt: null })?.change).toBe('new');
    // Fetched before, at a time the store knows: same since then.
    expect(t.fromStore('e.example', 'e.example', { status: 'found', body: body(['Nginx']), fetchedAt: T0, previousAt: T0 - DAY })).toMatchObject({
      change: 'same',
      previousAt: T0 - DAY,
    });
    // A store that does not know (an answer still in the journal): same, no previous time.
    expect(t.fromStore('f.example', 'f.example', { status: 'found', body: body(['Nginx']), fetchedAt: T0 })).toMatchObject({
      change: 'same',
      previousAt: null,
    });
  });

  it('leaves the cells empty once the history cannot be read, and stops asking', async () => {
    let reads = 0;
    const t = new ChangeTracker(spec, {
      replacedByMany: async () => {
        reads++;
        throw new Error('disk I/O error');
      },
    });
    await t.readAhead([{ key: 'a.example', at: held.fetchedAt }]);
    expect(t.fromStore('a.example', 'a.example', held)).toBeUndefined();
    await t.readAhead([{ key: 'b.example', at: held.fetchedAt }]);
    expect(t.fromStore('b.example', 'b.example', held)).toBeUndefined();
    expect(reads).toBe(1);
  });

  it("reads a real cache's history: the answer a fetch replaced, found by that fetch's second", async () => {
    const clock = { now: T0 - DAY };
    const dir = tempDir();
    const cache = await openCache({ dir, clock: () => clock.now });
    const put = (technologies: string[]) => cache.putMany([{ endpoint: 'domain', host: 'a.example', status: 'found', body: body(technologies) }]);
    await put(['Nginx']);
    clock.now = T0;
    await put(['Nginx', 'Shopify']); // changed: the first is kept, replaced at T0
    clock.now = T0 + DAY;
    await put(['Nginx', 'Shopify']); // the same again: nothing kept
    await cache.close(); // merges the journal, so the history holds the replaced answer
    const reopened = await openCache({ dir });
    try {
      const replacedBy = async (at: number) => (await reopened.past.replacedByMany('domain', [{ host: 'a.example', at }]))[0];
      // Any time within T0's second finds it (rows know their time to the second).
      expect(await replacedBy(T0 + 700)).toMatchObject({ body: body(['Nginx']), fetchedAt: T0 - DAY, replacedAt: T0 });
      expect(await replacedBy(T0 + 1000)).toBeNull();
      expect(await replacedBy(T0 + DAY)).toBeNull();
      const t = new ChangeTracker(spec, reopened.past);
      const now = (await reopened.getMany('domain', ['a.example'], Number.POSITIVE_INFINITY)).get('a.example');
      expect(now?.fetchedAt).toBe(T0 + DAY);
      // The answer held now was fetched at T0 + DAY and changed nothing: same since the fetch before, at T0.
      expect(now?.previousAt).toBe(T0);
      await t.readAhead([{ key: 'a.example', at: T0 + DAY }]);
      expect(t.fromStore('a.example', 'a.example', now as NonNullable<typeof now>)).toMatchObject({ change: 'same', previousAt: T0 });
      const changedAt = { status: 'found' as const, body: body(['Nginx', 'Shopify']), fetchedAt: T0 };
      await t.readAhead([{ key: 'a.example', at: T0 }]);
      expect(t.fromStore('a.example', 'a.example', changedAt)).toMatchObject({ change: 'changed', techAdded: ['Shopify'], previousAt: T0 - DAY });
    } finally {
      await reopened.close();
    }
  });
});

describe('a run with changes', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('gives repeats planned after their key settled what the first row got (this run answered them, unmerged)', async () => {
    h = await harness({ rpm: 0, hosts: 200 });
    const hosts = h.sb.hostList().slice(0, 5);
    await h.run('profile', hosts);
    // Make two held answers older and different, as a release would: the refresh then changes them.
    const old = await h.cache.getMany('domain', hosts.slice(0, 2), Number.POSITIVE_INFINITY);
    await h.cache.putMany(
      [...old].map(([host, a]) => ({ endpoint: 'domain', host, status: a.status, body: { ...(a.body as object), technologies: ['OldTech'] } })),
    );
    // The refresh must start after those edits (answers from its start on count as its own): the next millisecond.
    for (const t = Date.now(); Date.now() <= t; );
    h.sb.resetCounters();
    const rec = (value: string, line: number): InputRecord => ({ line, cells: [value], value });
    let settled = () => 0;
    // The repeats come only once every first row has its answer: they are planned from the store, not queued.
    async function* source() {
      yield [...hosts, 'nobody-holds-this.example'].map(rec);
      while (settled() < 6) await new Promise((r) => setTimeout(r, 5));
      yield [...hosts, 'nobody-holds-this.example'].map((v, i) => rec(v, 10 + i));
    }
    const run = enrich(source(), { kind: 'profile', client: h.client, store: h.cache, refresh: true, changes: true, stale: false });
    settled = () => run.stats.found + run.stats.missing;
    const rows: EnrichedRow[] = [];
    for await (const row of run.rows()) rows.push(row);
    expect(h.sb.charges().total).toBe(6);
    expect(run.stats.lookupsSpent).toBe(6);
    const cells = rows.map((r) => changeValues(r));
    expect(cells.slice(0, 6).map((c) => [c.change, c.changed_fields])).toEqual([
      ['changed', ['technologies']],
      ['changed', ['technologies']],
      ['same', []],
      ['same', []],
      ['same', []],
      ['new', []],
    ]);
    expect(cells.slice(0, 2).map((c) => c.tech_removed)).toEqual([['OldTech'], ['OldTech']]);
    // The repeats were answered from the store (this run's answers), and say the same.
    expect(rows.slice(6).every((r) => r.cached)).toBe(true);
    expect(cells.slice(6)).toEqual(cells.slice(0, 6));
  });

  it('reads the history of rows answered from the store once per chunk of rows, not once per row', async () => {
    h = await harness({ rpm: 0, hosts: 1000 });
    const hosts = h.sb.hostList().slice(0, 600);
    await h.run('profile', hosts);
    const cache = h.cache;
    const asked: number[] = [];
    const past = {
      ...cache.past,
      replacedByMany: (endpoint: string, asks: Parameters<typeof cache.past.replacedByMany>[1]) => {
        asked.push(asks.length);
        return cache.past.replacedByMany(endpoint, asks);
      },
    };
    const again = await h.run('profile', hosts, { store: { ...cache, past }, changes: true });
    expect(again.rows.every((r) => r.cached && r.change?.change === 'same')).toBe(true);
    expect(asked).toEqual([PLAN_CHUNK, PLAN_CHUNK, 600 - 2 * PLAN_CHUNK]);
  });

  it('without changes, rows carry none and nothing is read at any age under --no-stale', async () => {
    h = await harness({ rpm: 0, hosts: 200 });
    const hosts = h.sb.hostList().slice(0, 3);
    const ages: number[] = [];
    const cache = h.cache;
    const store = {
      ...cache,
      getMany: (endpoint: string, keys: readonly string[], maxAgeMs: number) => {
        ages.push(maxAgeMs);
        return cache.getMany(endpoint, keys, maxAgeMs);
      },
    };
    const plain = await h.run('profile', [...hosts, hosts[0] as string], { store, stale: false, maxAgeMs: 1000 });
    expect(plain.rows.every((r) => !('change' in r))).toBe(true);
    expect(ages.length).toBeGreaterThan(0);
    expect(ages.every((a) => a === 1000)).toBe(true);
    ages.length = 0;
    const asked = await h.run('profile', hosts, { store, stale: false, maxAgeMs: 1000, refresh: true, changes: true });
    expect(ages.every((a) => a === Number.POSITIVE_INFINITY)).toBe(true);
    expect(asked.rows.map((r) => r.change?.change)).toEqual(['same', 'same', 'same']);
  });
});
