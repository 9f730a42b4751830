// How an account is named wherever it is kept (its base URL and its key's fingerprint, never the key), and the
// account state of this process only: what a run uses when no store can keep the account (the state file
// unusable under --no-cache, or no usable key to name the account by).
import { createHash } from 'node:crypto';
import type { AccountState, LearnedRate } from './contract.js';
import { memorySlots } from './memory-slots.js';
import { exhaustedFigures, figuresOf, mergeFigures, type QuotaFigures } from './quota-memo.js';

/** A key's stand-in wherever an account is named: stable, short, and never the key. */
export function keyFingerprint(key: string): string {
  return `k:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/** How an account is named in a store: its base URL and its key's fingerprint. */
export const accountName = (baseUrl: string, fingerprint: string): string => `${baseUrl} ${fingerprint}`;

/**
 * The state of an account for this process only: the memo and the learned rate live as long as the process,
 * and the limiter's slots are not shared with other processes. A lookup still works; only what is kept
 * between runs is lost.
 */
export function memoryAccount(baseUrl: string, key: string): AccountState {
  const fp = keyFingerprint(key);
  let figures: QuotaFigures | null = null;
  let learned: LearnedRate | null = null;
  return {
    account: accountName(baseUrl, fp),
    noteQuota: async (q) => {
      figures = mergeFigures(figures, figuresOf(q));
    },
    noteExhausted: async (seenAt) => {
      figures = exhaustedFigures(figures, seenAt);
    },
    quota: async () => (figures === null ? null : { baseUrl, keyFingerprint: fp, ...figures }),
    learnedRate: async () => (learned === null ? null : { ...learned }),
    saveLearnedRate: async (rate) => {
      // As a store keeps it: whole figures, nothing that says nothing, and a confirmed rate over an unconfirmed one.
      if (!(rate.requests > 0 && rate.windowMs > 0) || (rate.unconfirmed === true && learned !== null && learned.unconfirmed !== true)) return;
      learned = { requests: Math.round(rate.requests), windowMs: Math.round(rate.windowMs), ...(rate.unconfirmed === true ? { unconfirmed: true } : {}) };
    },
    slots: memorySlots(),
    close: async () => {},
  };
}

/**
 * The account's rate-limit window now: requests accepted in the last `windowMs` by every process (every
 * machine, on a shared store) of the account, and when a 429's pause ends (0: none). For `store status`.
 */
export async function accountWindow(account: AccountState, windowMs: number, now: number): Promise<{ accepted: number; pausedUntil: number }> {
  const [{ count }, pausedUntil] = await Promise.all([account.slots.acceptedBetween(now - windowMs, now), account.slots.pausedUntil()]);
  return { accepted: count, pausedUntil };
}
