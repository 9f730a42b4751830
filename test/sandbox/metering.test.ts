import { afterEach, describe, expect, it } from 'vitest';
import { PACK_SIZE, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { batch, call, fakeClock } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const remainingOf = (res: { headers: Headers }): number => Number(res.headers.get('x-quota-remaining'));

describe('metering (§8.6)', () => {
  it('charges 1 per domain, traffic and employees lookup, found or not, and nothing for free or refused calls', async () => {
    sb = await startSandbox({ quota: 1000 });
    const s = sb;
    const [held] = s.hostList() as [string];
    const steps: [string, number][] = [
      [`domain/${held}`, 1],
      ['domain/not-held.example', 1],
      [`traffic/${held}`, 1],
      ['traffic/not-held.example', 1],
      [`employees/www.${s.dataset.apexOf(held)}`, 1],
      ['employees/not-held.example', 1],
      ['technology/Node.js', 0],
      ['technology/Not%20A%20Tech', 0],
      ['meta/technologies', 0],
      ['domain/bad_host', 0],
      ['traffic/x', 0],
      ['nope', 0],
    ];
    let expected = 1000;
    for (const [path, cost] of steps) {
      const res = await call(s, path);
      expected -= cost;
      expect(s.charges().remaining, path).toBe(expected);
      if (res.headers.get('x-quota-remaining') !== null) expect(remainingOf(res), path).toBe(expected);
    }
    await call(s, `domain/${held}`, { key: null });
    const report = s.charges();
    expect(report.total).toBe(6);
    expect(report.byEndpoint).toEqual({ domain: 2, traffic: 2, employees: 2 });
    expect(report.byHost[held]).toBe(2);
    expect(report.byHost['not-held.example']).toBe(3);
    expect(report.requests).toBe(steps.length + 1);
    expect(s.requests().map((r) => r.charged)).toEqual([...steps.map(([, cost]) => cost), 0]);
  });

  it('charges a batch 1 per distinct host, found or not', async () => {
    sb = await startSandbox({ quota: 1000 });
    const [a, b] = sb.hostList() as [string, string];
    const res = await batch(sb, [a, b, a, 'gone.example', a.toUpperCase(), 'gone.example']);
    expect(res.status).toBe(200);
    expect(remainingOf(res)).toBe(997);
    expect(sb.charges()).toMatchObject({ total: 3, byEndpoint: { batch: 3 }, byHost: { [a]: 1, [b]: 1, 'gone.example': 1 } });
    expect(sb.requests()[0]?.hosts).toEqual([a, b, 'gone.example']);
    await batch(sb, ['bad host']);
    expect(sb.charges().total).toBe(3);
  });

  it('answers 402 quota_exhausted when nothing remains, on every metered endpoint, spending nothing', async () => {
    sb = await startSandbox({ plan: 'pro' });
    expect(sb.charges().limit).toBe(2000);
    sb.setRemaining(0);
    const [held] = sb.hostList() as [string];
    for (const res of [await call(sb, `domain/${held}`), await call(sb, `traffic/${held}`), await call(sb, `employees/${held}`), await batch(sb, [held])]) {
      expect(res.status).toBe(402);
      expect(res.json).toEqual({ error: 'quota_exhausted' });
      expect(res.headers.get('x-quota-limit')).toBe('2000');
      expect(remainingOf(res)).toBe(0);
    }
    expect((await call(sb, 'technology/Node.js')).status).toBe(200);
    expect((await call(sb, 'meta/technologies')).status).toBe(200);
    expect(sb.charges()).toMatchObject({ total: 0, quotaExhausted: 4, remaining: 0 });
  });

  it('refuses a batch costing more than what remains, whole, and serves one that fits', async () => {
    sb = await startSandbox();
    sb.setRemaining(2);
    const hosts = sb.hostList().slice(0, 3);
    const over = await batch(sb, hosts);
    expect(over.status).toBe(402);
    expect(sb.charges().total).toBe(0);
    const fits = await batch(sb, hosts.slice(0, 2));
    expect(fits.status).toBe(200);
    expect(remainingOf(fits)).toBe(0);
    expect((await call(sb, `domain/${hosts[0]}`)).status).toBe(402);
  });

  it('adds 25000 lookups per pack', async () => {
    sb = await startSandbox({ plan: 'pro' });
    sb.setRemaining(0);
    sb.addPack();
    expect(sb.charges()).toMatchObject({ limit: 2000 + PACK_SIZE, remaining: PACK_SIZE });
    const res = await call(sb, `domain/${sb.hostList()[0]}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-quota-limit')).toBe(String(2000 + PACK_SIZE));
    expect(remainingOf(res)).toBe(PACK_SIZE - 1);
  });

  it('renews the allowance on the first of the month and reports that instant in X-Quota-Reset', async () => {
    const clock = fakeClock(Date.UTC(2025, 0, 31, 23, 59, 59));
    sb = await startSandbox({ plan: 'business-plus', clock: clock.now });
    sb.addPack();
    sb.setRemaining(0);
    const before = await call(sb, `domain/${sb.hostList()[0]}`);
    expect(before.status).toBe(402);
    expect(before.headers.get('x-quota-reset')).toBe('2025-02-01T00:00:00.000Z');
    clock.set(Date.UTC(2025, 1, 1));
    const after = await call(sb, `domain/${sb.hostList()[0]}`);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-quota-limit')).toBe('250000');
    expect(remainingOf(after)).toBe(249_999);
    expect(after.headers.get('x-quota-reset')).toBe('2025-03-01T00:00:00.000Z');
  });

  it('clears the logs but not the quota on resetCounters', async () => {
    sb = await startSandbox({ quota: 10 });
    await call(sb, `domain/${sb.hostList()[0]}`);
    sb.resetCounters();
    expect(sb.charges()).toEqual({
      total: 0,
      byHost: {},
      byEndpoint: {},
      requests: 0,
      rateLimited: 0,
      quotaExhausted: 0,
      unavailable: 0,
      remaining: 9,
      limit: 10,
    });
    expect(sb.requests()).toEqual([]);
  });

  it('logs the Authorization header exactly as received', async () => {
    sb = await startSandbox();
    await call(sb, 'meta/technologies');
    await call(sb, 'meta/technologies', { authorization: 'Token nope' });
    expect(sb.requests().map((r) => r.authorization)).toEqual([`Bearer ${sb.key}`, 'Token nope']);
    expect(sb.requests()[0]).toMatchObject({ method: 'GET', path: '/api/v1/meta/technologies', operation: 'catalog', status: 200, charged: 0 });
  });
});
