// What a user can do about an error, added to its message: which key was refused and how to replace it,
// when the quota renews, how to stop being rate limited.
import { EmptyInputError, InvalidKeyError, QuotaExhaustedError, RateLimitedError } from '../../api/errors.js';
import { isUnreachable } from '../../api/retry.js';
import type { QuotaInfo } from '../../api/types.js';

/** How HintFacts.keySource names a key taken from the environment. */
export const ENV_KEY_SOURCE = 'the key in DOMAIN_INTEL_API_KEY';

/** What the command knows when it fails: where its key came from, and the newest quota it saw. */
export interface HintFacts {
  /** E.g. 'the key in DOMAIN_INTEL_API_KEY'; null when no key was resolved. */
  keySource: string | null;
  lastQuota: QuotaInfo | null;
  /** The base URL in use and where it came from ('the base URL comes from DOMAIN_INTEL_BASE_URL'); null when not resolved. */
  baseUrl?: { url: string; source: string; proxy?: { shown: string; from: string } | null } | null;
  /** The command's -o FILE, when it writes one (not stdout). */
  output?: string | null;
}

/** The advice for `err`, or null when there is none. */
export function hintFor(err: unknown, facts: HintFacts): string | null {
  // Said whether or not -o was given: a cron job's log must show that yesterday's file still stands.
  if (err instanceof EmptyInputError)
    return `${facts.output ? `${facts.output} is left as it was` : 'nothing was written'}; --allow-empty writes an empty output instead`;
  if (err instanceof InvalidKeyError) {
    // DOMAIN_INTEL_API_KEY wins over the stored keys: while it is set, `keys add` changes nothing (issue 29).
    const replace =
      facts.keySource === ENV_KEY_SOURCE
        ? 'set DOMAIN_INTEL_API_KEY to a valid key, or unset it to use a stored key (`keys add` cannot help while it is set: it wins over them)'
        : 'replace it with `domain-intel keys add <name>` (reads stdin) or a new DOMAIN_INTEL_API_KEY';
    // A malformed key was never sent: its message says so and names the key; only the way out is added.
    if (err.code === 'malformed_key') return replace;
    return facts.keySource ? `${facts.keySource} was refused; ${replace}` : null;
  }
  if (isUnreachable(err)) return baseUrlHint(facts.baseUrl ?? null);
  if (err instanceof QuotaExhaustedError) {
    const reset = err.resetAt ?? facts.lastQuota?.reset ?? null;
    return `lookups renew ${reset ? `on ${reset.toISOString().slice(0, 10)}` : 'at the start of next month'}, or add a pack`;
  }
  if (err instanceof RateLimitedError) return 'set your plan (`domain-intel config set plan ...`) so requests are paced';
  return null;
}

/**
 * For a service that cannot be reached (the message names the URL): where the base URL came from and how to
 * set it. Null when the base URL was not resolved.
 */
export function baseUrlHint(baseUrl: { source: string; proxy?: { shown: string; from: string } | null } | null): string | null {
  if (baseUrl === null) return null;
  // Through a proxy, the proxy is what could not be reached (or refused): where it came from and the ways round it.
  const proxy = baseUrl.proxy ?? null;
  if (proxy !== null) return `the proxy comes from ${proxy.from}: --proxy URL sets another; --proxy none, or NO_PROXY, goes direct`;
  const set = baseUrl.source.startsWith('no ') ? 'set one' : 'set another';
  return `${baseUrl.source}: ${set} with \`domain-intel config set base-url URL\`, DOMAIN_INTEL_BASE_URL or --base-url`;
}
