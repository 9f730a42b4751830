// History in the cache (issue 17): a refreshed answer that differs keeps the one it replaced, on every write
// path; the same answer fetched again adds nothing; prune and clear take history with them.
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readProfile } from '../../src/api/validate.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { MERGE_EVERY } from '../../src/store/sqlite/journal.js';
import { clockedCache, DAY, get, profile, putOne } from './cache-helpers.js';
import { tempDir } from './helpers.js';

const batch = (hosts: string[], body: (h: string) => unknown) =>
  hosts.map((host) => ({ endpoint: 'domain', host, status: 'found' as const, body: body(host) }));
const withTech = (host: string, technologies: string[]) => ({ ...profile(host), technologies });

describe('history in the cache', () => {
  it('keeps the replaced answer, through a lone answer and through the journal, and nothing for the same answer', async () => {
    const { cache, clock, dir } = await clockedCache();
    const t0 = clock.now;
    await putOne(cache, 'domain', 'a.example', 'found', profile('a.example'));
    await cache.putMany(batch(['b.example', 'c.example'], profile));
    clock.now += DAY;
    const t1 = clock.now;
    // Lone answer, same data: fetched_at moves on, no history.
    await putOne(cache, 'domain', 'a.example', 'found', profile('a.example'));
    // A batch (the journal): b changes, c is the same.
    await cache.putMany(batch(['b.example', 'c.example'], (h) => (h === 'b.example' ? withTech(h, ['Nginx', 'Shopify']) : profile(h))));
    await cache.close(); // the merge fires the trigger
    const again = await openCache({ dir, clock: () => clock.now });
    expect(await again.past.history('domain', 'a.example')).toEqual([]);
    expect(await again.past.history('domain', 'c.example')).toEqual([]);
    expect(await again.past.history('domain', 'b.example')).toEqual([{ status: 'found', body: profile('b.example'), fetchedAt: t0, replacedAt: t1 }]);
    expect(await get(again, 'domain', 'b.example', DAY)).toMatchObject({ body: withTech('b.example', ['Nginx', 'Shopify']), fetchedAt: t1 });
    expect((await again.stats()).history).toBe(1);
    await again.close();
  });

  it('records status changes both ways and reads history newest first, and previous at a time', async () => {
    const { cache, clock, dir } = await clockedCache();
    const t0 = clock.now;
    await putOne(cache, 'domain', 'a.example', 'found', profile('a.example'));
    clock.now += DAY;
    const t1 = clock.now;
    await putOne(cache, 'domain', 'a.example', 'missing', null); // found -> missing (gone)
    await putOne(cache, 'domain', 'a.example', 'missing', null); // missing again: null bodies are equal, nothing kept
    clock.now += DAY;
    const t2 = clock.now;
    await putOne(cache, 'domain', 'a.example', 'found', withTech('a.example', ['Shopify'])); // missing -> found (back)
    clock.now += DAY;
    await putOne(cache, 'domain', 'a.example', 'found', withTech('a.example', ['Shopify'])); // same: nothing
    expect(await cache.past.history('domain', 'a.example')).toEqual([
      { status: 'missing', body: null, fetchedAt: t1, replacedAt: t2 },
      { status: 'found', body: profile('a.example'), fetchedAt: t0, replacedAt: t1 },
    ]);
    expect(await cache.past.previous('domain', 'a.example')).toMatchObject({ status: 'missing', replacedAt: t2 });
    // The answer held at a moment: the oldest replaced after it, else the current one.
    expect(await cache.past.previous('domain', 'a.example', t0 + 1)).toMatchObject({ status: 'found', body: profile('a.example') });
    expect(await cache.past.previous('domain', 'a.example', t1)).toMatchObject({ status: 'missing' });
    expect(await cache.past.previous('domain', 'a.example', t2 + 1)).toEqual({
      status: 'found',
      body: withTech('a.example', ['Shopify']),
      fetchedAt: clock.now,
      replacedAt: null,
    });
    // Other endpoints and hosts are apart; a host never changed has no history.
    expect(await cache.past.history('traffic', 'a.example')).toEqual([]);
    expect(await cache.past.previous('domain', 'never.example')).toBeNull();
    expect(await cache.past.previous('domain', 'never.example', t1)).toBeNull();
    expect((await cache.stats()).history).toBe(2);
    await cache.close();
    // And it is in the file, for the next process.
    const db = new Sqlite(path.join(dir, 'cache.sqlite'), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM history').get()).toEqual({ n: 2 });
    db.close();
  });

  it('a batch through the journal keeps only the changed answers, with the new fetch time as replaced_at', async () => {
    const { cache, clock, dir } = await clockedCache();
    const hosts = Array.from({ length: 300 }, (_, i) => `h${i}.example`);
    const t0 = clock.now;
    await cache.putMany(batch(hosts, profile));
    clock.now += DAY;
    const changed = new Set(hosts.filter((_, i) => i % 20 === 0)); // 5%
    await cache.putMany(batch(hosts, (h) => (changed.has(h) ? withTech(h, ['Nginx', 'Shopify']) : profile(h))));
    // Unmerged: nothing has been replaced yet.
    expect(await cache.past.previous('domain', 'h0.example')).toBeNull();
    await cache.close();
    const reopened = await openCache({ dir, clock: () => clock.now });
    expect((await reopened.stats()).history).toBe(changed.size);
    for (const h of hosts) {
      const past = await reopened.past.history('domain', h);
      if (changed.has(h)) expect(past).toEqual([{ status: 'found', body: profile(h), fetchedAt: t0, replacedAt: t0 + DAY }]);
      else expect(past).toEqual([]);
    }
    await reopened.close();
  });

  it('merges past MERGE_EVERY answers keep history too', async () => {
    const { cache, clock } = await clockedCache();
    const hosts = Array.from({ length: MERGE_EVERY }, (_, i) => `m${i}.example`);
    await cache.putMany(batch(hosts, profile));
    clock.now += DAY;
    await cache.putMany(batch(hosts, (h) => withTech(h, ['Nginx', 'Shopify']))); // the append reaches MERGE_EVERY: merged now
    expect(await cache.past.previous('domain', 'm7.example')).toMatchObject({ body: profile('m7.example') });
    expect((await cache.stats()).history).toBe(MERGE_EVERY);
    await cache.close();
  });

  it('bodies compare canonically: the same data in another key order, through the validator, adds nothing', async () => {
    const { cache, clock } = await clockedCache();
    const sent = { domain: 'k.example', resolves: true, technologies: ['Nginx'], traffic: null, employees: null, platform: 'x' };
    const shuffled = Object.fromEntries(Object.entries(sent).reverse());
    await putOne(cache, 'domain', 'k.example', 'found', readProfile(sent, 'batch'));
    clock.now += DAY;
    await putOne(cache, 'domain', 'k.example', 'found', readProfile({ ...shuffled, extra: 'dropped' }, 'batch'));
    expect(await cache.past.history('domain', 'k.example')).toEqual([]);
    clock.now += DAY;
    await putOne(cache, 'domain', 'k.example', 'found', readProfile({ ...shuffled, platform: 'y' }, 'batch'));
    expect(await cache.past.history('domain', 'k.example')).toHaveLength(1);
    await cache.close();
  });

  it('prune drops the history of pruned answers, --history drops old history, clear drops it all', async () => {
    const { cache, clock } = await clockedCache();
    await putOne(cache, 'domain', 'old.example', 'found', profile('old.example'));
    await putOne(cache, 'domain', 'kept.example', 'found', profile('kept.example'));
    clock.now += DAY;
    await putOne(cache, 'domain', 'old.example', 'missing', null);
    await putOne(cache, 'domain', 'kept.example', 'missing', null);
    clock.now += 10 * DAY;
    await putOne(cache, 'domain', 'kept.example', 'found', profile('kept.example')); // history: found (day 0), missing (day 1)
    expect((await cache.stats()).history).toBe(3);
    // old.example's answer (day 1) is older than 5 days: it goes, and its history with it.
    expect(await cache.prune(5 * DAY)).toBe(1);
    expect(await cache.past.history('domain', 'old.example')).toEqual([]);
    expect(await cache.past.history('domain', 'kept.example')).toHaveLength(2);
    // Now is day 11. History replaced more than 9 days ago: the first (replaced at day 1) goes, the second (day 11) stays.
    expect(await cache.pruneHistory(9 * DAY)).toBe(1);
    expect(await cache.past.history('domain', 'kept.example')).toMatchObject([{ status: 'missing' }]);
    expect(await cache.pruneHistory(Infinity)).toBe(0);
    expect(await cache.clear()).toBe(1);
    expect((await cache.stats()).history).toBe(0);
    await cache.close();
  });

  it('an older build file (version 2, no history) gains the table and trigger and keeps its answers', async () => {
    const dir = tempDir();
    const old = new Sqlite(path.join(dir, 'cache.sqlite'));
    old.exec(`CREATE TABLE answers (endpoint TEXT NOT NULL, host TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('found', 'missing')),
      body TEXT, fetched_at INTEGER NOT NULL, PRIMARY KEY (endpoint, host)) WITHOUT ROWID; PRAGMA user_version = 2;`);
    old.prepare('INSERT INTO answers VALUES (?, ?, ?, ?, ?)').run('domain', 'o.example', 'found', JSON.stringify(profile('o.example')), 1000);
    old.close();
    const cache = await openCache({ dir, clock: () => 2000 });
    // Its answers say nothing of a fetch before them (the column is new): read as never fetched before.
    expect((await get(cache, 'domain', 'o.example', Number.POSITIVE_INFINITY))?.previousAt).toBeNull();
    await putOne(cache, 'domain', 'o.example', 'missing', null);
    expect(await cache.past.history('domain', 'o.example')).toEqual([{ status: 'found', body: profile('o.example'), fetchedAt: 1000, replacedAt: 2000 }]);
    expect((await get(cache, 'domain', 'o.example', Number.POSITIVE_INFINITY))?.previousAt).toBe(1000);
    await cache.close();
  });

  it('keeps when each host was fetched before its answer, changed or not, through a lone answer and the journal', async () => {
    const { cache, clock, dir } = await clockedCache();
    const t0 = clock.now;
    const previous = async (c: typeof cache, host: string) => (await get(c, 'domain', host, Number.POSITIVE_INFINITY))?.previousAt;
    // Lone answers go straight into the table.
    await putOne(cache, 'domain', 'a.example', 'found', profile('a.example'));
    expect(await previous(cache, 'a.example')).toBeNull(); // a first fetch
    clock.now += DAY;
    await putOne(cache, 'domain', 'a.example', 'found', profile('a.example')); // the same again
    expect(await previous(cache, 'a.example')).toBe(t0);
    clock.now = t0;
    await cache.putMany(batch(['b.example', 'c.example'], profile));
    clock.now += DAY;
    await cache.putMany(batch(['b.example', 'c.example'], (h) => (h === 'b.example' ? withTech(h, ['Shopify']) : profile(h))));
    // Not merged yet: this connection knows the answer, not the fetch before it.
    expect(await previous(cache, 'b.example')).toBeUndefined();
    await cache.close();
    const again = await openCache({ dir });
    for (const host of ['a.example', 'b.example', 'c.example']) expect(await previous(again, host)).toBe(t0);
    await again.close();
  });
  it("a profile's age_days alone moving (a service counting it to today) keeps nothing; the first build's trigger is replaced", async () => {
    const { cache, clock, dir } = await clockedCache();
    const aged = (host: string, days: number, technologies?: string[]) => ({ ...profile(host), age_days: days, ...(technologies ? { technologies } : {}) });
    await putOne(cache, 'domain', 'a.example', 'found', aged('a.example', 100));
    await cache.close();
    // A file the first build with history wrote: its trigger compared whole bodies.
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'));
    raw.exec(`CREATE TRIGGER answers_history AFTER UPDATE OF status, body ON answers WHEN old.body IS NOT new.body
      BEGIN INSERT INTO history (endpoint, host, status, body, fetched_at, replaced_at) VALUES (old.endpoint, old.host, old.status, old.body, old.fetched_at, new.fetched_at); END;`);
    raw.close();
    const again = await openCache({ dir, clock: () => clock.now });
    const triggers = () => {
      const db = new Sqlite(path.join(dir, 'cache.sqlite'), { readonly: true });
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all();
      db.close();
      return names;
    };
    expect(triggers()).toEqual(['answers_history_2']);
    clock.now += DAY;
    await putOne(again, 'domain', 'a.example', 'found', aged('a.example', 101));
    expect(await again.past.history('domain', 'a.example')).toEqual([]);
    expect((await get(again, 'domain', 'a.example', Number.POSITIVE_INFINITY))?.body).toMatchObject({ age_days: 101 });
    clock.now += DAY;
    await putOne(again, 'domain', 'a.example', 'found', aged('a.example', 102, ['Shopify']));
    expect(await again.past.history('domain', 'a.example')).toMatchObject([{ body: { age_days: 101 } }]);
    await again.close();
  });
});
