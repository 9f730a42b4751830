import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type ChargeReport, type Sandbox, type SandboxInfo } from '../../src/sandbox/index.js';
import { call } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ hosts: 200, rpm: 1, windowMs: 60_000, plan: 'pro', faults: { unavailable: 1 } });
});
afterAll(() => sb.close());

const admin = (path: string, body?: unknown) =>
  call(sb, `/__sandbox/${path}`, { key: null, method: body === undefined && !path.match(/^(reset-counters|pack|key)$/) ? 'GET' : 'POST', body });

describe('admin routes', () => {
  it('describes the sandbox', async () => {
    const res = await admin('info');
    expect(res.status).toBe(200);
    const info = res.json as SandboxInfo;
    expect(info).toMatchObject({ baseUrl: sb.baseUrl, url: sb.url, key: sb.key, plan: 'pro', limit: 2000, rpm: 1, windowMs: 60_000, hosts: 200 });
    expect(info).toEqual(sb.info());
    expect((await admin('hosts')).json).toEqual(sb.hostList());
  });

  it('is never authenticated, rate limited, metered, faulted or logged', async () => {
    for (let i = 0; i < 5; i++) expect((await admin('charges')).status).toBe(200);
    expect(sb.requests()).toEqual([]);
    expect(sb.charges().requests).toBe(0);
  });

  it('reports charges and requests, and resets the counters', async () => {
    await call(sb, 'domain/abc.com');
    const report = (await admin('charges')).json as ChargeReport;
    expect(report).toMatchObject({ requests: 1, unavailable: 1, limit: 2000, remaining: 2000 });
    expect((await admin('requests')).json).toEqual(sb.requests());
    expect((await admin('reset-counters')).json).toEqual({ ok: true });
    expect(sb.requests()).toEqual([]);
  });

  it('sets remaining, adds packs, creates and revokes keys', async () => {
    expect((await admin('remaining', { remaining: 5 })).json).toEqual({ ok: true, remaining: 5 });
    expect((await admin('pack')).json).toEqual({ ok: true, limit: 27_000, remaining: 25_005 });
    // A plan lowered mid-month: the limit drops by the allowance, what was used stays used.
    expect((await admin('allowance', { allowance: 1000 })).json).toEqual({ ok: true, limit: 26_000, remaining: 24_005 });
    const limited = await call(sb, 'domain/abc.com');
    expect(limited.headers.get('x-quota-limit')).toBe('26000');
    expect((await admin('allowance', { allowance: 2000 })).json).toEqual({ ok: true, limit: 27_000, remaining: 25_005 });
    const key = ((await admin('key')).json as { key: string }).key;
    expect(key).toMatch(/^di_live_[0-9a-f]{48}$/);
    expect((await call(sb, 'meta/technologies', { key })).status).toBe(200);
    expect((await admin('revoke', { key })).json).toEqual({ ok: true });
    expect((await call(sb, 'meta/technologies', { key })).status).toBe(401);
  });

  it('answers 400 for bad bodies and 404 for unknown routes', async () => {
    expect((await admin('remaining', { remaining: -1 })).status).toBe(400);
    expect((await admin('allowance', { allowance: 'a lot' })).status).toBe(400);
    expect((await admin('revoke', {})).status).toBe(400);
    expect((await admin('nope')).status).toBe(404);
  });
});

describe('options', () => {
  it('uses the plan limits and keeps the seeded key across restarts', async () => {
    const a = await startSandbox({ hosts: 10, plan: 'business-plus', seed: 'x' });
    const b = await startSandbox({ hosts: 10, seed: 'x', quota: 7, rpm: 9 });
    expect(a.info()).toMatchObject({ limit: 250_000, rpm: 600, windowMs: 60_000, resetStyle: 'iso' });
    expect(b.info()).toMatchObject({ plan: 'business', limit: 7, rpm: 9 });
    expect(a.key).toBe(b.key);
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(a.baseUrl).toBe(`${a.url}/api/v1`);
    await Promise.all([a.close(), b.close()]);
  });

  it('rejects bad options', async () => {
    await expect(startSandbox({ plan: 'free' as never })).rejects.toThrow(RangeError);
    await expect(startSandbox({ resetStyle: 'header' as never })).rejects.toThrow(RangeError);
    await expect(startSandbox({ rpm: -1 })).rejects.toThrow(RangeError);
  });
});
