// The typed client against the real sandbox over HTTP (port 0): every endpoint's answer, every error code of
// spec §7 on every endpoint it applies to, metering as the sandbox counts it, URL-encoding of odd technology
// names, where the key travels (and where it never does), the User-Agent and the base-URL rule.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainIntelClient, type ClientOptions } from '../../src/api/client.js';
import {
  BadRequestError,
  DomainIntelError,
  InvalidKeyError,
  MeteringUnavailableError,
  NetworkError,
  NotFoundError,
  ProtocolError,
  QuotaExhaustedError,
  RateLimitedError,
  ServerError,
  UsageError,
} from '../../src/api/errors.js';
import { RESET_STYLES, startSandbox, type ResetStyle, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { VERSION } from '../../src/version.js';

type Op = 'domain' | 'batch' | 'traffic' | 'employees' | 'technology' | 'catalog';
const ALL_OPS: readonly Op[] = ['domain', 'batch', 'traffic', 'employees', 'technology', 'catalog'];
const METERED_OPS: readonly Op[] = ['domain', 'batch', 'traffic', 'employees'];

const NOT_HELD = 'not-held-anywhere.example';
const BAD_KEY_SHAPE = 'di_live_not-a-key';

/** Held hosts with the data each endpoint needs, picked from the seeded dataset. */
interface Picks {
  profile: string;
  traffic: string;
  /** A subdomain (www.) whose organisation has an employee figure. */
  employeesWww: string;
  apex: string;
  tech: string;
  held: string[];
}

function pick(sb: Sandbox): Picks {
  const hosts = sb.hostList();
  const profile = hosts.find((h) => sb.dataset.profile(h)?.traffic !== null && sb.dataset.profile(h)?.employees !== null);
  const traffic = hosts.find((h) => (sb.dataset.traffic(h)?.history.length ?? 0) > 2);
  const employeesWww = hosts.find((h) => h.startsWith('www.') && sb.dataset.employees(h) !== null);
  const tech = sb.dataset
    .catalog()
    .flatMap((c) => c.technologies)
    .find((t) => t.domains > 0)?.tech;
  if (!profile || !traffic || !employeesWww || !tech) throw new Error('the seeded dataset lacks a host the tests need');
  const apex = sb.dataset.apexOf(employeesWww);
  if (apex === null) throw new Error('no apex');
  return { profile, traffic, employeesWww, apex, tech, held: hosts.slice(0, 5) };
}

/** Calls one operation with arguments that are valid and held. */
function callOk(client: DomainIntelClient, p: Picks, op: Op): Promise<unknown> {
  switch (op) {
    case 'domain':
      return client.domain(p.profile);
    case 'batch':
      return client.batch([p.profile, NOT_HELD]);
    case 'traffic':
      return client.traffic(p.traffic);
    case 'employees':
      return client.employees(p.employeesWww);
    case 'technology':
      return client.technology(p.tech);
    case 'catalog':
      return client.catalog();
  }
}

/** The error a call rejected with; fails the test when it resolved. */
async function failure(promise: Promise<unknown>): Promise<DomainIntelError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainIntelError);
    return err as DomainIntelError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

function synchronousFailure(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

function clientFor(sb: Sandbox, extra: Partial<ClientOptions> = {}): DomainIntelClient {
  return new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: sb.key, ...extra });
}

/** Every way an error could be printed or serialised must be free of `secret`. */
function expectNoSecret(err: unknown, secret: string): void {
  const e = err as Error;
  expect(e.message).not.toContain(secret);
  expect(String(e)).not.toContain(secret);
  expect(JSON.stringify(e)).not.toContain(secret);
  expect(inspect(e, { depth: 6 })).not.toContain(secret);
  expect(e.stack ?? '').not.toContain(secret);
}

const clients: DomainIntelClient[] = [];
/** A client closed after the test. */
function tracked(client: DomainIntelClient): DomainIntelClient {
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

// ---------------------------------------------------------------------------------------------------------

describe('against a healthy sandbox', () => {
  let sb: Sandbox;
  let p: Picks;
  let client: DomainIntelClient;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    p = pick(sb);
    client = clientFor(sb);
  });
  afterAll(async () => {
    await client?.close();
    await sb?.close();
  });
  beforeEach(() => sb.resetCounters());
  afterEach(() => {
    // Whatever a test did, the key never went into a URL.
    for (const r of sb.requests()) expect(r.url).not.toContain(sb.key);
  });

  describe('success, typed data and quota headers', () => {
    it('domain: the profile, with the quota read from the headers', async () => {
      const r = await client.domain(p.profile);
      expect(r.status).toBe(200);
      expect(r.data).toEqual(sb.dataset.profile(p.profile));
      expect(r.data.domain).toBe(p.profile);
      expect(typeof r.data.traffic?.estimated_monthly_visits).toBe('number');
      expect(r.data.employees?.apex).toBe(sb.dataset.apexOf(p.profile));
      const charges = sb.charges();
      expect(r.quota).not.toBeNull();
      expect(r.quota?.limit).toBe(charges.limit);
      expect(r.quota?.limit).toBe(50_000);
      expect(r.quota?.remaining).toBe(charges.remaining);
      const now = new Date();
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      expect(r.quota?.reset?.getTime()).toBe(nextMonth);
      expect(r.quota?.resetRaw).toBe(new Date(nextMonth).toISOString());
      expect(Math.abs((r.quota?.seenAt ?? 0) - Date.now())).toBeLessThan(5_000);
      expect(client.lastQuota).toEqual(r.quota);
    });

    it('domain: upper-case input reaches the service (validateLocally: false) and comes back lower-cased', async () => {
      const loose = tracked(clientFor(sb, { validateLocally: false }));
      const r = await loose.domain(p.profile.toUpperCase());
      expect(r.data.domain).toBe(p.profile);
      expect(r.data).toEqual(sb.dataset.profile(p.profile));
      expect(sb.requests()[0]?.path).toBe(`/api/v1/domain/${p.profile.toUpperCase()}`);
    });

    it('remaining counts down by one per costed lookup', async () => {
      const a = await client.domain(p.held[0] as string);
      const b = await client.domain(p.held[1] as string);
      expect(b.quota?.remaining).toBe((a.quota?.remaining as number) - 1);
    });

    it('batch: profiles of held hosts in data, absent hosts in missing', async () => {
      const hosts = [...p.held.slice(0, 3), NOT_HELD];
      const r = await client.batch(hosts);
      expect(r.status).toBe(200);
      expect(r.data.data).toEqual(p.held.slice(0, 3).map((h) => sb.dataset.profile(h)));
      expect(r.data.missing).toEqual([NOT_HELD]);
      expect(r.quota?.remaining).toBe(sb.charges().remaining);
      expect(r.quota?.limit).toBe(50_000);
    });

    it('batch: all absent is a 200 with empty data', async () => {
      const r = await client.batch(['absent-one.example', 'absent-two.example']);
      expect(r.data).toEqual({ data: [], missing: ['absent-one.example', 'absent-two.example'] });
    });

    it('traffic: the monthly series', async () => {
      const r = await client.traffic(p.traffic);
      expect(r.data).toEqual(sb.dataset.traffic(p.traffic));
      expect(r.data.host).toBe(p.traffic);
      expect(r.data.history.length).toBeGreaterThan(2);
      for (const m of r.data.history) {
        expect(m.month).toMatch(/^\d{4}-\d{2}$/);
        expect(typeof m.visits).toBe('number');
      }
      expect(r.quota?.remaining).toBe(sb.charges().remaining);
    });

    it('employees: a www. host gets the figure of its apex', async () => {
      const r = await client.employees(p.employeesWww);
      const expected = sb.dataset.employees(p.apex);
      expect(r.data.apex).toBe(p.apex);
      expect(r.data.estimated_employees).toEqual(expected?.estimated_employees);
      expect(r.data.as_of).toBe(expected?.as_of);
      expect(r.data.host).toBe(p.employeesWww);
      expect(r.quota?.remaining).toBe(sb.charges().remaining);
    });

    it('technology: the count, free and without quota headers', async () => {
      const r = await client.technology(p.tech);
      expect(r.data).toEqual(sb.dataset.technology(p.tech));
      expect(r.data.domains).toBeGreaterThan(0);
      expect(r.quota).toBeNull();
    });

    it('catalog: every category with its technologies', async () => {
      const r = await client.catalog();
      expect(r.data).toEqual(sb.dataset.catalog());
      expect(r.data.length).toBeGreaterThan(3);
      for (const c of r.data) {
        expect(typeof c.category).toBe('string');
        for (const t of c.technologies) expect(typeof t.domains).toBe('number');
      }
      // Counts may be 0 (§2.7).
      expect(r.data.some((c) => c.technologies.some((t) => t.domains === 0))).toBe(true);
    });
  });

  describe('400: bad_domain, bad_host, bad_batch', () => {
    it('the service answers 400 bad_domain / bad_host / bad_batch when local checks are off', async () => {
      const loose = tracked(clientFor(sb, { validateLocally: false }));
      const cases: [Op, () => Promise<unknown>, string][] = [
        ['domain', () => loose.domain('not a host'), 'bad_domain'],
        ['domain', () => loose.domain('ab'), 'bad_domain'],
        ['domain', () => loose.domain('under_score.com'), 'bad_domain'],
        ['traffic', () => loose.traffic('not a host'), 'bad_host'],
        ['employees', () => loose.employees('x'), 'bad_host'],
        ['batch', () => loose.batch([p.profile, 'not a host']), 'bad_batch'],
      ];
      for (const [op, call, code] of cases) {
        const err = await failure(call());
        expect(err, op).toBeInstanceOf(BadRequestError);
        expect(err.status, op).toBe(400);
        expect(err.code, op).toBe(code);
        expect(err.operation, op).toBe(op);
      }
      expect(sb.requests().map((r) => r.status)).toEqual(cases.map(() => 400));
      expect(sb.charges().total).toBe(0);
    });

    it('by default the client refuses implausible hosts itself and sends nothing', async () => {
      const cases: [Op, () => Promise<unknown>, string][] = [
        ['domain', () => client.domain('not a host'), 'bad_domain'],
        ['domain', () => client.domain('UPPER.example'), 'bad_domain'],
        ['domain', () => client.domain('ab'), 'bad_domain'],
        ['traffic', () => client.traffic('not a host'), 'bad_host'],
        ['employees', () => client.employees('a/b.com'), 'bad_host'],
        ['batch', () => client.batch([p.profile, 'not a host']), 'bad_batch'],
        ['batch', () => client.batch([]), 'bad_batch'],
        ['batch', () => client.batch(Array.from({ length: 101 }, (_, i) => `host-${i}.example`)), 'bad_batch'],
      ];
      for (const [op, call, code] of cases) {
        const err = await failure(call());
        expect(err, op).toBeInstanceOf(BadRequestError);
        expect(err.status, op).toBeUndefined();
        expect(err.code, op).toBe(code);
      }
      expect(sb.requests()).toEqual([]);
      expect(sb.charges().requests).toBe(0);
    });
  });

  describe('404 not_found', () => {
    it('domain, traffic, employees and technology answer NotFoundError', async () => {
      const cases: [Op, () => Promise<unknown>, string][] = [
        ['domain', () => client.domain(NOT_HELD), NOT_HELD],
        ['traffic', () => client.traffic(NOT_HELD), NOT_HELD],
        ['employees', () => client.employees(NOT_HELD), NOT_HELD],
        ['technology', () => client.technology('No Such Technology 9000'), 'No Such Technology 9000'],
      ];
      for (const [op, call, host] of cases) {
        const err = await failure(call());
        expect(err, op).toBeInstanceOf(NotFoundError);
        expect(err.status, op).toBe(404);
        expect(err.code, op).toBe('not_found');
        expect(err.host, op).toBe(host);
        expect(err.operation, op).toBe(op);
      }
    });

    it('a 404 on a costed lookup still carries the quota headers', async () => {
      const err = await failure(client.domain(NOT_HELD));
      expect(err.quota?.remaining).toBe(sb.charges().remaining);
    });
  });

  describe('401 invalid_key on all six endpoints', () => {
    it('a key of the wrong shape', async () => {
      const bad = tracked(clientFor(sb, { apiKey: BAD_KEY_SHAPE }));
      for (const op of ALL_OPS) {
        const err = await failure(callOk(bad, p, op));
        expect(err, op).toBeInstanceOf(InvalidKeyError);
        expect(err.status, op).toBe(401);
        expect(err.code, op).toBe('invalid_key');
        expectNoSecret(err, BAD_KEY_SHAPE);
      }
      expect(sb.requests().map((r) => [r.operation, r.status])).toEqual(ALL_OPS.map((op) => [op, 401]));
      expect(sb.charges().total).toBe(0);
    });

    it('a well-formed key the service does not know', async () => {
      const unknown = `di_live_${'0'.repeat(48)}`;
      const bad = tracked(clientFor(sb, { apiKey: unknown }));
      for (const op of ALL_OPS) {
        const err = await failure(callOk(bad, p, op));
        expect(err, op).toBeInstanceOf(InvalidKeyError);
        expect(err.status, op).toBe(401);
      }
    });

    it('a missing key: the constructor refuses an empty one, and a blank one is refused by the service', async () => {
      const err = synchronousFailure(() => new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: '' }));
      expect(err).toBeInstanceOf(InvalidKeyError);
      expect(sb.requests()).toEqual([]);

      const blank = tracked(clientFor(sb, { apiKey: ' ' }));
      for (const op of ALL_OPS) {
        const e = await failure(callOk(blank, p, op));
        expect(e, op).toBeInstanceOf(InvalidKeyError);
        expect(e.status, op).toBe(401);
      }
      expect(sb.requests()).toHaveLength(ALL_OPS.length);
    });

    it('a revoked key works until it is revoked, then fails from the next request on', async () => {
      const key = sb.newKey();
      const c = tracked(clientFor(sb, { apiKey: key }));
      for (const op of ALL_OPS) await callOk(c, p, op);
      sb.revokeKey(key);
      for (const op of ALL_OPS) {
        const err = await failure(callOk(c, p, op));
        expect(err, op).toBeInstanceOf(InvalidKeyError);
        expect(err.status, op).toBe(401);
        expectNoSecret(err, key);
      }
      const log = sb.requests();
      expect(log.slice(0, 6).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(log.slice(6).map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401]);
      // The sandbox's primary key is untouched.
      await expect(client.catalog()).resolves.toMatchObject({ status: 200 });
    });
  });

  describe('metering, as the sandbox counts it', () => {
    it('domain, traffic and employees cost 1 each; technology and catalog are free', async () => {
      await client.domain(p.profile);
      expect(sb.charges().total).toBe(1);
      await client.traffic(p.traffic);
      expect(sb.charges().total).toBe(2);
      await client.employees(p.employeesWww);
      expect(sb.charges().total).toBe(3);
      await client.technology(p.tech);
      await client.catalog();
      const c = sb.charges();
      expect(c.total).toBe(3);
      expect(c.byEndpoint).toEqual({ domain: 1, traffic: 1, employees: 1 });
      expect(c.requests).toBe(5);
    });

    it('a 404 still spends 1 on domain, traffic and employees, not on technology', async () => {
      const before = sb.charges().remaining;
      await failure(client.domain(NOT_HELD));
      await failure(client.traffic(NOT_HELD));
      await failure(client.employees(NOT_HELD));
      await failure(client.technology('No Such Technology 9000'));
      const c = sb.charges();
      expect(c.total).toBe(3);
      expect(c.byHost[NOT_HELD]).toBe(3);
      expect(c.remaining).toBe(before - 3);
    });

    it('batch: 1 per distinct host, found or not; the client collapses duplicates before sending', async () => {
      const r = await client.batch([p.held[0] as string, p.held[1] as string, p.held[0] as string, NOT_HELD, NOT_HELD]);
      expect(r.data.data.map((x) => x.domain)).toEqual([p.held[0], p.held[1]]);
      expect(r.data.missing).toEqual([NOT_HELD]);
      const c = sb.charges();
      expect(c.total).toBe(3);
      expect(c.byEndpoint).toEqual({ batch: 3 });
      expect(Object.values(c.byHost).every((n) => n === 1)).toBe(true);
      expect(sb.requests()[0]?.hosts).toEqual([p.held[0], p.held[1], NOT_HELD]);
    });

    it('batch: 150 entries holding 100 distinct hosts are one request, not refused as too many', async () => {
      const hosts = sb.hostList().slice(0, 100);
      const r = await client.batch([...hosts, ...hosts.slice(0, 50)]);
      expect(r.data.data).toHaveLength(100);
      expect(sb.requests()).toHaveLength(1);
      expect(sb.charges().total).toBe(100);
    });
  });

  describe('technology names that need URL-encoding', () => {
    it.each([
      ['/', '%2F'],
      ['+', '%2B'],
      [' ', '%20'],
      ['.', '.'],
      ['&', '%26'],
      ["'", "'"],
      ['É', '%C3%89'],
    ])('a name containing %j round-trips', async (char, encoded) => {
      const names = sb.dataset
        .catalog()
        .flatMap((c) => c.technologies.map((t) => t.tech))
        .filter((n) => n.includes(char));
      expect(names.length, `the catalog has a name with ${char}`).toBeGreaterThan(0);
      for (const name of new Set(names)) {
        sb.resetCounters();
        const r = await client.technology(name);
        expect(r.data.tech).toBe(name);
        expect(r.data).toEqual(sb.dataset.technology(name));
        const [req] = sb.requests();
        expect(req?.url).toBe(`/api/v1/technology/${encodeURIComponent(name)}`);
        expect(req?.url).toContain(encoded);
        if (char === '/') expect(req?.url).not.toContain(name);
        expect(req?.hosts).toEqual([name]);
      }
    });
  });

  describe('the key travels only in the Authorization header', () => {
    it('across successes and failures on every endpoint', async () => {
      const loose = tracked(clientFor(sb, { validateLocally: false }));
      const errors: unknown[] = [];
      for (const op of ALL_OPS) await callOk(client, p, op);
      for (const call of [
        () => client.domain(NOT_HELD),
        () => client.traffic(NOT_HELD),
        () => client.employees(NOT_HELD),
        () => client.technology('Nope Tech'),
        () => loose.domain('bad host'),
        () => loose.traffic('bad host'),
        () => loose.batch(['bad host']),
        () => client.domain('bad host'),
      ]) {
        errors.push(await failure(call()));
      }
      const log = sb.requests();
      expect(log.length).toBe(ALL_OPS.length + 7);
      for (const r of log) {
        expect(r.url).not.toContain(sb.key);
        expect(r.url).not.toContain(sb.key.slice(8));
        expect(r.authorization).toBe(`Bearer ${sb.key}`);
      }
      for (const err of errors) expectNoSecret(err, sb.key);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('402 quota_exhausted', () => {
  let sb: Sandbox;
  let p: Picks;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, rpm: 0, hosts: 500 });
    p = pick(sb);
  });
  afterAll(() => sb?.close());

  it('domain, batch, traffic and employees fail with the quota; technology and catalog stay free and open', async () => {
    sb.setRemaining(0);
    sb.resetCounters();
    const client = tracked(clientFor(sb));
    for (const op of METERED_OPS) {
      const err = await failure(callOk(client, p, op));
      expect(err, op).toBeInstanceOf(QuotaExhaustedError);
      expect(err.status, op).toBe(402);
      expect(err.code, op).toBe('quota_exhausted');
      expect(err.quota?.remaining, op).toBe(0);
      expect(err.quota?.limit, op).toBe(50_000);
      const resetAt = (err as QuotaExhaustedError).resetAt;
      expect(resetAt).toBeInstanceOf(Date);
      const now = new Date();
      expect(resetAt?.getTime()).toBe(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
      expectNoSecret(err, sb.key);
    }
    await expect(client.technology(p.tech)).resolves.toMatchObject({ status: 200 });
    await expect(client.catalog()).resolves.toMatchObject({ status: 200 });
    expect(sb.charges().total).toBe(0);
    expect(sb.charges().quotaExhausted).toBe(4);
  });

  it('a batch larger than what remains is refused whole and charges nothing', async () => {
    sb.setRemaining(2);
    sb.resetCounters();
    const client = tracked(clientFor(sb));
    const err = await failure(client.batch(p.held.slice(0, 3)));
    expect(err).toBeInstanceOf(QuotaExhaustedError);
    expect(err.quota?.remaining).toBe(2);
    expect(sb.charges().total).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('429 rate_limited: resumeAt for every reset style', () => {
  const WINDOW = 60_000;
  // Both sides share one frozen clock, mid-window, so the window end is exact and no boundary can be crossed.
  const T = Math.floor(Date.now() / WINDOW) * WINDOW + 23_456;
  const windowEnd = Math.floor(T / WINDOW) * WINDOW + WINDOW;

  it.each(RESET_STYLES)('style %s', async (style: ResetStyle) => {
    const sb = await startSandbox({ port: 0, rpm: 1, windowMs: WINDOW, resetStyle: style, clock: () => T, hosts: 300 });
    try {
      const p = pick(sb);
      // The client's fallback (no reset readable) would be the next 7 s boundary: far from the real window end,
      // so a reset the client failed to read cannot pass for one it read.
      const client = tracked(clientFor(sb, { clock: () => T, windowMs: 7_000 }));
      await client.domain(p.profile);
      for (const op of METERED_OPS) {
        const err = await failure(callOk(client, p, op));
        expect(err, `${style} ${op}`).toBeInstanceOf(RateLimitedError);
        expect(err.status).toBe(429);
        expect(err.code).toBe('rate_limited');
        const resumeAt = (err as RateLimitedError).resumeAt;
        expect(Math.abs(resumeAt - windowEnd), `${style} ${op}: resumeAt ${resumeAt} vs window end ${windowEnd}`).toBeLessThanOrEqual(1_000);
        expect(resumeAt).toBeGreaterThan(T);
        // A 429 comes after auth and carries the quota.
        expect(err.quota?.limit).toBe(50_000);
      }
      // Technology and catalog are not rate limited (§7 lists 429 for the metered four only).
      await expect(client.technology(p.tech)).resolves.toMatchObject({ status: 200 });
      await expect(client.catalog()).resolves.toMatchObject({ status: 200 });
      const c = sb.charges();
      expect(c.rateLimited).toBe(4);
      expect(c.total).toBe(1);
    } finally {
      await sb.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('injected faults', () => {
  async function withSandbox(options: SandboxOptions, fn: (sb: Sandbox, p: Picks, client: DomainIntelClient) => Promise<void>): Promise<void> {
    const sb = await startSandbox({ port: 0, rpm: 0, hosts: 300, ...options });
    const client = clientFor(sb, { timeoutMs: 5_000 });
    try {
      await fn(sb, pick(sb), client);
    } finally {
      await client.close();
      await sb.close();
    }
  }

  it('503 metering_unavailable on domain, batch, traffic, employees and technology; nothing spent; the catalog is unaffected', async () => {
    await withSandbox({ faults: { unavailable: 1 } }, async (sb, p, client) => {
      for (const op of ['domain', 'batch', 'traffic', 'employees', 'technology'] as const) {
        const err = await failure(callOk(client, p, op));
        expect(err, op).toBeInstanceOf(MeteringUnavailableError);
        expect(err.status, op).toBe(503);
        expect(err.code, op).toBe('metering_unavailable');
      }
      await expect(client.catalog()).resolves.toMatchObject({ status: 200 });
      const c = sb.charges();
      expect(c.total).toBe(0);
      expect(c.unavailable).toBe(5);
      expect(c.remaining).toBe(c.limit);
    });
  });

  it('HTML 500 is a ServerError on every endpoint', async () => {
    await withSandbox({ faults: { html500: 1 } }, async (sb, p, client) => {
      for (const op of ALL_OPS) {
        const err = await failure(callOk(client, p, op));
        expect(err, op).toBeInstanceOf(ServerError);
        expect(err.status, op).toBe(500);
        expect(err.code, op).toBe('http_500');
        expect(err.message, op).toMatch(/unexpected answer 500/);
      }
      expect(sb.charges().total).toBe(0);
    });
  });

  it('a 200 whose body is not JSON is a ProtocolError', async () => {
    await withSandbox({ faults: { garbage: 1 } }, async (sb, p, client) => {
      for (const op of ALL_OPS) {
        const err = await failure(callOk(client, p, op));
        expect(err, op).toBeInstanceOf(ProtocolError);
        expect(err.status, op).toBe(200);
        expect(err.code, op).toBe('bad_json');
      }
      // The lookups were served, so they were spent: the client cannot tell, which is why it is a ProtocolError.
      expect(sb.charges().total).toBe(1 + 2 + 1 + 1);
    });
  });

  it('a truncated 200 is a ProtocolError', async () => {
    await withSandbox({ faults: { truncated: 1 } }, async (_sb, p, client) => {
      for (const op of ALL_OPS) {
        const err = await failure(callOk(client, p, op));
        expect(err, op).toBeInstanceOf(ProtocolError);
        expect(err.code, op).toBe('bad_json');
      }
    });
  });

  it('valid JSON labelled text/plain is used anyway', async () => {
    await withSandbox({ faults: { wrongType: 1 } }, async (sb, p, client) => {
      const r = await client.domain(p.profile);
      expect(r.data).toEqual(sb.dataset.profile(p.profile));
    });
  });

  it('a connection reset mid-body is a NetworkError', async () => {
    await withSandbox({ faults: { reset: 1 } }, async (_sb, p, client) => {
      for (const op of ALL_OPS) {
        const err = await failure(callOk(client, p, op));
        expect(err, op).toBeInstanceOf(NetworkError);
        expect(err.code, op).not.toBe('timeout');
        expect(err.operation, op).toBe(op);
      }
    });
  });

  it('an answer slower than timeoutMs is a NetworkError with code timeout, raised on time', async () => {
    await withSandbox({ latencyMs: 2_000 }, async (_sb, p) => {
      const client = tracked(new DomainIntelClient({ baseUrl: _sb.baseUrl, apiKey: _sb.key, timeoutMs: 150 }));
      for (const op of ['domain', 'catalog'] as const) {
        const started = Date.now();
        const err = await failure(callOk(client, p, op));
        const took = Date.now() - started;
        expect(err, op).toBeInstanceOf(NetworkError);
        expect(err.code, op).toBe('timeout');
        expect(err.message, op).toMatch(/ within 0\.15 s$/);
        expect(took, op).toBeGreaterThanOrEqual(140);
        expect(took, op).toBeLessThan(1_500);
      }
    });
  });

  it('a closed port is a NetworkError', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const key = `di_live_${'a'.repeat(48)}`;
    const client = tracked(new DomainIntelClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, apiKey: key }));
    const err = await failure(client.domain('example.com'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.status).toBeUndefined();
    expectNoSecret(err, key);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('what goes on the wire (a recording node:http server)', () => {
  interface Seen {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    body: string;
  }
  let server: Server;
  let base: string;
  const seen: Seen[] = [];
  const key = `di_live_${'0123456789abcdef'.repeat(3)}`;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        let answer: unknown = { data: [] };
        if (req.url === '/api/v1/domains/batch') {
          const domains = (JSON.parse(body) as { domains: string[] }).domains;
          answer = { data: [], missing: domains };
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
  });

  it('sends User-Agent domain-intel/<version>, the bearer key and Accept: application/json', async () => {
    const client = tracked(new DomainIntelClient({ baseUrl: base, apiKey: key }));
    await client.catalog();
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req?.headers['user-agent']).toBe(`domain-intel/${VERSION}`);
    expect(req?.headers['user-agent']).toMatch(/^domain-intel\/\d+\.\d+\.\d+/);
    expect(req?.headers.authorization).toBe(`Bearer ${key}`);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.url).toBe('/api/v1/meta/technologies');
    expect(req?.method).toBe('GET');
  });

  it('a batch is a JSON POST of the distinct hosts, in order, duplicates collapsed', async () => {
    const client = tracked(new DomainIntelClient({ baseUrl: base, apiKey: key }));
    const r = await client.batch(['b.example', 'a.example', 'b.example', 'c.example', 'a.example']);
    expect(r.data.missing).toEqual(['b.example', 'a.example', 'c.example']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]?.body ?? 'null')).toEqual({ domains: ['b.example', 'a.example', 'c.example'] });
    expect(seen[0]?.body).not.toContain(key);
    expect(seen[0]?.url).not.toContain(key);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('the base URL rule', () => {
  const apiKey = `di_live_${'b'.repeat(48)}`;

  it('refuses plain http to a host that is not loopback', () => {
    const err = synchronousFailure(() => new DomainIntelClient({ baseUrl: 'http://example.com/api/v1', apiKey }));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).code).toBe('insecure_base_url');
    expect((err as Error).message).toMatch(/plain http/);
    expectNoSecret(err, apiKey);
  });

  it('accepts http to loopback, trailing slash dropped', () => {
    const client = tracked(new DomainIntelClient({ baseUrl: 'http://127.0.0.1:1/api/v1/', apiKey }));
    expect(client.baseUrl).toBe('http://127.0.0.1:1/api/v1');
  });

  it('accepts https anywhere', () => {
    const client = tracked(new DomainIntelClient({ baseUrl: 'https://api.example.com/api/v1', apiKey }));
    expect(client.baseUrl).toBe('https://api.example.com/api/v1');
  });

  it.each([
    'https://api.example.com/',
    'https://api.example.com/api/v2',
    'http://127.0.0.1:1/api/v1/domain',
    'http://127.0.0.1:1/v1',
    'not a url',
    'ftp://127.0.0.1/api/v1',
  ])('refuses %s', (baseUrl) => {
    const err = synchronousFailure(() => new DomainIntelClient({ baseUrl, apiKey }));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).code).toBe('bad_base_url');
  });
});
