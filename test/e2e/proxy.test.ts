// Behind a forward proxy (issue 29, item 5): HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their lower-case forms),
// --proxy and the stored `proxy` setting, through one resolver. Every request goes through a real proxy this
// test starts on 127.0.0.1: plain http as absolute-URI requests the proxy forwards (and can read: the key is
// warned about), https through a CONNECT tunnel to the sandbox behind a TLS front with a certificate made now
// by openssl (the bin runs as a real process there, trusting it through NODE_EXTRA_CA_CERTS). The proxy says
// what it saw; the sandbox says what it charged.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, runCli, runInProcess } from '../helpers/cli.js';
import { type ForwardProxy, startForwardProxy, startTlsFront, type TlsFront } from '../helpers/proxy.js';

let sb: Sandbox;
let proxy: ForwardProxy;
let env: Record<string, string | undefined>;
let hosts: string[];

/** An environment with no proxy but the one `extra` names (cliEnv drops the machine's). */
const cleanEnv = (extra: Record<string, string>): Record<string, string | undefined> => cliEnv(extra);

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
  hosts = sb.hostList();
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(async () => {
  sb.resetCounters();
  proxy = await startForwardProxy();
  env = cleanEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
});
afterEach(async () => {
  await proxy.close();
});

const origin = () => new URL(sb.baseUrl).origin;

describe('plain http through the proxy (absolute-URI requests)', () => {
  it('HTTP_PROXY sends every request through the proxy, which forwards it; the key crossing it in clear is warned about', async () => {
    const r = await runInProcess(['lookup', hosts[0] as string], { env: { ...env, HTTP_PROXY: proxy.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ status: 'found', host: hosts[0] });
    expect(proxy.seen.map((s) => [s.method, s.target])).toEqual([['GET', `${origin()}/api/v1/domain/${hosts[0]}`]]);
    // What the proxy read: the key, in the clear. Said on stderr, the proxy named.
    expect(proxy.seen[0]?.headers.authorization).toBe(`Bearer ${sb.key}`);
    expect(r.stderr).toContain(`the API key crosses the proxy ${proxy.url} in clear: the base URL ${sb.baseUrl} is plain http`);
    expect(sb.charges().total).toBe(1);
  });

  it('a batch POST goes through too, and the lower-case http_proxy is read first', async () => {
    const other = await startForwardProxy();
    try {
      const r = await runInProcess(['lookup', hosts[0] as string, hosts[1] as string, '--quiet'], {
        env: { ...env, http_proxy: proxy.url, HTTP_PROXY: other.url },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.seen.map((s) => [s.method, s.target])).toEqual([['POST', `${origin()}/api/v1/domains/batch`]]);
      expect(other.seen).toEqual([]);
      expect(sb.charges().total).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('NO_PROXY bypasses it: the sandbox answers directly, the proxy sees nothing, nothing is warned', async () => {
    for (const noProxy of ['127.0.0.1', `localhost,127.0.0.1:${new URL(sb.baseUrl).port}`, '*', '127.0.0.0/8', 'example.com, 127.0.0.1']) {
      const r = await runInProcess(['lookup', hosts[0] as string], { env: { ...env, HTTP_PROXY: proxy.url, NO_PROXY: noProxy } });
      expect(r.code, `${noProxy}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toContain('proxy');
    }
    const lower = await runInProcess(['lookup', hosts[1] as string], { env: { ...env, http_proxy: proxy.url, no_proxy: '127.0.0.1' } });
    expect(lower.code).toBe(0);
    expect(proxy.seen).toEqual([]);
    // A NO_PROXY entry for another port, or another host, does not bypass it.
    const wrongPort = await runInProcess(['lookup', hosts[2] as string, '--quiet'], {
      env: { ...env, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1,example.com' },
    });
    expect(wrongPort.code).toBe(0);
    expect(proxy.seen).toHaveLength(1);
  });

  it('--proxy beats the environment, which beats the stored setting; none at any layer means none', async () => {
    const envProxy = await startForwardProxy();
    const stored = await startForwardProxy();
    try {
      expect((await runInProcess(['config', 'set', 'proxy', stored.url], { env })).code).toBe(0);
      await runInProcess(['lookup', hosts[0] as string, '--quiet'], { env });
      expect(stored.seen).toHaveLength(1);
      await runInProcess(['lookup', hosts[1] as string, '--quiet'], { env: { ...env, HTTP_PROXY: envProxy.url } });
      expect(envProxy.seen).toHaveLength(1);
      await runInProcess(['lookup', hosts[2] as string, '--quiet', '--proxy', proxy.url], { env: { ...env, HTTP_PROXY: envProxy.url } });
      expect(proxy.seen).toHaveLength(1);
      const none = await runInProcess(['lookup', hosts[3] as string, '--proxy', 'none'], { env: { ...env, HTTP_PROXY: envProxy.url } });
      expect(none.code).toBe(0);
      expect(none.stderr).not.toContain('proxy');
      await runInProcess(['lookup', hosts[4] as string, '--quiet'], { env: { ...env, HTTP_PROXY: 'none' } });
      expect([proxy.seen.length, envProxy.seen.length, stored.seen.length]).toEqual([1, 1, 1]);
      expect(sb.charges().total).toBe(5);
      // config show says which is in force and where it came from.
      const show = JSON.parse((await runInProcess(['config', 'show'], { env: { ...env, HTTP_PROXY: envProxy.url } })).stdout) as { proxy: unknown };
      expect(show.proxy).toEqual({ url: envProxy.url, source: 'env', from: 'HTTP_PROXY', bypassedBy: null });
      const set = await runInProcess(['config', 'set', 'proxy', stored.url], { env: { ...env, HTTPS_PROXY: envProxy.url } });
      expect(set.stderr).toContain('HTTPS_PROXY is set in this environment and wins over the stored setting');
    } finally {
      await envProxy.close();
      await stored.close();
    }
  });
});

describe('a proxy that asks for a user and password', () => {
  const password = 'pr0xy-s3cret-Passw0rd';
  let locked: ForwardProxy;
  beforeEach(async () => {
    locked = await startForwardProxy({ auth: `ana:${password}` });
  });
  afterEach(async () => {
    await locked.close();
  });

  it('is given them from its URL, which is shown everywhere with the password masked', async () => {
    const withAuth = `http://ana:${password}@127.0.0.1:${locked.port}`;
    const r = await runInProcess(['lookup', hosts[0] as string, '--debug'], { env: { ...env, HTTP_PROXY: withAuth } });
    expect(r.code, r.stderr).toBe(0);
    expect(locked.seen.map((s) => s.headers['proxy-authorization'])).toEqual([`Basic ${Buffer.from(`ana:${password}`).toString('base64')}`]);
    expect(r.stderr).toContain(`ana:***@127.0.0.1:${locked.port}`);
    const shows = [
      await runInProcess(['config', 'show'], { env: { ...env, HTTP_PROXY: withAuth } }),
      await runInProcess(['config', 'show'], { env: { ...env, HTTP_PROXY: withAuth }, stdoutTTY: true, columns: 200 }),
      await runInProcess(['config', 'set', 'proxy', withAuth], { env }),
      await runInProcess(['config', 'show'], { env }),
    ];
    expect(shows[1]?.stdout).toMatch(/^proxy: +http:\/\/ana:\*\*\*@127\.0\.0\.1:\d+ {2}\(HTTP_PROXY\)$/m);
    expect(shows[2]?.stderr).toContain(`proxy set to http://ana:***@127.0.0.1:${locked.port}`);
    for (const out of [r, ...shows]) {
      expect(out.stdout + out.stderr).not.toContain(password);
      expect(out.stdout + out.stderr).not.toContain(encodeURIComponent(password));
    }
  });

  it('a wrong password is a 407, said as such, never retried, and nothing is spent (exit 7)', async () => {
    const r = await runInProcess(['lookup', hosts[0] as string], { env: { ...env, HTTP_PROXY: `http://ana:wrong-password@127.0.0.1:${locked.port}` } });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`the proxy http://ana:***@127.0.0.1:${locked.port} asks for a user and password (407)`);
    expect(r.stderr).toContain('the proxy comes from HTTP_PROXY: --proxy URL sets another; --proxy none, or NO_PROXY, goes direct');
    expect(r.stderr).not.toContain('wrong-password');
    expect(locked.seen).toHaveLength(1);
    expect(sb.charges().total).toBe(0);
  });
});

it('a proxy that cannot be reached is named as what failed, with where it came from (exit 7)', async () => {
  const gone = await startForwardProxy();
  await gone.close();
  const r = await runInProcess(['lookup', hosts[0] as string], { env: { ...env, HTTP_PROXY: gone.url } });
  expect(r.code).toBe(7);
  expect(r.stderr).toContain(`cannot reach the proxy ${gone.url} (on the way to ${sb.baseUrl}): the connection was refused`);
  expect(r.stderr).toContain('the proxy comes from HTTP_PROXY');
  expect(sb.charges().total).toBe(0);
});

it('a proxy URL that is not one is refused before anything is sent, without repeating it (exit 2)', async () => {
  for (const [bad, said] of [
    ['socks5://127.0.0.1:1080', 'HTTP_PROXY: a proxy is reached by http:// or https://, not socks5:'],
    ['http://ana:pw@proxy.example:3128/path', 'HTTP_PROXY is not a proxy URL: it is http://host:port, with nothing after the port'],
  ] as const) {
    const r = await runInProcess(['lookup', hosts[0] as string], { env: { ...env, HTTP_PROXY: bad } });
    expect(r.code, bad).toBe(2);
    expect(r.stderr).toContain(said);
    expect(r.stderr).not.toContain('pw@');
  }
  expect((await runInProcess(['lookup', hosts[0] as string, '--proxy', '127.0.0.1:1'], { env })).stderr).toContain('cannot reach the proxy http://127.0.0.1:1');
  expect(sb.charges().total).toBe(0);
});

describe('https through a CONNECT tunnel (the bin, a real process trusting a certificate made now)', () => {
  let front: TlsFront;
  beforeAll(async () => {
    assertBuilt();
    front = await startTlsFront(Number(new URL(sb.baseUrl).port));
  });
  afterAll(async () => {
    await front?.close();
  });

  it('HTTPS_PROXY: the proxy opens a tunnel and sees nothing inside it (no key, no path); no warning', async () => {
    const https = cleanEnv({ DOMAIN_INTEL_BASE_URL: front.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, NODE_EXTRA_CA_CERTS: front.certFile, HTTPS_PROXY: proxy.url });
    const r = await runCli(['lookup', hosts[0] as string, hosts[1] as string], { env: https as NodeJS.ProcessEnv });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { status: string }[]).map((row) => row.status)).toEqual(['found', 'found']);
    const hostPort = new URL(front.baseUrl).host;
    expect(proxy.seen.map((s) => [s.method, s.target])).toEqual([['CONNECT', hostPort]]);
    expect(JSON.stringify(proxy.seen)).not.toContain(sb.key);
    expect(r.stderr).not.toContain('in clear');
    expect(sb.charges().total).toBe(2);
    // NO_PROXY sends it direct: the proxy sees nothing more.
    const direct = await runCli(['lookup', hosts[2] as string], { env: { ...https, NO_PROXY: '127.0.0.1' } as NodeJS.ProcessEnv });
    expect(direct.code, direct.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(1);
    expect(sb.charges().total).toBe(3);
  });
});
