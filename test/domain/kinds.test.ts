import { afterEach, describe, expect, it } from 'vitest';
import { DomainIntelClient } from '../../src/api/client.js';
import { NotFoundError } from '../../src/api/errors.js';
import type { DomainProfile } from '../../src/api/types.js';
import { KINDS } from '../../src/domain/kinds.js';
import { harness, type Harness } from '../helpers/run.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('run kind specs', () => {
  it('name the endpoint, the key of a host and the batch size of each kind', () => {
    expect(Object.entries(KINDS).map(([kind, s]) => [kind, s.endpoint, s.batchSize])).toEqual([
      ['profile', 'domain', 100],
      ['traffic', 'traffic', 1],
      ['employees', 'employees', 1],
    ]);
    expect(KINDS.profile.keyOf('shop.example.co.uk')).toBe('shop.example.co.uk');
    expect(KINDS.traffic.keyOf('shop.example.co.uk')).toBe('shop.example.co.uk');
    expect(KINDS.employees.keyOf('shop.example.co.uk')).toBe('example.co.uk');
  });

  it('fan an answer out to a row: employees rows keep their own host, others take the answer as it is', () => {
    const body = { host: 'www.example.com', apex: 'example.com' };
    expect(KINDS.employees.fanOut(body, 'shop.example.com')).toEqual({ host: 'shop.example.com', apex: 'example.com' });
    expect(body.host).toBe('www.example.com'); // the stored answer is not changed
    expect(KINDS.employees.fanOut(null, 'x.example')).toBeNull();
    expect(KINDS.traffic.fanOut(body, 'shop.example.com')).toBe(body);
  });

  it('profile: one batch call answers found and missing keys', async () => {
    h = await harness({ rpm: 0 });
    const [a, b] = h.sb.hostList();
    const answer = await KINDS.profile.call(h.client, [a!, b!, 'absent.example'], (k) => k, {});
    expect([...answer.found.keys()].sort()).toEqual([a, b].sort());
    expect((answer.found.get(a!) as DomainProfile).domain).toBe(a);
    expect([...answer.missing]).toEqual(['absent.example']);
    expect(answer.quota?.remaining).toBeTypeOf('number');
    expect(h.sb.requests().map((r) => r.operation)).toEqual(['batch']);
  });

  it('traffic and employees: a 404 is an answer (missing, charged), not an error', async () => {
    h = await harness({ rpm: 0 });
    const traffic = await KINDS.traffic.call(h.client, ['absent.example'], (k) => k, {});
    expect([...traffic.missing]).toEqual(['absent.example']);
    expect(traffic.found.size).toBe(0);
    expect(traffic.quota).not.toBeNull();
    const employees = await KINDS.employees.call(h.client, ['absent.example'], () => 'www.absent.example', {});
    expect([...employees.missing]).toEqual(['absent.example']);
    expect(h.sb.charges().total).toBe(2);
    expect(employees.found.size).toBe(0);
  });

  it('employees: the apex is looked up through the host of its first row', async () => {
    h = await harness({ rpm: 0 });
    const host = h.sb.hostList()[0]!;
    const apex = KINDS.employees.keyOf(host);
    const answer = await KINDS.employees.call(h.client, [apex], () => host, {});
    expect(answer.found.has(apex) || answer.missing.has(apex)).toBe(true);
    expect(h.sb.requests()[0]!.hosts).toEqual([host]);
  });

  it('profile: a metered 404 answers an all-absent batch (every host missing, charged); one without quota headers stays an error', async () => {
    h = await harness({ rpm: 0, allAbsent: 'not-found' });
    const answer = await KINDS.profile.call(h.client, ['absent-a.example', 'absent-b.example'], (k) => k, {});
    expect([...answer.missing].sort()).toEqual(['absent-a.example', 'absent-b.example']);
    expect(answer.found.size).toBe(0);
    expect(answer.quota?.remaining).toBeTypeOf('number');
    expect(h.sb.charges().total).toBe(2);
    // A wrong base URL: the sandbox answers an unknown route 404 with no quota headers, and charges nothing.
    const wrong = new DomainIntelClient({ baseUrl: `${h.sb.url}/elsewhere/api/v1`, apiKey: h.sb.key });
    const err = await KINDS.profile.call(wrong, ['absent-a.example'], (k) => k, {}).catch((e: unknown) => e);
    await wrong.close();
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).quota).toBeNull();
    expect(h.sb.charges().total).toBe(2);
  });
});
