// The answer store: reads by age, writes, stats and upkeep, and the append journal with its merge.
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openCache } from '../../src/store/sqlite/cache.js';
import { MERGE_EVERY } from '../../src/store/sqlite/journal.js';
import { clockedCache, DAY, get, profile, putOne } from './cache-helpers.js';
import { tempDir } from './helpers.js';

describe('the answer store', () => {
  it('stores and reads answers, found and missing, honouring max age', async () => {
    const { cache, clock } = await clockedCache();
    await putOne(cache, 'domain', 'example.com', 'found', profile('example.com'));
    await putOne(cache, 'domain', 'gone.example', 'missing', null);
    const t0 = clock.now;
    expect(await get(cache, 'domain', 'example.com', DAY)).toEqual({ status: 'found', body: profile('example.com'), fetchedAt: t0, previousAt: null });
    expect(await get(cache, 'domain', 'gone.example', DAY)).toEqual({ status: 'missing', body: null, fetchedAt: t0, previousAt: null });
    expect(await get(cache, 'traffic', 'example.com', DAY)).toBeNull(); // endpoints are separate
    expect(await get(cache, 'domain', 'other.example', DAY)).toBeNull();
    clock.now += DAY;
    expect(await get(cache, 'domain', 'example.com', DAY)).not.toBeNull(); // exactly max age: still fresh
    clock.now += 1;
    expect(await get(cache, 'domain', 'example.com', DAY)).toBeNull();
    expect((await get(cache, 'domain', 'example.com', Infinity))?.status).toBe('found');
    await putOne(cache, 'domain', 'example.com', 'found', { ...profile('example.com'), resolves: false });
    expect(await get(cache, 'domain', 'example.com', 0)).toMatchObject({ body: { resolves: false }, fetchedAt: clock.now });
    await cache.close();
    await cache.close(); // twice is harmless
  });

  it('getMany reads large host lists in chunks and skips stale or absent hosts', async () => {
    const { cache, clock } = await clockedCache();
    const hosts = Array.from({ length: 1234 }, (_, i) => `h${i}.example`);
    await cache.putMany(hosts.filter((_, i) => i % 2 === 0).map((host) => ({ endpoint: 'domain', host, status: 'found' as const, body: profile(host) })));
    clock.now += 10 * DAY;
    await cache.putMany([{ endpoint: 'domain', host: 'h1.example', status: 'missing', body: null }]);
    const fresh = await cache.getMany('domain', [...hosts, 'h0.example'], 5 * DAY);
    expect([...fresh.keys()]).toEqual(['h1.example']);
    const all = await cache.getMany('domain', hosts, 30 * DAY);
    expect(all.size).toBe(618);
    expect(all.get('h1232.example')).toEqual({ status: 'found', body: profile('h1232.example'), fetchedAt: clock.now - 10 * DAY });
    expect(all.has('h3.example')).toBe(false);
    expect((await cache.getMany('domain', [], DAY)).size).toBe(0);
    await cache.putMany([]);
    await cache.close();
  });

  it('keeps the catalog under host "" and employees by apex', async () => {
    const { cache } = await clockedCache();
    await putOne(cache, 'catalog', '', 'found', [{ category: 'cms', technologies: [] }]);
    await putOne(cache, 'employees', 'example.com', 'found', { apex: 'example.com' });
    expect((await get(cache, 'catalog', '', DAY))?.body).toEqual([{ category: 'cms', technologies: [] }]);
    expect((await cache.stats()).byEndpoint).toEqual({ catalog: 1, employees: 1 });
    await cache.close();
  });

  it('prunes, clears and reports stats', async () => {
    const { cache, clock, dir } = await clockedCache();
    expect(await cache.stats()).toMatchObject({ entries: 0, found: 0, missing: 0, oldest: null, newest: null, byEndpoint: {} });
    const t0 = clock.now;
    await putOne(cache, 'domain', 'a.example', 'found', profile('a.example'));
    await putOne(cache, 'traffic', 'a.example', 'found', { host: 'a.example', history: [] });
    clock.now += 20 * DAY;
    await putOne(cache, 'domain', 'b.example', 'missing', null);
    const s = await cache.stats();
    expect(s).toMatchObject({
      path: path.join(dir, 'cache.sqlite'),
      entries: 3,
      found: 2,
      missing: 1,
      oldest: t0,
      newest: clock.now,
      byEndpoint: { domain: 2, traffic: 1 },
    });
    expect(s.bytes).toBeGreaterThan(0);
    expect(await cache.prune(10 * DAY)).toBe(2);
    expect((await cache.stats()).entries).toBe(1);
    expect(await cache.prune(10 * DAY)).toBe(0);
    expect(await cache.clear()).toBe(1);
    expect((await cache.stats()).entries).toBe(0);
    await cache.close();
  });

  it('finds every answer across merges, the later answer for a host winning, here and in a second connection', async () => {
    const { cache, clock, dir } = await clockedCache();
    const n = MERGE_EVERY + 2_500;
    const hosts = Array.from({ length: n }, (_, i) => `h${i}.example`);
    for (let i = 0; i < n; i += 100) {
      await cache.putMany(hosts.slice(i, i + 100).map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
    }
    // The first MERGE_EVERY are in `answers` by now, the rest still only appended: a reader must see both.
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'), { readonly: true });
    const counts = () => raw.prepare('SELECT (SELECT COUNT(*) FROM answers) AS answers, (SELECT COUNT(*) FROM recent) AS recent').get();
    expect(counts()).toEqual({ answers: MERGE_EVERY, recent: 2_500 });
    expect((await cache.getMany('domain', hosts, DAY)).size).toBe(n);

    clock.now += 1000;
    await putOne(cache, 'domain', 'h3.example', 'found', profile('h3.example')); // merged earlier as missing
    await putOne(cache, 'domain', `h${n - 1}.example`, 'found', profile(`h${n - 1}.example`)); // appended twice
    expect(await get(cache, 'domain', 'h3.example', DAY)).toMatchObject({ status: 'found', fetchedAt: clock.now });
    expect(withoutPrevious(await cache.getMany('domain', ['h3.example', `h${n - 1}.example`, 'h4.example'], DAY))).toEqual(
      new Map([
        ['h3.example', { status: 'found', body: profile('h3.example'), fetchedAt: clock.now }],
        [`h${n - 1}.example`, { status: 'found', body: profile(`h${n - 1}.example`), fetchedAt: clock.now }],
        ['h4.example', { status: 'missing', body: null, fetchedAt: clock.now - 1000 }],
      ]),
    );
    expect(await cache.holdsAny('domain')).toBe(true);
    expect(await cache.holdsAny('traffic')).toBe(false);
    // One call with more answers than one statement appends.
    const traffic = hosts.slice(0, 250).map((host) => ({ endpoint: 'traffic', host, status: 'found' as const, body: { host } }));
    await cache.putMany(traffic);
    expect(await cache.holdsAny('traffic')).toBe(true);
    const back = await cache.getMany('traffic', hosts.slice(0, 260), DAY);
    expect([...back.keys()]).toEqual(hosts.slice(0, 250));
    expect(back.get('h249.example')?.body).toEqual({ host: 'h249.example' });
    expect((await cache.stats()).entries).toBe(n + 250); // stats merges first: one row per endpoint and host
    expect(counts()).toEqual({ answers: n + 250, recent: 0 });

    // Appended but not merged when a second connection opens: it merges them on open.
    await putOne(cache, 'domain', 'late.example', 'found', profile('late.example'));
    const second = await openCache({ dir, clock: () => clock.now });
    expect(counts()).toEqual({ answers: n + 251, recent: 0 });
    expect(await get(second, 'domain', 'late.example', DAY)).toMatchObject({ status: 'found' });
    expect(await get(second, 'domain', `h${n - 1}.example`, DAY)).toMatchObject({ status: 'found' });
    await second.close();
    await cache.close();
    raw.close();
  });

  it('keeps the later answer when another connection stored one while this one had answers unmerged', async () => {
    const dir = tempDir();
    const t = Date.parse('2026-01-01T00:00:00Z');
    const a = await openCache({ dir, clock: () => t });
    const b = await openCache({ dir, clock: () => t + 1000 });
    await a.putMany(['x.example', 'y.example'].map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
    await putOne(b, 'domain', 'x.example', 'found', profile('x.example')); // later, straight into answers
    await b.close();
    await a.close(); // merges its earlier answer for x.example: it must not replace b's later one
    const c = await openCache({ dir, clock: () => t + 2000 });
    expect(await get(c, 'domain', 'x.example', DAY)).toMatchObject({ status: 'found', fetchedAt: t + 1000 });
    expect(await get(c, 'domain', 'y.example', DAY)).toMatchObject({ status: 'missing', fetchedAt: t });
    await c.close();
  });

  it('finds its own unmerged answers after another connection merged them and reused their places in the journal', async () => {
    const dir = tempDir();
    const t = Date.parse('2026-01-01T00:00:00Z');
    let now = t;
    const a = await openCache({ dir, clock: () => now });
    const mine = Array.from({ length: 150 }, (_, i) => `a${i}.example`);
    await a.putMany(mine.map((host) => ({ endpoint: 'domain', host, status: 'found' as const, body: profile(host) })));
    // b merges a's answers as it opens (they leave the journal for `answers`), then appends its own, which take
    // the same places in the journal (rowids start again after a merge empties it).
    const b = await openCache({ dir, clock: () => t + 1000 });
    const theirs = Array.from({ length: 150 }, (_, i) => `b${i}.example`);
    await b.putMany(theirs.map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
    const back = await a.getMany('domain', mine, DAY);
    expect(back.size).toBe(150);
    for (const host of mine) expect(back.get(host)).toMatchObject({ status: 'found', body: profile(host), fetchedAt: t });
    // And an answer a stores again is the later one, found in the journal past b's rows.
    now += 2000;
    await a.putMany([{ endpoint: 'domain', host: 'a7.example', status: 'missing', body: null }]);
    await a.putMany([
      { endpoint: 'domain', host: 'a8.example', status: 'missing', body: null },
      { endpoint: 'domain', host: 'a9.example', status: 'missing', body: null },
    ]);
    expect(await get(a, 'domain', 'a8.example', DAY)).toMatchObject({ status: 'missing' });
    expect(await get(a, 'domain', 'a10.example', DAY)).toMatchObject({ status: 'found' });
    await b.close();
    await a.close();
  });

  it('lets the journal grow to a quarter of the answers held before it merges (at least MERGE_EVERY)', async () => {
    const { cache, clock, dir } = await clockedCache();
    const put = (prefix: string, n: number) =>
      cache.putMany(Array.from({ length: n }, (_, i) => ({ endpoint: 'domain', host: `${prefix}${i}.example`, status: 'missing' as const, body: null })));
    await put('old', 60_000);
    await cache.close(); // merged: 60,000 answers held
    const again = await openCache({ dir, clock: () => clock.now });
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'), { readonly: true });
    const recent = () => raw.prepare<[], number>('SELECT COUNT(*) FROM recent').pluck().get();
    for (let i = 0; i < 140; i++)
      await again.putMany([
        { endpoint: 'domain', host: `new${i}.example`, status: 'missing', body: null },
        { endpoint: 'domain', host: `new${i}b.example`, status: 'missing', body: null },
      ]);
    const batch = (from: number) =>
      Array.from({ length: 100 }, (_, i) => ({ endpoint: 'domain', host: `n${from + i}.example`, status: 'missing' as const, body: null }));
    for (let i = 280; i < 14_980; i += 100) await again.putMany(batch(i));
    expect(recent()).toBe(14_980); // past MERGE_EVERY, short of 60,000 / 4
    await again.putMany(batch(14_980));
    expect(recent()).toBe(0);
    expect((await again.getMany('domain', ['old0.example', 'n15079.example', 'new3b.example'], DAY)).size).toBe(3);
    raw.close();
    await again.close();
  });

  it('keeps a throwaway cache (--no-cache) without a write-ahead log, syncs or claims, its answers all there', async () => {
    const dir = tempDir();
    const cache = await openCache({ dir, throwaway: true });
    const hosts = Array.from({ length: MERGE_EVERY + 300 }, (_, i) => `t${i}.example`);
    for (let i = 0; i < hosts.length; i += 100) {
      const batch = hosts.slice(i, i + 100);
      expect(await cache.claim('domain', batch)).toEqual([]);
      await cache.putMany(batch.map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
    }
    expect((await cache.getMany('domain', hosts, DAY)).size).toBe(hosts.length);
    expect(fs.existsSync(path.join(dir, 'cache.sqlite-wal'))).toBe(false);
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'), { readonly: true });
    expect(raw.prepare('SELECT COUNT(*) FROM claims').pluck().get()).toBe(0);
    raw.close();
    await cache.close();
  });

  it("getFresh sees another connection's answers, merged or not, across its merges; nothing until one writes", async () => {
    const dir = tempDir();
    const t = Date.parse('2026-01-01T00:00:00Z');
    // b opens first: opening writes (the schema's version), which a would count as another connection writing.
    const b = await openCache({ dir, clock: () => t + 1000 });
    const a = await openCache({ dir, clock: () => t });
    const missing = (hosts: string[]) => hosts.map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null }));
    await a.putMany(missing(['own-1.example', 'own-2.example']));
    // Only this connection wrote: no query, nothing to report (its own answers are not "bought meanwhile").
    expect((await a.getFresh('domain', ['own-1.example'], DAY)).size).toBe(0);
    await b.putMany(missing(['b-1.example', 'b-2.example'])); // appended to `recent`, unmerged, invisible to a.getMany
    expect((await a.getMany('domain', ['b-1.example'], DAY)).size).toBe(0);
    await putOne(b, 'traffic', 'b-3.example', 'found', { host: 'b-3.example' }); // a lone answer goes straight to `answers`
    const fresh = await a.getFresh('domain', ['b-1.example', 'b-2.example', 'own-1.example', 'none.example'], DAY);
    expect(fresh).toEqual(
      new Map([
        ['b-1.example', { status: 'missing', body: null, fetchedAt: t + 1000 }],
        ['b-2.example', { status: 'missing', body: null, fetchedAt: t + 1000 }],
        ['own-1.example', { status: 'missing', body: null, fetchedAt: t }],
      ]),
    );
    expect((await a.getFresh('traffic', ['b-3.example'], DAY)).get('b-3.example')).toMatchObject({ status: 'found', body: { host: 'b-3.example' } });
    expect((await a.getFresh('traffic', ['b-1.example'], DAY)).size).toBe(0); // another endpoint's answers are not these
    // b merges (its rowids start again at 1 after), then appends more: a still finds all of them.
    await b.stats();
    await b.putMany(missing(['b-4.example', 'b-5.example']));
    expect([...(await a.getFresh('domain', ['b-1.example', 'b-4.example', 'b-5.example'], DAY)).keys()].sort()).toEqual([
      'b-1.example',
      'b-4.example',
      'b-5.example',
    ]);
    await b.close();
    await a.close();
  });
});

/** Answers without when each host was fetched before (tested on its own in history.test.ts and row-change.test.ts). */
function withoutPrevious<T extends { previousAt?: unknown }>(answers: Map<string, T>): Map<string, Omit<T, 'previousAt'>> {
  return new Map([...answers].map(([host, { previousAt: _, ...rest }]) => [host, rest]));
}
