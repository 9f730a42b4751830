// What a user can do about an error, added to its message: which key was refused and how to replace it,
// when the quota renews, how to stop being rate limited.
import { InvalidKeyError, QuotaExhaustedError, RateLimitedError } from '../api/errors.js';
import type { QuotaInfo } from '../api/types.js';

/** What the command knows when it fails: where its key came from, and the newest quota it saw. */
export interface HintFacts {
  /** E.g. 'the key in DOMAIN_INTEL_API_KEY'; null when no key was resolved. */
  keySource: string | null;
  lastQuota: QuotaInfo | null;
}

/** The advice for `err`, or null when there is none. */
export function hintFor(err: unknown, facts: HintFacts): string | null {
  if (err instanceof InvalidKeyError) {
    return facts.keySource
      ? `${facts.keySource} was refused; replace it with \`domain-intel keys add <name>\` (reads stdin) or a new DOMAIN_INTEL_API_KEY`
      : null;
  }
  if (err instanceof QuotaExhaustedError) {
    const reset = err.resetAt ?? facts.lastQuota?.reset ?? null;
    return `lookups renew ${reset ? `on ${reset.toISOString().slice(0, 10)}` : 'at the start of next month'}, or add a pack`;
  }
  if (err instanceof RateLimitedError) return 'set your plan (`domain-intel config set plan ...`) so requests are paced';
  return null;
}
