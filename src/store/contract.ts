// The part of the answer cache a run and a single lookup need (store/ implements it on SQLite), and the
// in-memory one a library caller gets when it brings none.
import type { PastReads } from '../run/row-change.js';

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

/** An AnswerStore in memory, for library callers who bring none: grows with the distinct hosts of a run. */
export function memoryStore(): AnswerStore {
  const map = new Map<string, StoredAnswer>();
  return {
    getMany(endpoint, hosts, maxAgeMs) {
      const out = new Map<string, StoredAnswer>();
      const oldest = Date.now() - maxAgeMs;
      for (const host of hosts) {
        const hit = map.get(`${endpoint} ${host}`);
        if (hit && hit.fetchedAt >= oldest) out.set(host, hit);
      }
      return out;
    },
    putMany(entries) {
      const now = Date.now();
      for (const e of entries) {
        const key = `${e.endpoint} ${e.host}`;
        map.set(key, { status: e.status, body: e.body, fetchedAt: now, previousAt: map.get(key)?.fetchedAt ?? null });
      }
      return now;
    },
    holdsAny(endpoint) {
      for (const key of map.keys()) if (key.startsWith(`${endpoint} `)) return true;
      return false;
    },
  };
}
