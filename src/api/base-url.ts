// The base URL rule: it must end in the version segment /api/v1 (§ intro, §9.1), and the key must never travel
// in clear, so plain http is only allowed to a loopback host (the local sandbox).
import { UsageError } from './errors.js';
import { API_PREFIX } from './types.js';

/** True for hosts that never leave this machine. */
function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Checks and normalises a base URL (trailing slash dropped); throws UsageError saying what is wrong. */
export function normaliseBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new UsageError(`base URL is not a URL: ${JSON.stringify(input)}`, 'bad_base_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`base URL must use https: ${url.protocol}`, 'bad_base_url');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new UsageError(`refusing plain http:// to ${url.hostname}: the API key would travel in clear; use https://`, 'insecure_base_url');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('base URL must not carry credentials; store the key with `domain-intel keys add`', 'bad_base_url');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError('base URL must not carry a query or fragment', 'bad_base_url');
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(API_PREFIX)) {
    // Echoed as typed (URL would add a `/` the user never wrote); a bare origin gets the URL it surely meant.
    const offer = path === '' ? `; did you mean ${url.origin}${API_PREFIX}?` : '';
    throw new UsageError(`base URL must end in ${API_PREFIX}, got ${input.trim()}${offer}`, 'bad_base_url');
  }
  return `${url.origin}${path}`;
}
