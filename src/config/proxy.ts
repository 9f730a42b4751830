// Which forward proxy requests to the service go through (issue 29): behind a corporate proxy the tool could
// not reach the service at all. The rule, as curl and most command-line tools read it:
// - `--proxy URL` beats the environment, which beats the stored setting (`config set proxy URL`), as every
//   setting (config.ts); `none` at any of them means no proxy, whatever a lower one says.
// - The environment: https_proxy / HTTPS_PROXY for an https:// base URL, http_proxy / HTTP_PROXY for an
//   http:// one, the lower-case name first; an https:// base URL with only an HTTP proxy set uses that one (as
//   undici and Node read them: a corporate setup often sets only HTTP_PROXY).
// - NO_PROXY (or no_proxy) lists hosts reached directly, whichever layer named the proxy: `*` for all, a
//   name (`corp.example` or `.corp.example`: it and every host under it), an address, an IPv4 range
//   (`10.0.0.0/8`), each with an optional `:port`.
// - A proxy URL is http:// or https:// (a bare host:port is http://), may carry user:password@, and is shown
//   with its password masked wherever it is shown.
import { UsageError } from '../api/errors.js';
import { maskProxy } from '../api/proxy-url.js';
import type { Env } from './paths.js';

export { maskProxy, proxyPassword } from '../api/proxy-url.js';

/** Where the proxy in force was set; 'default' means none was set anywhere. */
type ProxySource = 'default' | 'stored' | 'env' | 'flag';

export interface ResolvedProxy {
  /** The proxy requests go through (password and all), or null to go direct. */
  url: string | null;
  /** `url` as shown: its password masked. */
  shown: string | null;
  source: ProxySource;
  /** What set it, for messages: `--proxy`, `HTTPS_PROXY`, `the stored setting (config set proxy)`. */
  from: string | null;
  /** The NO_PROXY entry that sends the base URL direct, when a proxy was set but is not used. */
  bypassedBy: string | null;
}

/** The variables read, lower-case first (the form curl reads for plain http). */
const HTTPS_VARS = ['https_proxy', 'HTTPS_PROXY'] as const;
const HTTP_VARS = ['http_proxy', 'HTTP_PROXY'] as const;
const NO_PROXY_VARS = ['no_proxy', 'NO_PROXY'] as const;

/** The environment variables that may name the proxy of a base URL of this scheme, in the order they are read. */
export function proxyVariables(scheme: 'https:' | 'http:'): readonly string[] {
  return scheme === 'https:' ? [...HTTPS_VARS, ...HTTP_VARS] : HTTP_VARS;
}

/**
 * A proxy URL as stored and used: http:// or https:// (a bare `host:port` is http://), nothing after the port.
 * Throws UsageError naming `where` and never repeating the value (it may hold a password). `none` is the
 * caller's.
 */
export function normaliseProxyUrl(text: string, where: string): string {
  const given = text.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `http://${given}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`${where} is not a proxy URL (http://host:port, or none)`, 'bad_proxy');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${where}: a proxy is reached by http:// or https://, not ${url.protocol}`, 'bad_proxy');
  }
  if (url.hostname === '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new UsageError(`${where} is not a proxy URL: it is http://host:port, with nothing after the port`, 'bad_proxy');
  }
  return `${url.protocol}//${url.username === '' ? '' : `${url.username}${url.password === '' ? '' : `:${url.password}`}@`}${url.host}`;
}

/** Which proxy requests to `baseUrl` go through: flags beat the environment, which beats the stored setting. */
export function resolveProxy(o: { flag?: string | undefined; stored?: string | null | undefined; env: Env; baseUrl: string }): ResolvedProxy {
  const target = new URL(o.baseUrl);
  const scheme = target.protocol === 'http:' ? 'http:' : 'https:';
  const variable = proxyVariables(scheme).find((name) => (o.env[name] ?? '').trim() !== '');
  const layers: [ProxySource, string, string | null | undefined][] = [
    ['flag', '--proxy', o.flag],
    ['env', variable ?? '', variable === undefined ? undefined : o.env[variable]],
    ['stored', 'the stored setting (config set proxy)', o.stored],
  ];
  const said = layers.find(([, , value]) => value !== undefined && value !== null && value.trim() !== '');
  if (said === undefined) return { url: null, shown: null, source: 'default', from: null, bypassedBy: null };
  const [source, from, value] = said as [ProxySource, string, string];
  if (value.trim().toLowerCase() === 'none') return { url: null, shown: null, source, from, bypassedBy: null };
  const url = normaliseProxyUrl(value, from);
  const noProxy = NO_PROXY_VARS.map((name) => o.env[name]).find((v) => v !== undefined && v.trim() !== '') ?? '';
  const bypassedBy = bypassEntry(noProxy, target);
  if (bypassedBy !== null) return { url: null, shown: maskProxy(url), source, from, bypassedBy };
  return { url, shown: maskProxy(url), source, from, bypassedBy: null };
}

/** The entry of a NO_PROXY list that sends `target` direct, or null. */
export function bypassEntry(noProxy: string, target: URL): string | null {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = Number(target.port || (target.protocol === 'http:' ? 80 : 443));
  for (const entry of noProxy.split(/[\s,]+/)) {
    if (entry === '') continue;
    if (entry === '*') return entry;
    // `[::1]:8787`, `::1` (an IPv6 address bare: every colon is its own), `host:port`, `host`.
    const m = /^\[(.+)\](?::(\d+))?$/.exec(entry) ?? (entry.split(':').length > 2 ? [entry, entry] : /^(.+?)(?::(\d+))?$/.exec(entry));
    if (m === null) continue;
    if (m[2] !== undefined && Number(m[2]) !== port) continue;
    const name = (m[1] as string).toLowerCase().replace(/^\*?\./, '');
    if (host === name || host.endsWith(`.${name}`) || inRange(host, name)) return entry;
  }
  return null;
}

/** Whether the IPv4 address `host` lies in the range `cidr` (a.b.c.d/n). */
function inRange(host: string, cidr: string): boolean {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(cidr);
  const address = ipv4(host);
  if (m === null || address === null) return false;
  const base = ipv4(m[1] as string);
  const bits = Number(m[2]);
  if (base === null || bits > 32) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (address & mask) >>> 0 === (base & mask) >>> 0;
}

function ipv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}
