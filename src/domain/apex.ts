// Employee estimates are keyed by the registrable domain (§1, §2.5): every host under one apex returns the
// same figure, so a run looks each apex up once. The public suffix list comes from tldts, loaded on first use
// because it is large and only the employees runs need it.
import { createRequire } from 'node:module';

type GetDomain = (host: string, opts?: { allowPrivateDomains?: boolean }) => string | null;
let getDomain: GetDomain | undefined;

/** The registrable domain of `host` (ICANN section of the public suffix list), or the host itself. */
export function apexOf(host: string): string {
  getDomain ??= (createRequire(import.meta.url)('tldts') as { getDomain: GetDomain }).getDomain;
  // Private suffixes (github.io, herokuapp.com) are not organisations' registrable domains for the service's
  // purpose as far as the spec says; we use the ICANN section only, which is what registrars sell.
  return getDomain(host, { allowPrivateDomains: false }) ?? host;
}
