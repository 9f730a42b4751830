// The feed over a real cache on a hand-moved clock: what each host reports by default and at --since, the
// net change across several answers, hosts not held, and --all's pages.
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/changes/events.js';
import { changeFeed, type FeedStats } from '../../src/changes/feed.js';
import { hostsWithHistory } from '../../src/changes/hosts.js';
import type { AnswerCache } from '../../src/store/sqlite/cache.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { clockedCache, DAY, get } from '../store/cache-helpers.js';

const body = (domain: string, technologies: string[], band = '10K-100K') => ({
  domain,
  technologies,
  traffic: { estimated_monthly_visits: 50_000, band, as_of: '2026-01' },
});
const put = (cache: AnswerCache, host: string, b: unknown) => cache.putMany([{ endpoint: 'domain', host, status: b === null ? 'missing' : 'found', body: b }]);
const none = { fields: null, tech: null };

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function feed(cache: AnswerCache, hosts: string[], since: number | null = null): Promise<{ events: ChangeEvent[]; stats: FeedStats }> {
  const stats: FeedStats = { compared: 0, notHeld: 0, changed: 0, events: 0 };
  const events: ChangeEvent[] = [];
  for await (const batch of changeFeed({ reads: cache.past, hosts, since, filter: none }, stats)) events.push(...batch);
  return { events, stats };
}

/** Opens the cache again: what the feed reads is merged, as it is for the `changes` command (a fresh open). */
async function reopened(cache: AnswerCache, dir: string, clock: { now: number }): Promise<AnswerCache> {
  await cache.close();
  return openCache({ dir, clock: () => clock.now });
}

describe('the change feed', () => {
  it('reports the latest against the answer it replaced, field by field, at the time the latest was first seen', async () => {
    const { cache, clock, dir } = await clockedCache();
    await put(cache, 'a.example', body('a.example', ['Nginx', 'HubSpot']));
    await put(cache, 'same.example', body('same.example', ['Nginx']));
    await put(cache, 'gone.example', body('gone.example', ['Nginx']));
    await put(cache, 'back.example', null);
    clock.now += DAY;
    const t1 = clock.now;
    await put(cache, 'a.example', body('a.example', ['Nginx', 'Shopify'], '100K-1M'));
    await put(cache, 'same.example', body('same.example', ['Nginx']));
    await put(cache, 'gone.example', null);
    await put(cache, 'back.example', body('back.example', ['Nginx']));
    const again = await reopened(cache, dir, clock);
    const { events, stats } = await feed(again, ['a.example', 'same.example', 'gone.example', 'back.example', 'never.example']);
    expect(events).toEqual([
      { host: 'a.example', field: 'technologies', from: ['Nginx', 'HubSpot'], to: ['Nginx', 'Shopify'], at: t1, added: ['Shopify'], removed: ['HubSpot'] },
      { host: 'a.example', field: 'traffic_band', from: '10K-100K', to: '100K-1M', at: t1 },
      { host: 'gone.example', field: 'status', from: 'found', to: 'missing', at: t1 },
      { host: 'back.example', field: 'status', from: 'missing', to: 'found', at: t1 },
    ]);
    expect(stats).toEqual({ compared: 4, notHeld: 1, changed: 3, events: 4 });
    await again.close();
  });

  it('--since compares the answer held then; before the oldest known answer it stands in; an undone change is no change', async () => {
    const { cache, clock, dir } = await clockedCache();
    const t0 = clock.now;
    await put(cache, 'a.example', body('a.example', ['A']));
    await put(cache, 'undo.example', body('undo.example', ['A']));
    await put(cache, 'once.example', body('once.example', ['A']));
    clock.now += DAY;
    const t1 = clock.now;
    await put(cache, 'a.example', body('a.example', ['B']));
    await put(cache, 'undo.example', body('undo.example', ['B']));
    clock.now += DAY;
    const t2 = clock.now;
    await put(cache, 'a.example', body('a.example', ['C']));
    await put(cache, 'undo.example', body('undo.example', ['A']));
    const again = await reopened(cache, dir, clock);
    const techs = async (since: number | null) =>
      (await feed(again, ['a.example', 'undo.example', 'once.example'], since)).events.map((e) => [e.host, e.from, e.to, e.at]);
    expect(await techs(null)).toEqual([
      ['a.example', ['B'], ['C'], t2],
      ['undo.example', ['B'], ['A'], t2],
    ]);
    // Held at a moment between the first and second fetch: the first answer; undo.example is back where it was.
    expect(await techs(t0 + 1)).toEqual([['a.example', ['A'], ['C'], t2]]);
    // Before anything was fetched: the oldest answer known stands in (first fetches are not told from refetches).
    expect(await techs(t0 - DAY)).toEqual([['a.example', ['A'], ['C'], t2]]);
    expect(await techs(t1)).toEqual([
      ['a.example', ['B'], ['C'], t2],
      ['undo.example', ['B'], ['A'], t2],
    ]);
    expect(await techs(t2)).toEqual([]);
    await again.close();
  });

  it("reads a running refresh's answers once opening the cache has merged them, never the journal's overlay alone", async () => {
    const { cache, clock, dir } = await clockedCache();
    await put(cache, 'a.example', body('a.example', ['A']));
    const running = await reopened(cache, dir, clock);
    clock.now += DAY;
    // A refresh of two answers goes to the journal; its connection stays open, so it has not merged them.
    await running.putMany([
      { endpoint: 'domain', host: 'a.example', status: 'found', body: body('a.example', ['B']) },
      { endpoint: 'domain', host: 'b.example', status: 'found', body: body('b.example', ['B']) },
    ]);
    // Its own connection reads the new answer (the overlay), but nothing is replaced in the history yet: the
    // feed reads the merged answer as the latest, so both sides agree and it reports no half-change.
    expect((await get(running, 'domain', 'a.example', Number.POSITIVE_INFINITY))?.body).toEqual(body('a.example', ['B']));
    expect((await feed(running, ['a.example', 'b.example'])).stats).toMatchObject({ compared: 1, notHeld: 1, events: 0 });
    // The `changes` command opens the cache, which merges what is waiting: the change is there, with its history.
    const reader = await openCache({ dir, clock: () => clock.now });
    expect((await feed(reader, ['a.example', 'b.example'])).events.map((e) => [e.host, e.from, e.to])).toEqual([['a.example', ['A'], ['B']]]);
    await reader.close();
    await running.close();
  });

  it('--all walks every host with a past, page by page, each once, in host order', async () => {
    const { cache, clock, dir } = await clockedCache();
    const hosts = Array.from({ length: 1203 }, (_, i) => `h${String(i).padStart(4, '0')}.example`);
    const answers = (tech: string) => hosts.map((host) => ({ endpoint: 'domain', host, status: 'found' as const, body: body(host, [tech]) }));
    await cache.putMany(answers('A'));
    await cache.putMany([{ endpoint: 'domain', host: 'plain.example', status: 'found', body: body('plain.example', ['A']) }]);
    clock.now += DAY;
    await cache.putMany(answers('B'));
    const again = await reopened(cache, dir, clock);
    expect(await collect(hostsWithHistory(again.past, 'domain'))).toEqual(hosts);
    // The feed asks about hosts by the chunk: across chunks, each host once.
    const all = await feed(again, [...hosts, 'plain.example', 'never.example']);
    expect(all.stats).toEqual({ compared: 1204, notHeld: 1, changed: 1203, events: 1203 });
    expect(all.events.map((e) => e.host)).toEqual(hosts);
    expect(await again.past.hostsWithHistory('domain', 'h0001.example', 2)).toEqual(['h0002.example', 'h0003.example']);
    expect(await again.past.hostsWithHistory('traffic', null, 10)).toEqual([]);
    await again.close();
  });
});
