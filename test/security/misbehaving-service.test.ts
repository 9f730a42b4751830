// A misbehaving service: garbage, truncated and HTML bodies, reset connections, a wrong content type, a batch
// answer that leaves a host out or answers for hosts nobody asked about, an endless body, a trickle. The run
// never crashes (no stack trace, a documented exit code), rows in error carry a reason, a found row always
// carries its own host's data, and an absurd answer is refused without being read whole.
import { setTimeout as delay } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { DomainIntelClient } from '../../src/api/client.js';
import { NetworkError, ProtocolError } from '../../src/api/errors.js';
import { isRetryable } from '../../src/api/retry.js';
import { startSandbox, type FaultRates } from '../../src/sandbox/index.js';
import { STACK_FRAME, SAMPLE_CSV, fakeKey, requireBuild, runCli, sendJson, spawnCli, startServer, tempHome, type TestServer } from './helpers.js';

interface Row {
  line: number;
  status: 'found' | 'missing' | 'invalid' | 'error';
  host: string | null;
  reason: string | null;
  data: { domain: string; registrar?: string | null } | null;
}

const ndjson = (text: string): Row[] =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

/** A sandbox with one fault at rate 1, and a sealed home pointing at it. */
async function faulty(kind: keyof FaultRates) {
  const sb = await startSandbox({ port: 0, faults: { [kind]: 1 } });
  const home = tempHome(sb);
  return {
    sb,
    home,
    run: (args: string[]) => runCli(args, { env: home.env() }),
    async close() {
      home.remove();
      await sb.close();
    },
  };
}

beforeAll(() => requireBuild());

describe.concurrent('sandbox faults at rate 1 (batch of fixtures/sample.csv, --retries 1)', () => {
  // Every request fails: rows in error with the reason, nothing found; exit 7 because nothing at all came
  // back (runExit in src/cli/exit-codes.ts: "service unreachable or failing"), 4 when only some rows failed.
  const broken: [keyof FaultRates, RegExp][] = [
    ['garbage', /not valid JSON/],
    ['truncated', /not valid JSON.*truncated/],
    ['html500', /unexpected answer 500/],
    ['reset', /connection failed|socket|closed|terminated/i],
  ];
  for (const [kind, reason] of broken) {
    it(`${kind}: every row in error with a reason, no crash, exit 7`, async () => {
      const t = await faulty(kind);
      try {
        const r = await t.run(['batch', SAMPLE_CSV, '--retries', '1', '--format', 'ndjson']);
        expect(r.timedOut).toBe(false);
        expect(r.code, r.stderr).toBe(7);
        expect(r.stderr).not.toMatch(STACK_FRAME);
        expect(r.stderr).toMatch(/rows in error \(the first: [^\n]+\); run the same command again/);
        const rows = ndjson(r.stdout);
        expect(rows).toHaveLength(41);
        expect(rows.filter((x) => x.status === 'found')).toEqual([]);
        for (const row of rows.filter((x) => x.status !== 'invalid')) {
          expect(row.status).toBe('error');
          expect(row.reason).toMatch(reason);
          expect(row.reason).toMatch(/after 1 retry\)/);
          expect(row.data).toBeNull();
        }
        expect(rows.filter((x) => x.status === 'invalid').every((x) => typeof x.reason === 'string' && x.reason !== '')).toBe(true);
        // The first request asks about one host (the quota is not known yet), then one batch: each retried once, no more.
        expect(t.sb.requests().map((q) => q.fault)).toEqual([kind, kind, kind, kind]);
      } finally {
        await t.close();
      }
    });
  }

  it('garbage on a single lookup: exit 7, the last line says why, --json gives the code', async () => {
    const t = await faulty('garbage');
    try {
      const host = t.sb.hostList()[0]!;
      const r = await t.run(['lookup', host, '--retries', '1']);
      expect(r.code).toBe(7);
      expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^error: .*not valid JSON/);
      expect(r.stderr).not.toMatch(STACK_FRAME);
      const json = await t.run(['--json', 'lookup', host, '--retries', '0']);
      expect(json.code).toBe(7);
      expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'bad_json', host, exit: 7 });
    } finally {
      await t.close();
    }
  });

  it('truncated answers on a per-host endpoint (traffic --input): rows in error, exit 7', async () => {
    const t = await faulty('truncated');
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(t.home.path('hosts.txt'), t.sb.hostList().slice(0, 3).join('\n'));
      const r = await t.run(['traffic', '--input', t.home.path('hosts.txt'), '--retries', '1', '--format', 'ndjson']);
      expect(r.code, r.stderr).toBe(7);
      expect(ndjson(r.stdout).map((x) => x.status)).toEqual(['error', 'error', 'error']);
      expect(r.stderr).not.toMatch(STACK_FRAME);
    } finally {
      await t.close();
    }
  });

  it('wrong content type: liberal, the JSON is used; every found row holds its own host', async () => {
    const t = await faulty('wrongType');
    try {
      const r = await t.run(['batch', SAMPLE_CSV, '--retries', '1', '--format', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      const rows = ndjson(r.stdout);
      expect(rows.filter((x) => x.status === 'error')).toEqual([]);
      const found = rows.filter((x) => x.status === 'found');
      expect(found.length).toBeGreaterThan(30);
      for (const row of found) expect(row.data?.domain).toBe(row.host);
      expect(t.sb.requests().every((q) => q.fault === 'wrongType')).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('omitHost: the left-out host is in error with a reason, the others are found, never a wrong row; exit 4', async () => {
    const t = await faulty('omitHost');
    try {
      const r = await t.run(['batch', SAMPLE_CSV, '--retries', '1', '--format', 'ndjson']);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).not.toMatch(STACK_FRAME);
      const rows = ndjson(r.stdout);
      const errored = rows.filter((x) => x.status === 'error');
      // One host dropped per request (all its rows): the first request's one host (the quota not known yet), and one of the batch.
      expect(new Set(errored.map((x) => x.host)).size).toBe(t.sb.requests().length);
      expect(t.sb.requests().length).toBe(2);
      for (const row of errored) expect(row.reason).toMatch(/left this host out/);
      const found = rows.filter((x) => x.status === 'found');
      expect(found.length).toBeGreaterThan(30);
      for (const row of found) expect(row.data?.domain).toBe(row.host);
    } finally {
      await t.close();
    }
  });
});

describe('a batch answer about the wrong hosts', () => {
  it('answers for unrequested hosts are ignored; a requested host left out is an error, never another host’s row', async () => {
    // Asked [a, b, c]: answers b and c (in reverse order, upper-cased), plus a host nobody asked for.
    const server = await startServer((req, res) => {
      if (req.method !== 'POST') return sendJson(res, 404, { error: 'not_found' });
      const { domains } = JSON.parse(req.body) as { domains: string[] };
      const answer = [...domains.slice(1).reverse(), 'intruder.example'].map((d) => ({ domain: d.toUpperCase(), registrar: `for-${d}` }));
      sendJson(res, 200, { data: answer, missing: [] });
    });
    const home = tempHome({ baseUrl: server.baseUrl, key: fakeKey('wrong-hosts') });
    try {
      const r = await runCli(['lookup', 'aa.example', 'bb.example', 'cc.example', '--format', 'ndjson', '--retries', '0'], { env: home.env() });
      expect(r.code, r.stderr).toBe(4);
      const rows = ndjson(r.stdout);
      expect(rows.map((x) => [x.host, x.status])).toEqual([
        ['aa.example', 'error'],
        ['bb.example', 'found'],
        ['cc.example', 'found'],
      ]);
      expect(rows[0]!.reason).toMatch(/left this host out/);
      for (const row of rows.slice(1)) {
        expect(row.data?.domain).toBe(row.host);
        expect(row.data?.registrar).toBe(`for-${row.host}`);
      }
      expect(r.stdout).not.toContain('intruder');
    } finally {
      home.remove();
      await server.close();
    }
  });
});

describe('an answer about another host', () => {
  it('single lookups refuse it (bad_response), so it is neither printed nor cached as the host asked', async () => {
    const server = await startServer((req, res) => {
      const profile = { domain: 'other.example', registrar: 'not-yours' };
      if (req.url.includes('/domain/')) return sendJson(res, 200, { data: profile });
      if (req.url.includes('/traffic/'))
        return sendJson(res, 200, { data: { host: 'other.example', estimated_monthly_visits: 1, band: 'x', as_of: '2026-01', history: [] } });
      if (req.url.includes('/employees/'))
        return sendJson(res, 200, {
          data: { host: 'other.example', apex: 'other.example', estimated_employees: { low: 1, high: 2, point: null }, as_of: '2026-01-01' },
        });
      return sendJson(res, 404, { error: 'not_found' });
    });
    const client = new DomainIntelClient({ baseUrl: server.baseUrl, apiKey: fakeKey('other-host') });
    try {
      for (const call of [() => client.domain('mine.example'), () => client.traffic('mine.example'), () => client.employees('mine.example')]) {
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ProtocolError);
        expect(err).toMatchObject({ code: 'bad_response', host: 'mine.example' });
        expect((err as Error).message).toMatch(/other\.example.*not the host asked about/);
      }
      // The same host in other case is the same host.
      const upper = await startServer((_req, res) => sendJson(res, 200, { data: { domain: 'MINE.example' } }));
      const c2 = new DomainIntelClient({ baseUrl: upper.baseUrl, apiKey: fakeKey('other-host') });
      try {
        expect((await c2.domain('mine.example')).data.domain).toBe('mine.example');
      } finally {
        await c2.close();
        await upper.close();
      }
    } finally {
      await client.close();
      await server.close();
    }
  });
});

/** A server whose 200 answer to /domain/x.com is `total` bytes of JSON-ish text, streamed with back-pressure. */
async function endlessServer(total: number): Promise<TestServer & { sent: () => number; closedEarly: () => boolean }> {
  let sent = 0;
  let closedEarly = false;
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const server = await startServer(async (_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":{"domain":"x.com","registrar":"');
    res.on('close', () => {
      if (sent < total) closedEarly = true;
    });
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        await new Promise<void>((ok) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            ok();
          };
          res.on('drain', done).on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end('"}}');
  });
  return Object.assign(server, { sent: () => sent, closedEarly: () => closedEarly });
}

describe('an absurd answer size', () => {
  it('library: maxBodyBytes refuses a 100 MB body early (too_large, not retried) with flat memory', async () => {
    const server = await endlessServer(100 * 1024 * 1024);
    const client = new DomainIntelClient({ baseUrl: server.baseUrl, apiKey: fakeKey('big'), maxBodyBytes: 1024 * 1024 });
    try {
      const rss = process.memoryUsage().rss;
      const started = Date.now();
      const err = await client.domain('x.com').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).code).toBe('too_large');
      expect(isRetryable(err)).toBe(false); // fetching it again would only read it again
      expect(Date.now() - started).toBeLessThan(3_000);
      await delay(100);
      expect(server.closedEarly()).toBe(true);
      expect(server.sent()).toBeLessThan(16 * 1024 * 1024);
      expect(process.memoryUsage().rss - rss).toBeLessThan(96 * 1024 * 1024);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('CLI: the default 32 MiB cap stops a 100 MB answer quickly, without reading it all, RSS bounded', async () => {
    const server = await endlessServer(100 * 1024 * 1024);
    const home = tempHome({ baseUrl: server.baseUrl, key: fakeKey('big-cli') });
    try {
      const r = await spawnCli(['lookup', 'x.com', '--retries', '3'], { env: home.env(), cwd: home.root, sampleRss: true, timeoutMs: 20_000 });
      expect(r.timedOut).toBe(false);
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toMatch(/exceeded 33554432 bytes; refused/);
      expect(r.stderr).not.toMatch(STACK_FRAME);
      expect(r.ms).toBeLessThan(10_000);
      expect(server.requests).toHaveLength(1); // not retried
      await delay(100);
      expect(server.closedEarly()).toBe(true);
      // 32 MiB read plus what the kernel's socket buffers took; reading all 100 MB would be far past both bounds.
      expect(server.sent()).toBeLessThan(48 * 1024 * 1024);
      if (r.peakRss !== null) expect(r.peakRss).toBeLessThan(256 * 1024 * 1024);
    } finally {
      home.remove();
      await server.close();
    }
  });
});

describe.concurrent('an answer that trickles', () => {
  /** Headers at once, then one byte every 50 ms, forever. */
  async function trickle(): Promise<TestServer> {
    return startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
      res.on('close', () => clearInterval(timer));
    });
  }

  it('library: the whole-request timeout ends it (a byte now and then does not keep it alive)', async () => {
    const server = await trickle();
    const client = new DomainIntelClient({ baseUrl: server.baseUrl, apiKey: fakeKey('slow'), timeoutMs: 500 });
    try {
      const started = Date.now();
      const err = await client.domain('x.com').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).code).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('CLI: --timeout bounds the run; exit 7, one line', async () => {
    const server = await trickle();
    const home = tempHome({ baseUrl: server.baseUrl, key: fakeKey('slow-cli') });
    try {
      const r = await runCli(['lookup', 'x.com', '--timeout', '600ms', '--retries', '0'], { env: home.env() });
      expect(r.code, r.stderr).toBe(7);
      expect(r.ms).toBeLessThan(5_000);
      expect(r.stderr.trim()).toBe(`error: domain x.com: no answer from ${server.baseUrl} within 0.6 s`);
    } finally {
      home.remove();
      await server.close();
    }
  });
});
