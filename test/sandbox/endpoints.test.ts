import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { batch, call } from './helpers.js';

let sb: Sandbox;
let hosts: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  hosts = sb.hostList();
});
afterAll(() => sb.close());

const error = (code: string) => ({ error: code });

describe('domain', () => {
  it('answers a held host with its profile, as JSON, with quota headers', async () => {
    const host = hosts[0] as string;
    const res = await call(sb, `domain/${host}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual({ data: sb.dataset.profile(host) });
    expect(res.headers.get('x-quota-limit')).toBe('50000');
    expect(Number(res.headers.get('x-quota-remaining'))).toBe(sb.charges().remaining);
    expect(res.headers.get('x-quota-reset')).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000Z$/);
  });

  it('lower-cases the requested domain', async () => {
    const host = hosts[1] as string;
    const res = await call(sb, `domain/${host.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect((res.json as { data: { domain: string } }).data.domain).toBe(host);
  });

  it('answers 404 not_found for a host that is not held', async () => {
    const res = await call(sb, 'domain/not-held-anywhere.example');
    expect(res.status).toBe(404);
    expect(res.json).toEqual(error('not_found'));
    expect(res.headers.get('x-quota-remaining')).not.toBeNull();
  });

  it.each(['ab', 'bad_domain.com', 'has%20space.com', 'b%C3%BCcher.example', 'a%2Fb.com', '%E0%A4%A', 'x'.repeat(254)])(
    'answers 400 bad_domain for %s',
    async (value) => {
      const res = await call(sb, `domain/${value}`);
      expect(res.status).toBe(400);
      expect(res.json).toEqual(error('bad_domain'));
      expect(res.headers.get('x-quota-limit')).toBe('50000');
    },
  );
});

describe('traffic', () => {
  it('answers the series of a held host', async () => {
    const host = hosts.find((h) => sb.dataset.traffic(h) !== null) as string;
    const res = await call(sb, `traffic/${host}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: sb.dataset.traffic(host) });
  });

  it('answers 404 for a held host without traffic and for a host not held', async () => {
    const bare = hosts.find((h) => sb.dataset.traffic(h) === null) as string;
    for (const host of [bare, 'not-held-anywhere.example']) {
      const res = await call(sb, `traffic/${host}`);
      expect(res.status).toBe(404);
      expect(res.json).toEqual(error('not_found'));
    }
  });

  it('answers 400 bad_host for an implausible host', async () => {
    const res = await call(sb, 'traffic/no_underscores.com');
    expect(res.status).toBe(400);
    expect(res.json).toEqual(error('bad_host'));
  });
});

describe('employees', () => {
  it('answers any host under a held organisation with the apex figure', async () => {
    const apex = hosts.map((h) => sb.dataset.apexOf(h)).find((a) => a !== null && sb.dataset.employees(a) !== null) as string;
    const a = await call(sb, `employees/${apex}`);
    const b = await call(sb, `employees/random.sub.${apex}`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const da = (a.json as { data: { host: string; apex: string; estimated_employees: unknown } }).data;
    const db = (b.json as { data: { host: string; apex: string; estimated_employees: unknown } }).data;
    expect(db.host).toBe(`random.sub.${apex}`);
    expect(db.apex).toBe(apex);
    expect(db.estimated_employees).toEqual(da.estimated_employees);
  });

  it('answers 404 outside held organisations and 400 bad_host for implausible hosts', async () => {
    expect((await call(sb, 'employees/nobody.example')).json).toEqual(error('not_found'));
    const bad = await call(sb, 'employees/a');
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual(error('bad_host'));
  });
});

describe('technology and catalog', () => {
  it('round-trips awkward names through encodeURIComponent', async () => {
    for (const name of ['TCP/IP Stack', 'C++ Runtime', 'Google Tag Manager', 'AT&T CDN', 'Node.js', 'ASP.NET', "Let's Encrypt", 'Élan Analytics', 'HTTP/3']) {
      const res = await call(sb, `technology/${encodeURIComponent(name)}`);
      expect(res.status, name).toBe(200);
      expect(res.json).toEqual({ data: sb.dataset.technology(name) });
    }
  });

  it('answers a zero count and 404 for names not in the catalog, matched exactly', async () => {
    const zero = sb.dataset
      .catalog()
      .flatMap((c) => c.technologies)
      .find((t) => t.domains === 0);
    expect((await call(sb, `technology/${encodeURIComponent(zero?.tech ?? '')}`)).json).toEqual({ data: zero });
    for (const path of ['technology/node.js', 'technology/TCP/IP%20Stack', 'technology/Google+Tag+Manager', 'technology/%E0%A4%A']) {
      const res = await call(sb, path);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual(error('not_found'));
      expect(res.headers.get('x-quota-limit')).toBeNull();
    }
  });

  it('serves the catalog', async () => {
    const res = await call(sb, 'meta/technologies');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: sb.dataset.catalog() });
  });
});

describe('batch', () => {
  it('answers profiles of held hosts in submitted order and lists the rest as missing', async () => {
    const [a, b, c] = hosts.slice(10, 13) as [string, string, string];
    const res = await batch(sb, [c, 'absent-one.example', a, c.toUpperCase(), b, 'absent-one.example']);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [c, a, b].map((h) => sb.dataset.profile(h)), missing: ['absent-one.example'] });
    expect(res.headers.get('x-quota-remaining')).not.toBeNull();
  });

  it('answers 200 with empty data when no host is held', async () => {
    const res = await batch(sb, ['absent-one.example', 'absent-two.example']);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: [], missing: ['absent-one.example', 'absent-two.example'] });
  });

  it('counts the 100 limit after collapsing duplicates', async () => {
    const hundred = hosts.slice(0, 100);
    expect((await batch(sb, [...hundred, ...hundred.slice(0, 50)])).status).toBe(200);
    expect((await batch(sb, hosts.slice(0, 101))).json).toEqual(error('bad_batch'));
  });

  it.each([
    ['empty list', { body: { domains: [] } }],
    ['no domains field', { body: { hosts: ['a.com'] } }],
    ['an array body', { body: ['abc.com'] }],
    ['a non-string entry', { body: { domains: ['abc.com', 42] } }],
    ['an implausible entry', { body: { domains: ['abc.com', 'not a domain'] } }],
    ['a non-JSON body', { rawBody: '{domains: [' }],
    ['no body', { method: 'POST' }],
    ['a wrong content type', { rawBody: JSON.stringify({ domains: ['abc.com'] }), contentType: 'text/plain' }],
  ])('answers 400 bad_batch for %s', async (_label, options) => {
    const res = await call(sb, 'domains/batch', options);
    expect(res.status).toBe(400);
    expect(res.json).toEqual(error('bad_batch'));
  });
});

describe('authentication', () => {
  const endpoints: [string, string, unknown?][] = [
    ['domain', 'domain/example.com'],
    ['batch', 'domains/batch', { domains: ['example.com'] }],
    ['traffic', 'traffic/example.com'],
    ['employees', 'employees/example.com'],
    ['technology', 'technology/Node.js'],
    ['catalog', 'meta/technologies'],
  ];
  const unknownKey = `di_live_${'ab'.repeat(24)}`;
  const headers = [
    ['missing', null],
    ['not bearer', `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['malformed', 'Bearer di_live_123'],
    ['wrong prefix', `Bearer di_test_${'a'.repeat(48)}`],
    ['upper-case hex', `Bearer di_live_${'A'.repeat(48)}`],
    ['unknown', `Bearer ${unknownKey}`],
  ] as const;

  it.each(endpoints)('rejects missing, malformed and unknown keys on %s with 401 invalid_key', async (_name, path, body) => {
    for (const [label, authorization] of headers) {
      const res = await call(sb, path, authorization === null ? { key: null, body } : { authorization, body });
      expect(res.status, label).toBe(401);
      expect(res.json).toEqual(error('invalid_key'));
      expect(res.headers.get('x-quota-limit')).toBeNull();
    }
  });

  it('rejects a revoked key from the next request on, on every endpoint, and accepts a new key', async () => {
    const key = sb.newKey();
    expect(key).toMatch(/^di_live_[0-9a-f]{48}$/);
    expect((await call(sb, 'meta/technologies', { key })).status).toBe(200);
    sb.revokeKey(key);
    for (const [, path, body] of endpoints) {
      const res = await call(sb, path, { key, body });
      expect(res.status, path).toBe(401);
      expect(res.json).toEqual(error('invalid_key'));
    }
    expect((await call(sb, 'meta/technologies')).status).toBe(200);
  });

  it('never takes a key from the query string, and logs the raw URL so a leak is visible', async () => {
    sb.resetCounters();
    const res = await call(sb, `domain/${hosts[0]}?api_key=${sb.key}`, { key: null });
    expect(res.status).toBe(401);
    const [entry] = sb.requests();
    expect(entry?.url).toContain(sb.key);
    expect(entry?.path).not.toContain(sb.key);
    expect(entry?.authorization).toBeNull();
    expect(sb.charges().total).toBe(0);
  });

  it('accepts the scheme in any case', async () => {
    expect((await call(sb, 'meta/technologies', { authorization: `bearer ${sb.key}` })).status).toBe(200);
  });
});

describe('routing', () => {
  it('answers 404 not_found for unknown routes and 405 for the wrong method', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/domain/', '/api/v1/domain/a.com/extra', '/api/v2/domain/abc.com', '/']) {
      const res = await call(sb, path);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual(error('not_found'));
    }
    const wrong = await call(sb, 'domains/batch', { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});
