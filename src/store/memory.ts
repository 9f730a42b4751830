// The answer store in memory, for library callers who bring none (and a run whose temporary cache failed).
import type { AnswerStore, StoredAnswer } from './contract.js';

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
