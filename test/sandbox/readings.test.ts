// Every reading of the spec's open points, one test per value, over real HTTP; what was charged is read
// from the sandbox.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_READINGS, READING_CHOICES, type Readings, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { type Answer, batch, call, fakeClock } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function open(options: SandboxOptions): Promise<{ s: Sandbox; held: string[] }> {
  sb = await startSandbox({ hosts: 200, quota: 1000, ...options });
  return { s: sb, held: sb.hostList() };
}

const remainingOf = (res: Answer): number => Number(res.headers.get('x-quota-remaining'));
const admin = (s: Sandbox, path: string, body?: unknown) =>
  call(s, `/__sandbox/${path}`, { key: null, method: body === undefined && path !== 'rollover' ? 'GET' : 'POST', body });

describe('defaults', () => {
  it('are the first choice of each reading, reported by info() and the admin route', async () => {
    const { s } = await open({});
    for (const [name, choices] of Object.entries(READING_CHOICES)) expect(DEFAULT_READINGS[name as keyof Readings], name).toBe(choices[0]);
    expect(s.readings()).toEqual(DEFAULT_READINGS);
    expect(s.info()).toMatchObject({ ...DEFAULT_READINGS, slowMs: 2000 });
    expect((await admin(s, 'readings')).json).toEqual(DEFAULT_READINGS);
  });

  it('rejects a bad reading at start', async () => {
    await expect(startSandbox({ hosts: 10, allAbsent: 'gone' as never })).rejects.toThrow(/allAbsent must be one of empty, not-found/);
    await expect(startSandbox({ hosts: 10, revokeAfter: -1 })).rejects.toThrow(RangeError);
    await expect(startSandbox({ hosts: 10, slowRequests: [0] })).rejects.toThrow(RangeError);
    await expect(startSandbox({ hosts: 10, freeLimited: 'yes' as never })).rejects.toThrow(RangeError);
  });
});

describe('allAbsent', () => {
  it("'empty': an all-absent batch is 200 with empty data, charged per host", async () => {
    const { s } = await open({ allAbsent: 'empty' });
    const res = await batch(s, ['absent-one.example', 'absent-two.example', 'absent-one.example']);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [], missing: ['absent-one.example', 'absent-two.example'] });
    expect(remainingOf(res)).toBe(998);
    expect(s.charges()).toMatchObject({ total: 2, byEndpoint: { batch: 2 }, byHost: { 'absent-one.example': 1, 'absent-two.example': 1 } });
  });

  it("'not-found': an all-absent batch is 404 not_found with quota headers, still charged per host", async () => {
    const { s, held } = await open({ allAbsent: 'not-found' });
    const res = await batch(s, ['absent-one.example', 'absent-two.example']);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'not_found' });
    expect(remainingOf(res)).toBe(998);
    expect(res.headers.get('x-quota-limit')).toBe('1000');
    expect(res.headers.get('x-quota-reset')).not.toBeNull();
    expect(s.charges()).toMatchObject({ total: 2, byHost: { 'absent-one.example': 1, 'absent-two.example': 1 } });
    expect(s.requests()[0]).toMatchObject({ status: 404, charged: 2 });
    // One held host is enough for an ordinary answer.
    const mixed = await batch(s, ['absent-one.example', held[0]]);
    expect(mixed.status).toBe(200);
    expect(mixed.json).toEqual({ data: [s.dataset.profile(held[0] as string)], missing: ['absent-one.example'] });
    expect(s.charges().total).toBe(4);
  });
});

describe('overQuota', () => {
  it("'refuse': a batch costing more than what is left is 402 whole, nothing charged", async () => {
    const { s, held } = await open({ overQuota: 'refuse' });
    s.setRemaining(2);
    const res = await batch(s, [held[0], 'absent-one.example', held[1]]);
    expect(res.status).toBe(402);
    expect(res.json).toEqual({ error: 'quota_exhausted' });
    expect(remainingOf(res)).toBe(2);
    expect(s.charges()).toMatchObject({ total: 0, quotaExhausted: 1, remaining: 2 });
  });

  it("'partial': the first `remaining` distinct hosts are served and charged, the rest are in neither list", async () => {
    const { s, held } = await open({ overQuota: 'partial', order: 'reversed' });
    s.setRemaining(2);
    const [a, b] = held as [string, string];
    const res = await batch(s, [a, a, 'absent-one.example', b]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [s.dataset.profile(a)], missing: ['absent-one.example'] });
    expect(remainingOf(res)).toBe(0);
    expect(s.charges()).toMatchObject({ total: 2, byHost: { [a]: 1, 'absent-one.example': 1 }, remaining: 0 });
    expect(s.charges().byHost[b]).toBeUndefined();
    expect(s.requests()[0]?.hosts).toEqual([a, 'absent-one.example']);
    // Nothing left: nothing to serve, so the whole batch is refused.
    const next = await batch(s, [b]);
    expect(next.status).toBe(402);
    expect(s.charges().total).toBe(2);
  });
});

describe('order', () => {
  const submitted = (held: string[]) => [held[2], 'zz-absent.example', held[0], 'aa-absent.example', held[1]] as string[];
  const expected = {
    submitted: (l: string[]) => l,
    reversed: (l: string[]) => [...l].reverse(),
    sorted: (l: string[]) => [...l].sort(),
  };
  it.each(READING_CHOICES.order)("'%s': data and missing come in that order", async (order) => {
    const { s, held } = await open({ order });
    const hosts = submitted(held);
    const res = await batch(s, hosts);
    expect(res.status).toBe(200);
    const ordered = expected[order](hosts);
    const body = res.json as { data: { domain: string }[]; missing: string[] };
    expect(body.data.map((p) => p.domain)).toEqual(ordered.filter((h) => s.dataset.isHeld(h)));
    expect(body.missing).toEqual(ordered.filter((h) => !s.dataset.isHeld(h)));
    expect(s.charges().total).toBe(5);
  });
});

describe('missingCase', () => {
  it.each([
    ['lower', ['absent-one.example', 'absent-two.example']],
    ['submitted', ['Absent-One.Example', 'ABSENT-two.example']],
  ] as const)("'%s': missing is spelled %j", async (missingCase, missing) => {
    const { s, held } = await open({ missingCase });
    const res = await batch(s, ['Absent-One.Example', held[0]?.toUpperCase(), 'ABSENT-two.example', 'absent-one.example']);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [s.dataset.profile(held[0] as string)], missing });
    expect(s.charges()).toMatchObject({ total: 3, byHost: { 'absent-one.example': 1, 'absent-two.example': 1 } });
  });
});

describe('upperCase', () => {
  it("'lower': upper-case hostnames are lowered and served", async () => {
    const { s, held } = await open({ upperCase: 'lower' });
    const [a] = held as [string];
    const one = await call(s, `domain/${a.toUpperCase()}`);
    expect(one.status).toBe(200);
    expect((one.json as { data: { domain: string } }).data.domain).toBe(a);
    expect((await batch(s, [a.toUpperCase()])).status).toBe(200);
    expect(s.charges()).toMatchObject({ total: 2, byHost: { [a]: 2 } });
  });

  it("'reject': upper-case hostnames are refused 400, not charged", async () => {
    const { s, held } = await open({ upperCase: 'reject' });
    const [a] = held as [string];
    const upper = a.toUpperCase();
    for (const [path, error] of [
      [`domain/${upper}`, 'bad_domain'],
      [`traffic/${upper}`, 'bad_host'],
      [`employees/${upper}`, 'bad_host'],
    ]) {
      const res = await call(s, path as string);
      expect(res.status, path).toBe(400);
      expect(res.json, path).toEqual({ error });
    }
    const res = await batch(s, [a, 'Absent-One.Example']);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'bad_batch' });
    expect(s.charges().total).toBe(0);
    expect((await call(s, `domain/${a}`)).status).toBe(200);
    expect(s.charges().total).toBe(1);
  });
});

describe('resetStyle', () => {
  it("'none': a 429 names no reset anywhere", async () => {
    const clock = fakeClock(10_000_250);
    const { s, held } = await open({ resetStyle: 'none', rpm: 1, windowMs: 1000, clock: clock.now });
    expect((await call(s, `domain/${held[0]}`)).status).toBe(200);
    const res = await call(s, `domain/${held[0]}`);
    expect(res.status).toBe(429);
    expect(res.json).toEqual({ error: 'rate_limited' });
    expect(res.headers.get('retry-after')).toBeNull();
    expect(remainingOf(res)).toBe(999);
    expect(s.charges()).toMatchObject({ total: 1, rateLimited: 1 });
  });
});

describe('quotaResetStyle', () => {
  // 2026-11-23: the month rolls over on Tuesday 2026-12-01.
  const NEXT = Date.UTC(2026, 11, 1);
  const expected = {
    iso: '2026-12-01T00:00:00.000Z',
    date: '2026-12-01',
    'epoch-s': String(NEXT / 1000),
    'http-date': 'Tue, 01 Dec 2026 00:00:00 GMT',
  };
  it.each(READING_CHOICES.quotaResetStyle)("'%s': X-Quota-Reset in that format", async (quotaResetStyle) => {
    const { s, held } = await open({ quotaResetStyle, clock: () => Date.UTC(2026, 10, 23, 21, 40) });
    for (const path of [`domain/${held[0]}`, 'domain/absent-one.example']) {
      const res = await call(s, path);
      expect(res.headers.get('x-quota-reset'), path).toBe(expected[quotaResetStyle]);
    }
    expect(s.charges().total).toBe(2);
  });
});

describe('window', () => {
  it("'fixed': the count starts again at each window boundary on the clock", async () => {
    const clock = fakeClock(10_000_900);
    const { s, held } = await open({ window: 'fixed', rpm: 2, windowMs: 1000, resetStyle: 'epoch-ms', clock: clock.now });
    const ask = () => call(s, `domain/${held[0]}`);
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    const limited = await ask();
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: 'rate_limited', reset_ms: 10_001_000 });
    clock.set(10_001_000);
    expect((await ask()).status).toBe(200);
    expect(s.charges()).toMatchObject({ total: 3, rateLimited: 1 });
  });

  it("'sliding': the count covers the last windowMs; a 429 resets when the oldest counted request leaves", async () => {
    const clock = fakeClock(10_000_900);
    const { s, held } = await open({ window: 'sliding', rpm: 2, windowMs: 1000, resetStyle: 'epoch-ms', clock: clock.now });
    const ask = () => call(s, `domain/${held[0]}`);
    expect((await ask()).status).toBe(200);
    clock.set(10_000_950);
    expect((await ask()).status).toBe(200);
    expect((await ask()).json).toEqual({ error: 'rate_limited', reset_ms: 10_001_900 });
    // A fixed window would have started afresh here.
    clock.set(10_001_000);
    expect((await ask()).json).toEqual({ error: 'rate_limited', reset_ms: 10_001_900 });
    clock.set(10_001_900);
    expect((await ask()).status).toBe(200);
    expect((await ask()).json).toEqual({ error: 'rate_limited', reset_ms: 10_001_950 });
    expect(s.charges()).toMatchObject({ total: 3, rateLimited: 3 });
  });
});

describe('freeLimited', () => {
  it('false: technology and catalog neither count nor are refused', async () => {
    const { s, held } = await open({ freeLimited: false, rpm: 1, windowMs: 60_000, clock: () => 10_000_250 });
    expect((await call(s, 'meta/technologies')).status).toBe(200);
    expect((await call(s, `domain/${held[0]}`)).status).toBe(200);
    expect((await call(s, `domain/${held[0]}`)).status).toBe(429);
    expect((await call(s, 'technology/Node.js')).status).toBe(200);
    expect((await call(s, 'meta/technologies')).status).toBe(200);
    expect(s.charges()).toMatchObject({ total: 1, rateLimited: 1 });
  });

  it('true: technology and catalog count against the limit and are refused by it', async () => {
    const { s, held } = await open({ freeLimited: true, rpm: 2, windowMs: 60_000, clock: () => 10_000_250 });
    expect((await call(s, 'technology/Node.js')).status).toBe(200);
    expect((await call(s, 'meta/technologies')).status).toBe(200);
    expect((await call(s, `domain/${held[0]}`)).status).toBe(429);
    const tech = await call(s, 'technology/Node.js');
    expect(tech.status).toBe(429);
    expect(tech.json).toMatchObject({ error: 'rate_limited' });
    expect((await call(s, 'meta/technologies')).status).toBe(429);
    expect(s.charges()).toMatchObject({ total: 0, rateLimited: 3 });
  });
});

describe('freeQuotaHeaders', () => {
  const quotaHeaders = (res: Answer) => ['x-quota-limit', 'x-quota-remaining', 'x-quota-reset'].map((h) => res.headers.get(h));
  it('false: technology and catalog answers carry no quota headers', async () => {
    const { s, held } = await open({ freeQuotaHeaders: false });
    await call(s, `domain/${held[0]}`);
    for (const path of ['technology/Node.js', 'technology/Not%20A%20Tech', 'meta/technologies']) {
      expect(quotaHeaders(await call(s, path)), path).toEqual([null, null, null]);
    }
    expect(s.charges().total).toBe(1);
  });

  it('true: technology and catalog answers carry the three quota headers, uncharged', async () => {
    const { s, held } = await open({ freeQuotaHeaders: true });
    await call(s, `domain/${held[0]}`);
    for (const path of ['technology/Node.js', 'technology/Not%20A%20Tech', 'meta/technologies']) {
      const [limit, remaining, reset] = quotaHeaders(await call(s, path));
      expect([limit, remaining], path).toEqual(['1000', '999']);
      expect(reset, path).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
    }
    expect(s.charges().total).toBe(1);
  });
});

describe('revokeAfter', () => {
  it('null: the primary key is never revoked', async () => {
    const { s, held } = await open({ revokeAfter: null });
    for (let i = 0; i < 5; i++) expect((await call(s, `domain/${held[i]}`)).status).toBe(200);
    expect(s.charges().total).toBe(5);
  });

  it('N: the N+1th request with the primary key gets 401 invalid_key; other keys go on', async () => {
    const { s, held } = await open({ revokeAfter: 3 });
    const other = s.newKey();
    expect((await call(s, `domain/${held[0]}`)).status).toBe(200);
    expect((await call(s, 'meta/technologies')).status).toBe(200);
    expect((await call(s, `domain/${held[1]}`, { key: other })).status).toBe(200);
    expect((await call(s, 'domain/absent-one.example')).status).toBe(404);
    const revoked = await call(s, `domain/${held[2]}`);
    expect(revoked.status).toBe(401);
    expect(revoked.json).toEqual({ error: 'invalid_key' });
    expect(revoked.headers.get('x-quota-remaining')).toBeNull();
    expect((await call(s, 'meta/technologies')).status).toBe(401);
    expect((await call(s, `domain/${held[2]}`, { key: other })).status).toBe(200);
    expect(s.charges()).toMatchObject({ total: 4, byHost: { [held[2] as string]: 1 } });
  });

  it('counts from when it is set at run time', async () => {
    const { s, held } = await open({});
    for (let i = 0; i < 3; i++) expect((await call(s, `domain/${held[i]}`)).status).toBe(200);
    expect((await admin(s, 'readings', { revokeAfter: 1 })).status).toBe(200);
    expect((await call(s, `domain/${held[0]}`)).status).toBe(200);
    expect((await call(s, `domain/${held[0]}`)).status).toBe(401);
    expect(s.charges().total).toBe(4);
  });
});

describe('asOf', () => {
  it("'figure': a date is its figure's, moving only with it; 'release': every estimate restated as of the release, figures standing", async () => {
    const { s, held } = await open({ release: '2025-11' });
    const data = (res: Answer) => (res.json as { data: Record<string, unknown> }).data;
    const profiles = (await batch(s, held.slice(0, 100))).json as {
      data: { domain: string; traffic: { as_of: string } | null; employees: { as_of: string } | null }[];
    };
    const own = new Map(profiles.data.map((p) => [p.domain, p]));
    expect(profiles.data.some((p) => p.traffic !== null && p.traffic.as_of < '2025-11')).toBe(true);
    s.setReadings({ asOf: 'release' });
    const restated = (await batch(s, held.slice(0, 100))).json as typeof profiles;
    for (const p of restated.data) {
      const was = own.get(p.domain);
      // Only the dates moved, into the release's month; the day of a headcount kept.
      expect({ ...p, traffic: p.traffic && { ...p.traffic, as_of: null }, employees: p.employees && { ...p.employees, as_of: null } }).toEqual({
        ...was,
        traffic: was?.traffic && { ...was.traffic, as_of: null },
        employees: was?.employees && { ...was.employees, as_of: null },
      });
      if (p.traffic) expect(p.traffic.as_of).toBe('2025-11');
      if (p.employees) expect(p.employees.as_of).toBe(`2025-11${was?.employees?.as_of.slice(7)}`);
    }
    // The series runs to the release, the months since its last figure holding that figure.
    const host = held.find((h) => (own.get(h)?.traffic?.as_of ?? '2025-11') < '2025-11') as string;
    const series = data(await call(s, `traffic/${host}`)) as { as_of: string; estimated_monthly_visits: number; history: { month: string; visits: number }[] };
    expect(series.as_of).toBe('2025-11');
    expect(series.history.at(-1)).toEqual({ month: '2025-11', visits: series.estimated_monthly_visits });
    expect(series.history.length).toBeLessThanOrEqual(24);
    const staffed = restated.data.find((p) => p.employees !== null)?.domain as string;
    expect((data(await call(s, `employees/${staffed}`)).as_of as string).slice(0, 7)).toBe('2025-11');
  });
});

describe('two keys on one account', () => {
  it('share the meter and the rate limit', async () => {
    const { s, held } = await open({ rpm: 3, windowMs: 60_000, clock: () => 10_000_250 });
    const second = s.newKey();
    expect(remainingOf(await call(s, `domain/${held[0]}`))).toBe(999);
    expect(remainingOf(await call(s, `domain/${held[1]}`, { key: second }))).toBe(998);
    expect(remainingOf(await batch(s, [held[2], held[3]]))).toBe(996);
    expect((await call(s, `domain/${held[4]}`, { key: second })).status).toBe(429);
    expect((await call(s, `domain/${held[4]}`)).status).toBe(429);
    expect(s.charges()).toMatchObject({ total: 4, rateLimited: 2, remaining: 996 });
  });
});

describe('answers out of order', () => {
  it('slowRequests: a held-back answer arrives last, carrying the quota read when it was handled', async () => {
    const { s, held } = await open({ slowRequests: [1], slowMs: 150 });
    const arrived: string[] = [];
    const first = call(s, `domain/${held[0]}`).then((res) => (arrived.push('first'), res));
    // The second request is sent only once the first has been handled (and charged).
    while (s.requests().length < 1) await new Promise((resolve) => setImmediate(resolve));
    const second = call(s, `domain/${held[1]}`).then((res) => (arrived.push('second'), res));
    const [a, b] = await Promise.all([first, second]);
    expect(arrived).toEqual(['second', 'first']);
    expect(remainingOf(a)).toBe(999);
    expect(remainingOf(b)).toBe(998);
    expect(s.requests().map((r) => r.fault)).toEqual(['slow', null]);
    expect(s.charges().total).toBe(2);
  });

  it('the random slow fault also reads the quota before the delay', async () => {
    const { s, held } = await open({ faults: { slow: 1 }, slowMs: 50 });
    const answers = await Promise.all([call(s, `domain/${held[0]}`), call(s, `domain/${held[1]}`)]);
    expect(answers.map(remainingOf).sort()).toEqual([998, 999]);
    expect(s.requests().map((r) => r.fault)).toEqual(['slow', 'slow']);
  });
});

describe('admin: readings and rollover', () => {
  it('switches readings at run time and refuses bad values with 400, changing nothing', async () => {
    const { s } = await open({});
    const set = await admin(s, 'readings', { allAbsent: 'not-found', order: 'sorted', slowRequests: [7] });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({ ...DEFAULT_READINGS, allAbsent: 'not-found', order: 'sorted', slowRequests: [7] });
    expect((await batch(s, ['absent-one.example'])).status).toBe(404);
    for (const bad of [{ allAbsent: 'gone' }, { revokeAfter: 1.5 }, { freeLimited: 1 }, { colour: 'red' }, [1]]) {
      const res = await admin(s, 'readings', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json, JSON.stringify(bad)).toMatchObject({ error: 'bad_request' });
    }
    expect(s.readings()).toMatchObject({ allAbsent: 'not-found', freeLimited: false, revokeAfter: null });
    expect(s.info()).toMatchObject({ allAbsent: 'not-found', order: 'sorted' });
    expect(s.setReadings({ allAbsent: 'empty' }).allAbsent).toBe('empty');
    expect((await batch(s, ['absent-one.example'])).status).toBe(200);
    expect(s.charges().total).toBe(2);
  });

  it('rollover ends the month: the allowance renews, packs lapse, the reset moves on a month', async () => {
    const { s, held } = await open({ clock: () => Date.UTC(2026, 10, 23, 21, 40) });
    s.addPack();
    s.setRemaining(0);
    const spent = await call(s, `domain/${held[0]}`);
    expect(spent.status).toBe(402);
    expect(spent.headers.get('x-quota-reset')).toBe('2026-12-01T00:00:00.000Z');
    expect((await admin(s, 'rollover')).json).toEqual({ ok: true, limit: 1000, remaining: 1000 });
    const res = await call(s, `domain/${held[0]}`);
    expect(res.status).toBe(200);
    expect(remainingOf(res)).toBe(999);
    expect(res.headers.get('x-quota-reset')).toBe('2027-01-01T00:00:00.000Z');
    s.rollover();
    expect(s.charges()).toMatchObject({ total: 1, remaining: 1000, limit: 1000 });
  });
});
