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

/** Reads the X-Quota-* headers, of a request sent at `sentAt` when known; null when the response carried none of them. */
export function parseQuotaHeaders(headers: HeaderBag, now: number, sentAt?: number): QuotaInfo | null {
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
    ...(sentAt === undefined ? {} : { sentAt }),
  };
}

/** What tells one quota period from another: the limit (a pack raises it) and the reset (a rollover moves it). */
export interface PeriodMark {
  limit: number | null;
  /** The reset as epoch ms, or null (or NaN) when it could not be read. */
  resetAt: number | null;
  resetRaw: string | null;
  /** When the figure was seen (for a memo: its newest answer), and when its request was sent, when known. */
  seenAt?: number;
  sentAt?: number | undefined;
}

// Not shown (§8.5): the reset's format. A relative one ("seconds until reset") reads as a slightly different
// instant on every answer, so two readings within an hour are taken as the same reset; a month's rollover
// moves it by weeks. Readings that cannot be parsed compare by their text.
const RESET_TOLERANCE_MS = 60 * 60 * 1000;

/** -1: `a`'s period is older than `b`'s; 1: newer; 0: the same period; null: they cannot be ordered. */
export function comparePeriods(a: PeriodMark, b: PeriodMark): -1 | 0 | 1 | null {
  const ra = a.resetAt ?? Number.NaN;
  const rb = b.resetAt ?? Number.NaN;
  if (!Number.isNaN(ra) && !Number.isNaN(rb)) {
    if (Math.abs(ra - rb) >= RESET_TOLERANCE_MS) return ra < rb ? -1 : 1; // a rollover
  } else if (a.resetRaw !== b.resetRaw) return null;
  if (a.limit === b.limit) return 0;
  if (a.limit === null || b.limit === null) return null;
  // Within one month the limit moves: a pack raises it (§8.1), a plan downgraded or a limit corrected lowers
  // it. A figure from a request sent after the other was seen is the newer, whichever way it moved (a lower
  // limit was taken for a late answer, and a downgrade stayed unseen for a month). Otherwise a lower limit
  // is an answer from before the pack that arrived late.
  if (a.sentAt !== undefined && b.seenAt !== undefined && a.sentAt >= b.seenAt) return 1;
  if (b.sentAt !== undefined && a.seenAt !== undefined && b.sentAt >= a.seenAt) return -1;
  return a.limit < b.limit ? -1 : 1;
}

/** The period mark of quota headers. */
export const periodMark = (q: QuotaInfo): PeriodMark => ({
  limit: q.limit,
  resetAt: q.reset?.getTime() ?? null,
  resetRaw: q.resetRaw,
  seenAt: q.seenAt,
  sentAt: q.sentAt,
});
