// The quota memo of one account (base URL and key): the lowest X-Quota-Remaining seen in the current period,
// so `domain-intel quota` and a file run's "enough left?" check can show and weigh it without spending a
// lookup. What a period is, which figure wins, and how long a figure may be trusted are decided here; where
// it is kept (the account state file) is state.ts.
import { comparePeriods } from '../api/quota.js';
import type { QuotaInfo } from '../api/types.js';

/** The quota an account was last seen to have: the lowest remaining of its current period. */
export interface QuotaMemo {
  baseUrl: string;
  keyFingerprint: string;
  limit: number | null;
  remaining: number | null;
  /** ISO instant, when the reset header could be read. */
  reset: string | null;
  /** The reset header exactly as received. */
  resetRaw: string | null;
  /** Epoch ms of the newest answer of this period (the figure was still the lowest then). */
  seenAt: number;
}

/** The figures of a memo, without the account; `sentAt`: when the request of an answer's figures was sent (not kept). */
export type QuotaFigures = Omit<QuotaMemo, 'baseUrl' | 'keyFingerprint'> & { sentAt?: number };

const HOUR_MS = 60 * 60 * 1000;

/**
 * Whether a memo may be trusted to refuse a run: its reset (when readable) has not passed and it was seen
 * under an hour ago. Past that, a pack may have been added or another client may have spent, so the run
 * starts and its first metered answer says how much is left.
 */
export function quotaMemoTrusted(memo: QuotaMemo, now: number): boolean {
  if (now - memo.seenAt >= HOUR_MS) return false;
  const reset = memo.reset === null ? Number.NaN : Date.parse(memo.reset);
  return Number.isNaN(reset) || reset > now;
}

/** The figures a QuotaInfo (from the headers) stands for. */
export function figuresOf(q: QuotaInfo): QuotaFigures {
  const reset = q.reset !== null && !Number.isNaN(q.reset.getTime()) ? q.reset.toISOString() : null;
  return { limit: q.limit, remaining: q.remaining, reset, resetRaw: q.resetRaw, seenAt: q.seenAt, ...(q.sentAt === undefined ? {} : { sentAt: q.sentAt }) };
}

/** The period marks of memo figures (comparePeriods, api/quota.ts). */
const markOf = (f: QuotaFigures) => ({
  limit: f.limit,
  resetAt: f.reset === null ? null : Date.parse(f.reset),
  resetRaw: f.resetRaw,
  seenAt: f.seenAt,
  sentAt: f.sentAt,
});

/**
 * The memo after an answer reported `next`: within a period the lowest remaining is kept (answers arrive out
 * of order, and the lowest is the truest); a newer period (a pack, a rollover, a limit lowered: one seen in
 * an answer to a request sent after the memo's newest) replaces the figure; a figure from an older period is
 * ignored. Periods that cannot be ordered go by arrival.
 */
export function mergeFigures(memo: QuotaFigures | null, next: QuotaFigures): QuotaFigures {
  if (memo === null) return next;
  const order = comparePeriods(markOf(next), markOf(memo));
  if (order === -1) return memo;
  if (order === 0) {
    const remaining = memo.remaining === null ? next.remaining : next.remaining === null ? memo.remaining : Math.min(memo.remaining, next.remaining);
    return { ...memo, remaining, seenAt: Math.max(memo.seenAt, next.seenAt) };
  }
  if (order === null && next.seenAt < memo.seenAt) return memo;
  return next;
}

/** The figures after a 402 that carried no quota headers: nothing is left in the period last seen. */
export function exhaustedFigures(memo: QuotaFigures | null, seenAt: number): QuotaFigures {
  return {
    limit: memo?.limit ?? null,
    remaining: 0,
    reset: memo?.reset ?? null,
    resetRaw: memo?.resetRaw ?? null,
    seenAt: Math.max(seenAt, memo?.seenAt ?? 0),
  };
}

/** A quota memo as both backends' `quota` tables hold it (same columns in SQLite and PostgreSQL). */
export interface MemoRow {
  base_url: string;
  key_fp: string;
  quota_limit: number | null;
  remaining: number | null;
  reset: string | null;
  reset_raw: string | null;
  seen_at: number;
}

export const rowToMemo = (r: MemoRow): QuotaMemo => ({
  baseUrl: r.base_url,
  keyFingerprint: r.key_fp,
  limit: r.quota_limit,
  remaining: r.remaining,
  reset: r.reset,
  resetRaw: r.reset_raw,
  seenAt: r.seen_at,
});
