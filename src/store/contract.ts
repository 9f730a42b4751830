// The store contract: everything a run and the commands keep between runs, or share between runs. Every
// method returns a Promise, so a backend over a network (PostgreSQL) fits the same shape as SQLite (which is
// synchronous underneath and answers with resolved promises) and memory; a run awaits it per batch or per
// chunk of rows, never per row. Which backend is used is store/open.ts's choice; nothing outside store/
// imports one. Times are epoch ms. test/store/contract.ts runs the same tests against every backend.
//
// Two handles, opened apart (store/open.ts): the answers (`Store`: answers, claims, presence, history,
// upkeep), and an account (`AccountState`: quota memo, learned rate, the limiter's slots). Apart because
// `--no-cache` swaps the answers for a throwaway store while the account stays the shared one (its pacing and
// its quota are not answers), and `cache clear` forgets answers, never the account.
import type { QuotaInfo } from '../api/types.js';
import type { QuotaMemo } from './quota-memo.js';

/** A stored answer: what the service said about a key, and when it said it. */
export interface StoredAnswer {
  /** 'missing': the service does not hold the host (a 404), an answer worth keeping too. */
  status: 'found' | 'missing';
  /** The answer's body; null for 'missing'. */
  body: unknown;
  fetchedAt: number;
  /**
   * When the host was fetched before this answer: null, never (the answer was the first); absent, not known
   * (an answer not merged yet, or a store that does not keep it). batch --changes reads it.
   */
  previousAt?: number | null;
}

/** One answer to store. Endpoint names: 'domain' (profiles), 'traffic' by host, 'employees' by apex, 'catalog' by ''. */
export interface AnswerPut {
  endpoint: string;
  host: string;
  status: 'found' | 'missing';
  body: unknown;
}

/** The answers a run reads and writes, and the claims and presence that let several runs share them. */
export interface AnswerStore {
  /** Answers fetched within `maxAgeMs` (Infinity: any age), by host; hosts without one are absent. */
  getMany(endpoint: string, hosts: readonly string[], maxAgeMs: number): Promise<Map<string, StoredAnswer>>;
  /**
   * As getMany, asked just before a batch is sent: sees what another run sharing the store stored since this
   * one planned (not merged yet included), so it is not bought again. May answer nothing, at no cost, while no
   * other run is known to write to the store.
   */
  getFresh(endpoint: string, hosts: readonly string[], maxAgeMs: number): Promise<Map<string, StoredAnswer>>;
  /**
   * Claims hosts about to be sent, so another run does not buy them at the same time; returns those another
   * live run is buying now (not claimed here). A claim ends when putMany stores the host's answer, on
   * release, when its run leaves, or when its run is gone (a lease the backend keeps). Asked as a run asks
   * it: after join, and before getFresh for the same hosts; claims even while this run believes itself alone
   * (another may have joined after it looked).
   */
  claim(endpoint: string, hosts: readonly string[]): Promise<string[]>;
  /** Ends this handle's claims on hosts whose lookup gave up. */
  release(endpoint: string, hosts: readonly string[]): Promise<void>;
  /**
   * What a run asks before sending a batch, where a backend does it in one round trip (optional; without it
   * the run asks the three in turn): claim `hosts`, then getFresh of those claimed here, then release of
   * those found held. `busy`: as claim returns; `held`: as getFresh does.
   */
  claimFresh?(endpoint: string, hosts: readonly string[], maxAgeMs: number): Promise<ClaimedFresh>;
  /**
   * Stores (or replaces) answers; resolves once they are recorded, durably: a paid answer is in the store
   * before any row shows it. Resolves to when they were recorded (their fetchedAt), which the rows say too.
   * A replaced answer that differs (age_days aside) goes to the history.
   */
  putMany(entries: readonly AnswerPut[]): Promise<number>;
  /** Whether any answer, of any age, is held for `endpoint`. */
  holdsAny(endpoint: string): Promise<boolean>;
  /**
   * Presence: this run is about to buy. Resolves true when another live run uses the store (what a run alone
   * cannot rely on: one that starts a moment later is not seen). A run joins before its first batch and
   * leaves at its end, which ends its claims; liveness is the backend's (a pid on one machine, a heartbeat
   * across machines).
   */
  join(): Promise<boolean>;
  /** This run is done buying: its claims end (also done by close). */
  leave(): Promise<void>;
  /** The answers held before the current ones. */
  readonly past: HistoryReads;
}

/** What claimFresh found: the hosts another run is buying, and answers stored meanwhile of the rest. */
export interface ClaimedFresh {
  busy: string[];
  held: Map<string, StoredAnswer>;
}

/** An answer held before the one held now. `fetchedAt`: when it was last fetched; `replacedAt`: when its successor was. */
export interface PastAnswer {
  status: 'found' | 'missing';
  body: unknown;
  fetchedAt: number;
  replacedAt: number;
}

/** An answer as `previous` and `latest` give it: a past one, or the one held now (`replacedAt` null). */
export type HeldAnswer = Omit<PastAnswer, 'replacedAt'> & { replacedAt: number | null };

/** What batch --changes asks of a cached row: the answer a fetch of `host` at `at` replaced. */
interface ReplacedAsk {
  host: string;
  at: number;
}

/**
 * The history (issue 17): answers a differing refresh replaced. Merged answers only: an answer still in a
 * writer's journal has replaced nothing yet.
 */
export interface HistoryReads {
  /**
   * For each ask, in order: the answer that the fetch at `at` replaced when that fetch changed it (the past
   * answer replaced within the same second as `at`), else null. One read for a chunk of cached rows.
   */
  replacedByMany(endpoint: string, asks: readonly ReplacedAsk[]): Promise<(PastAnswer | null)[]>;
  /** The answer held now, as merged (`replacedAt` null), or null. */
  latest(endpoint: string, host: string): Promise<HeldAnswer | null>;
  /** Of `hosts`, those an answer is held for (merged), each with whether it has any history. */
  pastAmong(endpoint: string, hosts: readonly string[]): Promise<Map<string, boolean>>;
  /** Up to `limit` hosts with any history, in host order, after `after` (null: from the first): a page of `changes --all`. */
  hostsWithHistory(endpoint: string, after: string | null, limit: number): Promise<string[]>;
  /** Every answer held before the current one, newest first; [] when the answer never changed. */
  history(endpoint: string, host: string): Promise<PastAnswer[]>;
  /**
   * Without `at`: the answer the current one replaced (the newest in its history), or null. With `at`: the
   * answer held at that moment (the current one when nothing replaced it after `at`); null when none is held.
   * A host first fetched after `at` gives its oldest answer (a store knows when an answer was last fetched).
   */
  previous(endpoint: string, host: string, at?: number): Promise<HeldAnswer | null>;
}

/** What `cache stats` shows. */
export interface StoreStats {
  /** Where the store is: its file, or its URL with any password masked. */
  path: string;
  entries: number;
  byEndpoint: Record<string, number>;
  found: number;
  missing: number;
  /** Fetch times of the oldest and newest answers; null when empty. */
  oldest: number | null;
  newest: number | null;
  /** Bytes the store takes (on disk, logs included; an estimate where the backend cannot tell). */
  bytes: number;
  /** Past answers kept in the history. */
  history: number;
}

/** One answer as a store keeps it, the current one or a past one: what copying one store into another moves. */
export interface KeptAnswer {
  endpoint: string;
  host: string;
  status: 'found' | 'missing';
  /** The body as the JSON text kept (copied as it is: its keys in the service's order). */
  body: string | null;
  fetchedAt: number;
  /** When a later answer replaced it; null for the current answer. */
  replacedAt: number | null;
}

/** What an import added: answers (new, or newer than those held) and past answers. */
export interface ImportCounts {
  answers: number;
  history: number;
}

/**
 * Upkeep, for `cache stats|clear|prune`; and copying one store's answers and history into another (`store
 * import`), where a backend can give them up (exportAll) or take them in (importAll).
 */
export interface StoreMaintenance {
  /** Every answer and past answer, some at a time. */
  exportAll?(): AsyncIterable<KeptAnswer[]>;
  /**
   * Adds what `chunks` hold that this store lacks: an answer newer than the one held replaces it (which keeps
   * the one replaced as history, as a refresh does), an older one becomes a past answer, and a past answer
   * already held is not added twice. Importing the same again adds nothing.
   */
  importAll?(chunks: AsyncIterable<KeptAnswer[]>): Promise<ImportCounts>;
  stats(): Promise<StoreStats>;
  /** Removes every answer and its history; resolves to how many answers. */
  clear(): Promise<number>;
  /** Removes answers older than `maxAgeMs` and the history of those hosts; resolves to how many answers. */
  prune(maxAgeMs: number): Promise<number>;
  /** Removes past answers replaced more than `maxAgeMs` ago; resolves to how many. */
  pruneHistory(maxAgeMs: number): Promise<number>;
}

/** An opened answer store: the run's contract, upkeep, and closing (which leaves and flushes what is pending). */
export interface Store extends AnswerStore, StoreMaintenance {
  close(): Promise<void>;
}

/** A rate the service was seen to allow: `requests` per `windowMs`. */
export interface LearnedRate {
  requests: number;
  windowMs: number;
  /**
   * True: not confirmed. One reset bounded the window below, and the run stopped before a second one measured
   * it; the next run starts from it and confirms it (run/limit/policy.ts). Absent: two resets confirmed it.
   */
  unconfirmed?: boolean;
}

/**
 * What is kept per account (base URL and key, named by the key's fingerprint, never the key) and shared by
 * every run of it: the quota memo, the learned rate, the limiter's slots.
 */
export interface AccountState {
  /** `${baseUrl} ${keyFingerprint}`. */
  readonly account: string;
  /** Records an answer's quota headers: keeps the lowest remaining of the current period (quota-memo.ts). */
  noteQuota(q: QuotaInfo): Promise<void>;
  /** Records a 402 that carried no quota headers: nothing is left in the current period. */
  noteExhausted(seenAt: number): Promise<void>;
  quota(): Promise<QuotaMemo | null>;
  learnedRate(): Promise<LearnedRate | null>;
  /**
   * Keeps a rate learned from the service; one that says nothing (no requests, no window) is ignored. A
   * confirmed rate replaces any; an unconfirmed one never replaces a confirmed one (another run's, say).
   */
  saveLearnedRate(rate: LearnedRate): Promise<void>;
  /** The limiter's slots of this account, shared with every run that opens it. */
  readonly slots: SlotStore;
  close(): Promise<void>;
}

/** What is read of every account without opening one (`quota`, `config show`): nothing is created. */
export interface AccountReads {
  /** Every account's quota memo, newest first. */
  quotaMemos(): Promise<QuotaMemo[]>;
  /** The learned rate of one account, or null. */
  learnedRate(baseUrl: string, key: string): Promise<LearnedRate | null>;
}

/** What a SlotStore answers to `take`: the slot, or when to look again (null: only an answer can free one). */
export type TakeResult = { id: number } | { retryAt: number | null; paused: boolean };

/**
 * Where the limiter (run/limit/limiter.ts) keeps its slots: in memory for one run, or shared by every run of
 * an account. Each method is one short atomic step. Times are on the limiter's clock: a backend that keeps
 * the time of a server several machines share (PostgreSQL's clock_timestamp()) converts to and from it by
 * the offset it measures, so waits computed by the limiter stay right.
 */
export interface SlotStore {
  /** True when other processes change the slots too: their answers cannot wake a waiter, so it polls. */
  readonly shared: boolean;
  /**
   * Unless a pause holds at `now` or `limit` slots are held (in flight, or answered and not yet free),
   * takes a slot started at `now`. `holdMs` is how long an answered slot is held: slots answered longer
   * ago than twice that are forgotten, and in-flight slots of a run that died count as answered now.
   */
  take(now: number, limit: number | null, holdMs: number): Promise<TakeResult>;
  /**
   * The slot's request was answered at `at` (accepted: anything but a 429); held until `freeAt` (or, for the
   * taker, one `holdMs` after `at` if that is sooner). A refused slot answered during an announced pause frees
   * at its end (a refused request is not counted: see run/limit/window-bounds.ts). `sentAt`: when the request
   * was sent, if later than the slot was taken (the slot's start is then moved to it).
   */
  answer(id: number, at: number, accepted: boolean, freeAt: number, sentAt?: number): Promise<void>;
  /** The slot was not used (nothing was sent): it is free at once. */
  release(id: number): Promise<void>;
  /**
   * A 429 at `now`: nobody takes a slot before `until`. An announced reset frees at `until` the refused slots
   * answered before it and, when it opens a pause (no pause held at `now`), the oldest accepted slot answered
   * before it and held past it (by `holdMs` after its answer, as `take`): under a sliding window only the
   * oldest request leaves the window at the reset, so that rule is right under every reading
   * (run/limit/window-bounds.ts).
   */
  pause(until: number, announced: boolean, now: number, holdMs: number): Promise<void>;
  /** When the current pause ends, or 0. */
  pausedUntil(): Promise<number>;
  /** Accepted requests that started in [from, to), by every user of the store, and the start of the first. */
  acceptedBetween(from: number, to: number): Promise<{ count: number; first: number | null }>;
  /** The start of the `n`-th most recent accepted request started before `before` (by every user of the store), or null. */
  recentAccepted(before: number, n: number): Promise<number | null>;
  /** Records an announced reset; resolves to those recorded lately, oldest first. */
  noteReset(at: number): Promise<number[]>;
}
