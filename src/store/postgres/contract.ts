// The asynchronous store contract this backend implements, as the reshaping of the store (issue 28, branch
// store-28) has it in src/store/contract.ts and src/store/backend.ts, which main does not have yet. When they
// land, this file goes: its importers take the same names from '../contract.js' and '../backend.js' (the
// shapes below are copied from them, member for member), and keyFingerprint/accountName from '../account.js'.
import { createHash } from 'node:crypto';
import type { QuotaInfo } from '../../api/types.js';
import type { QuotaMemo } from '../quota-memo.js';

export interface StoredAnswer {
  status: 'found' | 'missing';
  body: unknown;
  fetchedAt: number;
  previousAt?: number | null;
}

export interface AnswerPut {
  endpoint: string;
  host: string;
  status: 'found' | 'missing';
  body: unknown;
}

interface AnswerStore {
  getMany(endpoint: string, hosts: readonly string[], maxAgeMs: number): Promise<Map<string, StoredAnswer>>;
  getFresh(endpoint: string, hosts: readonly string[], maxAgeMs: number): Promise<Map<string, StoredAnswer>>;
  claim(endpoint: string, hosts: readonly string[]): Promise<string[]>;
  release(endpoint: string, hosts: readonly string[]): Promise<void>;
  putMany(entries: readonly AnswerPut[]): Promise<number>;
  holdsAny(endpoint: string): Promise<boolean>;
  join(): Promise<boolean>;
  leave(): Promise<void>;
  readonly past: HistoryReads;
}

export interface PastAnswer {
  status: 'found' | 'missing';
  body: unknown;
  fetchedAt: number;
  replacedAt: number;
}

export type HeldAnswer = Omit<PastAnswer, 'replacedAt'> & { replacedAt: number | null };

interface ReplacedAsk {
  host: string;
  at: number;
}

export interface HistoryReads {
  replacedByMany(endpoint: string, asks: readonly ReplacedAsk[]): Promise<(PastAnswer | null)[]>;
  latest(endpoint: string, host: string): Promise<HeldAnswer | null>;
  pastAmong(endpoint: string, hosts: readonly string[]): Promise<Map<string, boolean>>;
  hostsWithHistory(endpoint: string, after: string | null, limit: number): Promise<string[]>;
  history(endpoint: string, host: string): Promise<PastAnswer[]>;
  previous(endpoint: string, host: string, at?: number): Promise<HeldAnswer | null>;
}

interface StoreStats {
  path: string;
  entries: number;
  byEndpoint: Record<string, number>;
  found: number;
  missing: number;
  oldest: number | null;
  newest: number | null;
  bytes: number;
  history: number;
}

export interface StoreMaintenance {
  stats(): Promise<StoreStats>;
  clear(): Promise<number>;
  prune(maxAgeMs: number): Promise<number>;
  pruneHistory(maxAgeMs: number): Promise<number>;
}

export interface Store extends AnswerStore, StoreMaintenance {
  close(): Promise<void>;
}

export interface LearnedRate {
  requests: number;
  windowMs: number;
}

export interface AccountState {
  readonly account: string;
  noteQuota(q: QuotaInfo): Promise<void>;
  noteExhausted(seenAt: number): Promise<void>;
  quota(): Promise<QuotaMemo | null>;
  learnedRate(): Promise<LearnedRate | null>;
  saveLearnedRate(rate: LearnedRate): Promise<void>;
  readonly slots: SlotStore;
  close(): Promise<void>;
}

export interface AccountReads {
  quotaMemos(): Promise<QuotaMemo[]>;
  learnedRate(baseUrl: string, key: string): Promise<LearnedRate | null>;
}

export type TakeResult = { id: number } | { retryAt: number | null; paused: boolean };

export interface SlotStore {
  readonly shared: boolean;
  take(now: number, limit: number | null, holdMs: number): Promise<TakeResult>;
  answer(id: number, at: number, accepted: boolean, freeAt: number): Promise<void>;
  release(id: number): Promise<void>;
  pause(until: number, announced: boolean): Promise<void>;
  pausedUntil(): Promise<number>;
  acceptedBetween(from: number, to: number): Promise<{ count: number; first: number | null }>;
  noteReset(at: number): Promise<number[]>;
}

interface StoreWhere {
  url?: string;
  dir: string;
}

interface OpenStoreOptions extends StoreWhere {
  service?: string;
  clock?: () => number;
}

interface OpenAccountOptions extends StoreWhere {
  baseUrl: string;
  key: string;
  clock?: () => number;
  onTrouble?: (message: string) => void;
}

export interface Backend {
  openStore(o: OpenStoreOptions): Promise<Store>;
  openAccount(o: OpenAccountOptions): Promise<AccountState>;
  accountReads(o: StoreWhere): AccountReads;
  discard(path: string): Promise<string[]>;
}

/** A key's stand-in wherever an account is named: stable, short, and never the key (as store/account.ts). */
export function keyFingerprint(key: string): string {
  return `k:${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}

/** How an account is named in a store: its base URL and its key's fingerprint (as store/account.ts). */
export const accountName = (baseUrl: string, fingerprint: string): string => `${baseUrl} ${fingerprint}`;
