import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { batch, call } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function open(options: SandboxOptions): Promise<Sandbox> {
  sb = await startSandbox({ hosts: 300, ...options });
  return sb;
}

describe('faults', () => {
  it('unavailable: 503 metering_unavailable on every endpoint but the catalog, nothing spent, no quota headers', async () => {
    const s = await open({ faults: { unavailable: 1 } });
    const host = s.hostList()[0] as string;
    const answers = [
      await call(s, `domain/${host}`),
      await batch(s, [host]),
      await call(s, `traffic/${host}`),
      await call(s, `employees/${host}`),
      await call(s, 'technology/Node.js'),
    ];
    for (const res of answers) {
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ error: 'metering_unavailable' });
      expect(res.headers.get('x-quota-remaining')).toBeNull();
    }
    expect((await call(s, 'meta/technologies')).status).toBe(200);
    expect(s.charges()).toMatchObject({ total: 0, unavailable: 5, remaining: 50_000 });
  });

  it('burst503: 503s come in runs of at least 3', async () => {
    const s = await open({ faults: { burst503: 0.05 }, seed: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) statuses.push((await call(s, 'technology/Node.js')).status);
    const runs = statuses
      .join('')
      .split(/200/)
      .filter((run) => run.length > 0)
      .map((run) => run.length / 3);
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run).toBeGreaterThanOrEqual(3);
    expect(s.requests().filter((r) => r.fault === 'burst503')).toHaveLength(statuses.filter((st) => st === 503).length);
  });

  it('html500: 500 with an HTML body, nothing spent', async () => {
    const s = await open({ faults: { html500: 1 } });
    const res = await call(s, `domain/${s.hostList()[0]}`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(s.charges().total).toBe(0);
  });

  it('reset: the connection drops mid-body after the lookup was spent', async () => {
    const s = await open({ faults: { reset: 1 } });
    await expect(call(s, `domain/${s.hostList()[0]}`)).rejects.toThrow();
    expect(s.charges().total).toBe(1);
    expect(s.requests()[0]?.fault).toBe('reset');
  });

  it('truncated: a complete 200 whose JSON is cut in half, spent', async () => {
    const s = await open({ faults: { truncated: 1 } });
    const host = s.hostList()[0] as string;
    const res = await call(s, `domain/${host}`);
    expect(res.status).toBe(200);
    expect(res.json).toBeUndefined();
    expect(JSON.stringify({ data: s.dataset.profile(host) }).startsWith(res.text)).toBe(true);
    expect(s.charges().total).toBe(1);
  });

  it('garbage: a 200 labelled JSON that is not JSON, spent', async () => {
    const s = await open({ faults: { garbage: 1 } });
    const res = await call(s, `traffic/${s.hostList()[0]}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toBeUndefined();
    expect(s.charges().total).toBe(1);
  });

  it('wrongType: valid JSON served as text/plain, spent', async () => {
    const s = await open({ faults: { wrongType: 1 } });
    const host = s.hostList()[0] as string;
    const res = await call(s, `domain/${host}`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.json).toEqual({ data: s.dataset.profile(host) });
    expect(s.charges().total).toBe(1);
  });

  it('omitHost: one submitted host is in neither data nor missing, all are charged', async () => {
    const s = await open({ faults: { omitHost: 1 } });
    const submitted = [...s.hostList().slice(0, 3), 'gone.example'];
    const res = await batch(s, submitted);
    const body = res.json as { data: { domain: string }[]; missing: string[] };
    const answered = [...body.data.map((p) => p.domain), ...body.missing];
    expect(answered).toHaveLength(3);
    expect(submitted.filter((h) => !answered.includes(h))).toHaveLength(1);
    expect(s.charges().total).toBe(4);
    // Only batches are affected.
    expect((await call(s, `domain/${submitted[0]}`)).status).toBe(200);
  });

  it('slow and latency delay responses', async () => {
    const s = await open({ faults: { slow: 1 }, slowMs: 150, latencyMs: 50, latencyJitterMs: 20 });
    const started = Date.now();
    expect((await call(s, 'meta/technologies')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
    expect(s.requests()[0]?.fault).toBe('slow');
  });

  it('draws the same fault sequence for the same seed and request order', async () => {
    const faults = { unavailable: 0.1, html500: 0.1, truncated: 0.1, garbage: 0.1, wrongType: 0.1, slow: 0.05 };
    const sequence = async (seed: number): Promise<(string | null)[]> => {
      const s = await startSandbox({ hosts: 50, seed, faults, slowMs: 1 });
      for (let i = 0; i < 60; i++) await call(s, `domain/${s.hostList()[i % 50]}`);
      const out = s.requests().map((r) => r.fault);
      await s.close();
      return out;
    };
    const a = await sequence(11);
    expect(await sequence(11)).toEqual(a);
    expect(await sequence(12)).not.toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(3);
  });

  it('rejects fault rates outside 0..1 and unknown kinds', async () => {
    await expect(startSandbox({ faults: { reset: 2 } })).rejects.toThrow(RangeError);
    await expect(startSandbox({ faults: { nope: 0.1 } as never })).rejects.toThrow(RangeError);
  });
});

describe('server', () => {
  it('serves many concurrent requests over keep-alive connections', async () => {
    const s = await open({ rpm: 0 });
    const agent = new Agent({ connections: 16 });
    const hosts = s.hostList();
    const answers = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const res = await request(`${s.baseUrl}/domain/${hosts[i % hosts.length]}`, { dispatcher: agent, headers: { authorization: `Bearer ${s.key}` } });
        await res.body.json();
        return res.statusCode;
      }),
    );
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(s.charges().total).toBe(400);
    await agent.close();
  });

  it('closes quickly with a response still pending', async () => {
    const s = await open({ faults: { slow: 1 }, slowMs: 30_000 });
    const pending = call(s, 'meta/technologies');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await s.close();
    sb = undefined;
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
  });
});
