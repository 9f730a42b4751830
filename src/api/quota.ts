// Quota headers (§8.5), read on every response. X-Quota-Reset has no documented format, so the raw text is
// kept beside whatever instant we could read from it.
import { parseInstant } from './reset.js';
import type { QuotaInfo } from './types.js';

type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | null {
  const value = headers[name] ?? headers[name.toLowerCase()];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

function integer(text: string | null): number | null {
  if (text === null || !/^\s*\d+\s*$/.test(text)) return null;
  return Number.parseInt(text, 10);
}

/** Reads the X-Quota-* headers; null when the response carried none of them. */
export function parseQuotaHeaders(headers: HeaderBag, now: number): QuotaInfo | null {
  const limitRaw = header(headers, 'x-quota-limit');
  const remainingRaw = header(headers, 'x-quota-remaining');
  const resetRaw = header(headers, 'x-quota-reset');
  if (limitRaw === null && remainingRaw === null && resetRaw === null) return null;
  // A bare small number would read as "seconds from now" in parseInstant; for the monthly reset that is
  // still the most plausible reading of a number that is not an epoch.
  const resetAt = resetRaw === null ? null : parseInstant(resetRaw, now);
  return {
    limit: integer(limitRaw),
    remaining: integer(remainingRaw),
    reset: resetAt === null ? null : new Date(resetAt),
    resetRaw,
    seenAt: now,
  };
}
