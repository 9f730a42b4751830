// Which proxy a base URL goes through (issue 29): the layers, the variables by scheme, NO_PROXY, and masking.
import { describe, expect, it } from 'vitest';
import { resolveConfig, settingValue } from '../../src/config/resolve.js';
import { bypassEntry, maskProxy, normaliseProxyUrl, resolveProxy } from '../../src/config/proxy.js';
import { memorySettings } from '../../src/config/settings.js';

const HTTPS = 'https://api.example.com/api/v1';
const HTTP = 'http://127.0.0.1:8080/api/v1';

describe('resolveProxy', () => {
  it('default < stored < environment < --proxy, each saying where it came from', () => {
    const env = { HTTPS_PROXY: 'http://env.proxy:3128' };
    expect(resolveProxy({ env: {}, baseUrl: HTTPS })).toMatchObject({ url: null, source: 'default', from: null });
    expect(resolveProxy({ env: {}, stored: 'stored.proxy:8080', baseUrl: HTTPS })).toMatchObject({
      url: 'http://stored.proxy:8080',
      source: 'stored',
      from: 'the stored setting (config set proxy)',
    });
    expect(resolveProxy({ env, stored: 'stored.proxy:8080', baseUrl: HTTPS })).toMatchObject({
      url: 'http://env.proxy:3128',
      source: 'env',
      from: 'HTTPS_PROXY',
    });
    expect(resolveProxy({ env, flag: 'https://flag.proxy', stored: 'x:1', baseUrl: HTTPS })).toMatchObject({
      url: 'https://flag.proxy',
      source: 'flag',
      from: '--proxy',
    });
    // `none` at a layer means none, whatever a lower one says.
    expect(resolveProxy({ env, flag: 'none', baseUrl: HTTPS })).toMatchObject({ url: null, source: 'flag' });
    expect(resolveProxy({ env: { HTTPS_PROXY: 'NONE' }, stored: 'x:1', baseUrl: HTTPS })).toMatchObject({ url: null, source: 'env' });
  });

  it('reads the variables of the base URL scheme, lower-case first; https falls back to the HTTP proxy', () => {
    const both = { https_proxy: 'a:1', HTTPS_PROXY: 'b:1', http_proxy: 'c:1', HTTP_PROXY: 'd:1' };
    expect(resolveProxy({ env: both, baseUrl: HTTPS }).url).toBe('http://a:1');
    expect(resolveProxy({ env: { ...both, https_proxy: ' ' }, baseUrl: HTTPS }).url).toBe('http://b:1');
    expect(resolveProxy({ env: { HTTP_PROXY: 'd:1' }, baseUrl: HTTPS })).toMatchObject({ url: 'http://d:1', from: 'HTTP_PROXY' });
    expect(resolveProxy({ env: both, baseUrl: HTTP }).url).toBe('http://c:1');
    // An http base URL never takes the HTTPS proxy.
    expect(resolveProxy({ env: { HTTPS_PROXY: 'b:1' }, baseUrl: HTTP }).url).toBeNull();
  });

  it('NO_PROXY sends a base URL direct, whichever layer named the proxy, and says which entry did', () => {
    const env = { HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'localhost, .example.com' };
    expect(resolveProxy({ env, baseUrl: HTTPS })).toMatchObject({ url: null, shown: 'http://p:3128', bypassedBy: '.example.com' });
    expect(resolveProxy({ env: { no_proxy: '*' }, flag: 'p:1', baseUrl: HTTPS })).toMatchObject({ url: null, bypassedBy: '*' });
  });

  it('refuses what is not a proxy URL, naming where it came from and never repeating it', () => {
    expect(() => resolveProxy({ env: { HTTPS_PROXY: 'socks5://u:secret@p:1080' }, baseUrl: HTTPS })).toThrow(
      /^HTTPS_PROXY: a proxy is reached by http:\/\/ or https:\/\/, not socks5:$/,
    );
    expect(() => resolveProxy({ env: {}, flag: 'http://u:secret@p:1/x', baseUrl: HTTPS })).toThrow(/^--proxy is not a proxy URL: it is http:\/\/host:port/);
    expect(() => resolveProxy({ env: {}, stored: 'http://[bad', baseUrl: HTTPS })).toThrow(
      /^the stored setting \(config set proxy\) is not a proxy URL \(http:\/\/host:port, or none\)$/,
    );
  });
});

describe('bypassEntry (NO_PROXY)', () => {
  const at = (url: string, list: string) => bypassEntry(list, new URL(url));
  it('matches a name and every host under it, an address, an IPv4 range, each with an optional port', () => {
    expect(at('https://api.example.com/', 'example.com')).toBe('example.com');
    expect(at('https://api.example.com/', '*.example.com')).toBe('*.example.com');
    expect(at('https://example.com/', '.example.com')).toBe('.example.com');
    expect(at('https://badexample.com/', 'example.com')).toBeNull();
    expect(at('http://127.0.0.1:8080/', '127.0.0.1:8080')).toBe('127.0.0.1:8080');
    expect(at('http://127.0.0.1:8080/', '127.0.0.1:9090')).toBeNull();
    expect(at('https://10.1.2.3/', '10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(at('https://11.1.2.3/', '10.0.0.0/8')).toBeNull();
    expect(at('http://[::1]:8787/', '::1')).toBe('::1');
    expect(at('https://api.example.com/', '')).toBeNull();
  });
});

describe('a proxy URL', () => {
  it('is http:// or https://, a bare host:port being http://; its password is masked wherever shown', () => {
    expect(normaliseProxyUrl('proxy.corp:3128', '--proxy')).toBe('http://proxy.corp:3128');
    expect(normaliseProxyUrl('http://ana:p%40ss@proxy.corp:3128/', '--proxy')).toBe('http://ana:p%40ss@proxy.corp:3128');
    expect(maskProxy('http://ana:p%40ss@proxy.corp:3128')).toBe('http://ana:***@proxy.corp:3128');
    expect(maskProxy('http://proxy.corp:3128')).toBe('http://proxy.corp:3128');
    expect(settingValue('proxy', 'None')).toBe('none');
    expect(settingValue('proxy', 'proxy.corp:3128')).toBe('http://proxy.corp:3128');
  });

  it('is in the resolved config, from the stored setting too', () => {
    const c = resolveConfig({ env: {}, settings: memorySettings({ proxy: 'http://ana:pw@p.corp:1' }) });
    expect(c.proxy).toMatchObject({ url: 'http://ana:pw@p.corp:1', shown: 'http://ana:***@p.corp:1', source: 'stored' });
  });
});
