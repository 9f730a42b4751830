import { afterEach, describe, expect, it } from 'vitest';
import { DomainIntelClient } from '../../src/api/client.js';
import { InvalidKeyError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/run/limit/limiter.js';
import { dispatchStage, harness, type Harness } from '../helpers/run.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('Dispatcher against the sandbox', () => {
  it('sends at most 100 distinct hosts per batch, stores every answer, and settles each waiting row', async () => {
    h = await harness({ rpm: 0 });
    const d = dispatchStage(h, 'profile');
    const held = h.sb.hostList().slice(0, 240);
    const hosts = [...held, 'absent-a.example', 'absent-b.example', held[3]!];
    for (const host of hosts) d.want(host);
    d.dispatcher.pump();
    const rows = await d.settled();

    expect(rows.map((r) => r.host)).toEqual(hosts);
    expect(rows.filter((r) => r.status === 'found').length).toBe(241); // the repeat of held[3] shares its answer
    expect(rows.slice(240, 242).map((r) => r.status)).toEqual(['missing', 'missing']);
    expect(rows[242]!.data).toEqual(rows[3]!.data);
    const batches = h.sb.requests().filter((r) => r.operation === 'batch');
    expect(batches.map((b) => b.hosts.length).sort((a, b) => b - a)).toEqual([100, 100, 42]);
    expect(d.stats).toMatchObject({ requests: 3, lookupsSpent: 242, found: 241, missing: 2, errors: 0, stoppedBy: null });
    const stored = await h.cache.getMany('domain', [held[0]!, 'absent-a.example'], 60_000);
    expect(stored.get(held[0]!)?.status).toBe('found');
    expect(stored.get('absent-a.example')?.status).toBe('missing');
  });

  it('holds a partial batch while input flows, and sends it when asked to', async () => {
    h = await harness({ rpm: 0 });
    const d = dispatchStage(h, 'profile');
    d.input.done = false;
    for (const host of h.sb.hostList().slice(0, 30)) d.want(host);
    d.dispatcher.pump();
    expect(d.dispatcher.inflight).toBe(0);
    expect(h.sb.requests().length).toBe(0);
    d.dispatcher.sendPartial();
    expect(d.dispatcher.inflight).toBe(1);
    const rows = await d.settled();
    expect(rows.length).toBe(30);
    expect(h.sb.requests().length).toBe(1);
  });

  it('stops at --max-lookups with the budget as the reason, and says so on every row it did not send', async () => {
    h = await harness({ rpm: 0 });
    const d = dispatchStage(h, 'profile', { maxLookups: 150, concurrency: 1 });
    for (const host of h.sb.hostList().slice(0, 250)) d.want(host);
    d.dispatcher.pump();
    const rows = await d.settled();
    expect(h.sb.charges().total).toBe(150);
    expect(d.stats.stoppedBy).toBe('budget');
    expect(d.dispatcher.stopped).toBe('not looked up: --max-lookups 150 reached');
    expect(rows.filter((r) => r.status === 'error').every((r) => r.reason === d.dispatcher.stopped)).toBe(true);
    expect(d.stats.errors).toBe(100);
    expect(d.dispatcher.cancelled).toBe(false); // a budget stop lets what is in flight finish
  });

  it('keeps the first reason a run stopped for', async () => {
    h = await harness({ rpm: 0 });
    const d = dispatchStage(h, 'traffic');
    d.dispatcher.stop('quota');
    d.dispatcher.stop('aborted', new Error('later'));
    expect(d.stats.stoppedBy).toBe('quota');
    expect(d.dispatcher.stopped).toMatch(/the month's lookups are spent/);
    expect(d.dispatcher.fatal).toBeInstanceOf(Error); // the cause is kept even so
    d.want(h.sb.hostList()[0]!);
    d.dispatcher.pump();
    const rows = await d.settled();
    expect(rows[0]).toMatchObject({ status: 'error', reason: d.dispatcher.stopped });
    expect(h.sb.requests().length).toBe(0);
  });

  it('stops for a refused key (401): cancels the rest, keeps the error to end the run with', async () => {
    h = await harness({ rpm: 0 });
    const client = new DomainIntelClient({ baseUrl: h.sb.baseUrl, apiKey: 'di_live_not-a-key-at-all-000000' });
    const d = dispatchStage(h, 'traffic', { client, concurrency: 1 });
    for (const host of h.sb.hostList().slice(0, 5)) d.want(host);
    d.dispatcher.pump();
    const rows = await d.settled();
    await client.close();
    expect(d.stats.stoppedBy).toBe('key');
    expect(d.dispatcher.fatal).toBeInstanceOf(InvalidKeyError);
    expect(d.dispatcher.cancelled).toBe(true);
    expect(rows.every((r) => r.status === 'error' && r.reason === 'not looked up: no usable API key (missing, malformed or refused)')).toBe(true);
    expect(d.stats.requests).toBe(1);
  });

  it('answers a 404 of a per-host endpoint as missing, and charges it', async () => {
    h = await harness({ rpm: 0 });
    const d = dispatchStage(h, 'traffic');
    d.want('nobody-holds-this.example');
    d.dispatcher.pump();
    const rows = await d.settled();
    expect(rows[0]).toMatchObject({ status: 'missing', data: null });
    expect(d.stats.lookupsSpent).toBe(1);
    expect((await h.cache.getMany('traffic', ['nobody-holds-this.example'], 60_000)).get('nobody-holds-this.example')?.status).toBe('missing');
  });

  it('follows the retry policy: backs off up to its retries, then gives up with the reason on the row', async () => {
    h = await harness({ rpm: 0, faults: { unavailable: 1 } });
    const d = dispatchStage(h, 'traffic', { limits: { retries: 2, maxRateLimitWaits: 10, timeoutMs: 30_000 } });
    d.want(h.sb.hostList()[0]!);
    d.dispatcher.pump();
    const rows = await d.settled();
    expect(d.stats).toMatchObject({ requests: 3, retries: 2, errors: 1, lookupsSpent: 0 });
    expect(rows[0]!.reason).toMatch(/after 2 retries/);
    expect(d.events.filter((e) => e.type === 'retry').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
  });

  it('sits out no more 429s than the policy allows', async () => {
    h = await harness({ rpm: 1, windowMs: 60_000 });
    const d = dispatchStage(h, 'traffic', { concurrency: 1, limits: { retries: 4, maxRateLimitWaits: 0, timeoutMs: 30_000 } });
    for (const host of h.sb.hostList().slice(0, 2)) d.want(host);
    d.dispatcher.pump();
    const rows = await d.settled();
    expect(rows[0]!.status).toBe('found');
    expect(rows[1]).toMatchObject({ status: 'error', reason: 'still rate limited after 0 waits' });
    expect(d.stats.rateLimited).toBe(1);
    expect(d.events.some((e) => e.type === 'rate-limited')).toBe(true);
  });

  it('after a 402 sends nothing new: batches waiting for a slot when it came are not sent', async () => {
    h = await harness({ rpm: 0 });
    h.sb.setRemaining(0);
    // One request per 300 ms window: the second and third batches wait for their slots when the 402 lands.
    const limiter = new RateLimiter({ limit: 1, windowMs: 300, given: true });
    const d = dispatchStage(h, 'profile', { concurrency: 3, limiter });
    for (const host of h.sb.hostList().slice(0, 300)) d.want(host);
    d.dispatcher.pump();
    const rows = await d.settled();
    expect(h.sb.requests().map((r) => r.status)).toEqual([402]);
    expect(d.stats).toMatchObject({ stoppedBy: 'quota', lookupsSpent: 0, errors: 300, requests: 1 });
    expect(h.sb.charges().total).toBe(d.stats.lookupsSpent);
    expect(rows.every((r) => r.status === 'error' && /lookups are spent/.test(r.reason ?? ''))).toBe(true);
    expect(d.events.filter((e) => e.type === 'quota-exhausted').length).toBe(1);
  });
});
