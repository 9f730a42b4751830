// src/api/http.ts takes undici's Agent and request() from its private files, and the build rewrites a line of
// undici's client.js (scripts/lazy-http2.mjs), to keep `lookup <host>` start-up within its target. Neither is
// undici's public API, so undici is pinned to an exact version: these tests fail when an upgrade moves the
// files, changes what they export, or drops the rewritten line, before a build or a run finds out.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { EAGER_H2, LAZY_H2, lazyHttp2 } from '../../scripts/lazy-http2.mjs';
import { Agent, parseURL, request } from '../../src/api/http.js';
import { ProxyAgent } from '../../src/api/proxy-agent.js';

const require = createRequire(import.meta.url);
const undici = require('undici') as typeof import('undici');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
const CLIENT_JS = require.resolve('undici/lib/dispatcher/client.js');

describe('undici, used through its private files', () => {
  it('is pinned to the exact version installed', () => {
    const installed = (require('undici/package.json') as { version: string }).version;
    expect(pkg.dependencies.undici).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies.undici).toBe(installed);
  });

  it('takes the same Agent class and request() that undici exports publicly', () => {
    expect(Agent).toBe(undici.Agent);
    expect(request).toBe((require('undici/lib/api/index.js') as { request: unknown }).request);
    expect(typeof request).toBe('function');
  });

  it('takes the same ProxyAgent, and puts on dispatchers the same connect() its CONNECT tunnels use, as the index does', () => {
    expect(ProxyAgent).toBe(undici.ProxyAgent);
    const api = require('undici/lib/api/index.js') as { connect: unknown };
    const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as { prototype: { connect?: unknown } };
    expect(typeof api.connect).toBe('function');
    expect(Dispatcher.prototype.connect).toBe(api.connect);
    // The options the client gives it are the ones it reads: tunnel or not, by the base URL's scheme.
    expect(readFileSync(require.resolve('undici/lib/dispatcher/proxy-agent.js'), 'utf8')).toContain('const { proxyTunnel = true } = opts');
  });

  it("checks URLs with undici's own parser", () => {
    expect(parseURL('http://127.0.0.1:8080/api/v1/domains?x=1')).toMatchObject({ origin: 'http://127.0.0.1:8080', pathname: '/api/v1/domains' });
    expect(() => parseURL('ftp://example.com/')).toThrow(undici.errors.InvalidArgumentError);
  });
});

describe('the lazy HTTP/2 rewrite of the bundle', () => {
  const load = (path: string) => {
    let onLoad: ((args: { path: string }) => { contents: string; warnings?: unknown[] }) | undefined;
    lazyHttp2().setup({ onLoad: (_filter: unknown, fn: typeof onLoad) => void (onLoad = fn) } as never);
    return onLoad!({ path });
  };

  it("finds the line it rewrites in undici's client.js", () => {
    expect(readFileSync(CLIENT_JS, 'utf8')).toContain(EAGER_H2);
  });

  it('rewrites it without a warning', () => {
    const out = load(CLIENT_JS);
    expect(out.warnings).toBeUndefined();
    expect(out.contents).toContain(LAZY_H2);
    expect(out.contents).not.toContain(EAGER_H2);
  });
});
