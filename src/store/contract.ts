// The part of the answer cache a run and a single lookup need (store/ implements it on SQLite), and the
// in-memory one a library caller gets when it brings none.

/** A cached answer: what the service said about a key, and when it said it. */
export interface StoredAnswer {
  status: 'found' | 'missing';
  body: unknown;
  fetchedAt: number;
  /**
   * When the host was fetched before this answer (epoch ms): null, never (the answer was the first); absent,
   * not known (a store that does not keep it, or an answer not yet merged). batch --changes reads it.
   */
  previousAt?: number | null;
}

/** The history read the rule for cached rows needs (sqlite/history.ts, through the cache's `past`). */
export interface PastReads {
  replacedBy(endpoint: string, host: string, at: number): StoredAnswer | null;
}

/** The part of the answer cache a run needs (store/sqlite/cache.ts implements it). */
export interface AnswerStore {
  getMany(endpoint: string, hosts: string[], maxAgeMs: number): Map<string, StoredAnswer>;
  /**
   * Answers stored since planning by another process sharing the store, asked just before a batch is sent so
   * what it bought meanwhile is not bought again. Optional: a store only this run writes needs none.
   */
  getFresh?(endpoint: string, hosts: string[], maxAgeMs: number): Map<string, StoredAnswer>;
  /**
   * Claims hosts about to be sent, so another process sharing the store does not buy them at the same time;
   * returns those another process is buying now. Optional, as getFresh. A claim ends when putMany stores the
   * host's answer, or on release (its lookup gave up).
   */
  claim?(endpoint: string, hosts: string[]): string[];
  release?(endpoint: string, hosts: string[]): void;
  /**
   * Stores answers; returns when they were recorded (epoch ms, their fetchedAt), so the rows that show them
   * say the same time as the store will. A store that returns nothing leaves the run to read its clock.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a caller's store written before this returned anything (void) still fits
  putMany(entries: { endpoint: string; host: string; status: 'found' | 'missing'; body: unknown }[]): number | void;
  /**
   * False when the store holds no answer at all for `endpoint`. Optional: a store without it is always asked.
   * A run that starts on a store with nothing for its endpoint asks it only about hosts met before in the run.
   */
  holdsAny?(endpoint: string): boolean;
  /**
   * The store's history (issue 17), for batch --changes to tell what a cached answer's fetch replaced.
   * Optional: without it, cached rows read `same` (row-change.ts).
   */
  readonly past?: PastReads;
}

/** What a SlotStore answers to `take`: the slot, or when to look again (null: only an answer can free one). */
export type TakeResult = { id: number } | { retryAt: number | null; paused: boolean };

/**
 * Where the limiter keeps its slots: in memory for one run, or shared by every run of an account
 * (store/sqlite/slots.ts). Every method is one short atomic step; times are epoch ms on the limiter's clock.
 */
export interface SlotStore {
  /** True when other processes change the slots too: their answers cannot wake a waiter, so it polls. */
  readonly shared: boolean;
  /**
   * Unless a pause holds at `now` or `limit` slots are held (in flight, or answered and not yet free),
   * takes a slot started at `now`. `holdMs` is how long an answered slot is held: slots answered longer
   * ago than twice that are forgotten, and in-flight slots of a process that died count as answered now.
   */
  take(now: number, limit: number | null, holdMs: number): TakeResult;
  /** The slot's request was answered at `at` (accepted: anything but a 429); held until `freeAt`, or an announced reset before it. */
  answer(id: number, at: number, accepted: boolean, freeAt: number): void;
  /** The slot was not used (nothing was sent): it is free at once. */
  release(id: number): void;
  /** A 429: nobody takes a slot before `until`; an announced reset also frees, at `until`, the slots answered before it. */
  pause(until: number, announced: boolean): void;
  /** When the current pause ends, or 0. */
  pausedUntil(): number;
  /** Accepted requests that started in [from, to), by every user of the store, and the start of the first. */
  acceptedBetween(from: number, to: number): { count: number; first: number | null };
  /** Records an announced reset; returns those recorded lately, oldest first. */
  noteReset(at: number): number[];
}
