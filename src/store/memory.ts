// The store in memory: for library callers who bring none, and a run whose temporary cache failed. It keeps
// the whole contract (contract.ts): answers by age, history, claims and presence between handles on the same
// memory (`connect`, as two processes would be on one file), and upkeep. Grows with the distinct hosts kept.
import type { AnswerPut, HeldAnswer, PastAnswer, Store, StoredAnswer } from './contract.js';

/** Longest a claim holds, as the SQLite store's: a request's timeout and its retries' backoff, with room. */
const CLAIM_MS = 2 * 60_000;

interface Held extends StoredAnswer {
  previousAt: number | null;
}

/** What every handle on one memory store shares. */
interface Shared {
  answers: Map<string, Held>;
  /** Past answers by key, oldest first. */
  past: Map<string, PastAnswer[]>;
  claims: Map<string, { owner: Handle; expiresAt: number }>;
  handles: Set<Handle>;
  clock: () => number;
}

interface Handle {
  /** Another handle has written answers since this one opened, or was present when it joined. */
  othersWrote: boolean;
  present: boolean;
  open: boolean;
}

/** A memory store (the contract, upkeep and close), with `connect` for another handle on the same answers. */
export interface MemoryStore extends Store {
  /** Another handle on the same answers: its own claims and presence, as a second run sharing them. */
  connect(): MemoryStore;
}

const keyOf = (endpoint: string, host: string) => `${endpoint}\n${host}`;
const hostOf = (key: string) => key.slice(key.indexOf('\n') + 1);
/** A body as the history compares it: its JSON text, a profile's `age_days` left out (it grows by a day a day). */
const comparable = (a: { status: string; body: unknown }) => {
  const body = a.body !== null && typeof a.body === 'object' && 'age_days' in a.body ? { ...a.body, age_days: undefined } : a.body;
  return `${a.status} ${JSON.stringify(body ?? null)}`;
};

/** A store in memory, for one process; `clock` stamps and ages its answers (default Date.now). */
export function memoryStore(options: { clock?: () => number } = {}): MemoryStore {
  return handleOn({ answers: new Map(), past: new Map(), claims: new Map(), handles: new Set(), clock: options.clock ?? Date.now });
}

function handleOn(s: Shared): MemoryStore {
  const me: Handle = { othersWrote: false, present: false, open: true };
  s.handles.add(me);
  const others = () => [...s.handles].filter((h) => h !== me && h.open);
  const cutoff = (maxAgeMs: number) => (Number.isFinite(maxAgeMs) ? s.clock() - maxAgeMs : Number.NEGATIVE_INFINITY);
  const read = (endpoint: string, hosts: readonly string[], maxAgeMs: number) => {
    const out = new Map<string, StoredAnswer>();
    const oldest = cutoff(maxAgeMs);
    for (const host of hosts) {
      const hit = s.answers.get(keyOf(endpoint, host));
      if (hit !== undefined && hit.fetchedAt >= oldest) out.set(host, { ...hit });
    }
    return out;
  };
  const releaseMine = (endpoint: string, hosts: readonly string[]) => {
    for (const host of hosts) if (s.claims.get(keyOf(endpoint, host))?.owner === me) s.claims.delete(keyOf(endpoint, host));
  };
  const put = (entries: readonly AnswerPut[]): number => {
    const now = s.clock();
    for (const e of entries) {
      const key = keyOf(e.endpoint, e.host);
      const before = s.answers.get(key);
      const body = e.body === undefined ? null : e.body;
      if (before !== undefined && comparable(before) !== comparable({ status: e.status, body })) {
        const list = s.past.get(key) ?? [];
        list.push({ status: before.status, body: before.body, fetchedAt: before.fetchedAt, replacedAt: now });
        s.past.set(key, list);
      }
      s.answers.set(key, { status: e.status, body, fetchedAt: now, previousAt: before?.fetchedAt ?? null });
    }
    if (entries.length > 0) for (const h of others()) h.othersWrote = true;
    if (entries[0] !== undefined)
      releaseMine(
        entries[0].endpoint,
        entries.map((e) => e.host),
      );
    return now;
  };
  const held = (a: Held): HeldAnswer => ({ status: a.status, body: a.body, fetchedAt: a.fetchedAt, replacedAt: null });
  const remove = (keep: (key: string, a: Held) => boolean): number => {
    let removed = 0;
    for (const [key, a] of s.answers) {
      if (keep(key, a)) continue;
      s.answers.delete(key);
      s.past.delete(key);
      removed++;
    }
    return removed;
  };
  const leave = () => {
    me.present = false;
    for (const [key, c] of s.claims) if (c.owner === me) s.claims.delete(key);
  };

  return {
    getMany: async (endpoint, hosts, maxAgeMs) => read(endpoint, hosts, maxAgeMs),
    getFresh: async (endpoint, hosts, maxAgeMs) => (me.othersWrote ? read(endpoint, hosts, maxAgeMs) : new Map()),
    async claim(endpoint, hosts) {
      // Claimed even while this handle believes itself alone, as the other stores do (run/ledger.ts).
      const now = s.clock();
      const busy: string[] = [];
      for (const host of hosts) {
        const key = keyOf(endpoint, host);
        const c = s.claims.get(key);
        if (c !== undefined && c.owner !== me && c.owner.open && c.expiresAt >= now) busy.push(host);
        else s.claims.set(key, { owner: me, expiresAt: now + CLAIM_MS });
      }
      return busy;
    },
    release: async (endpoint, hosts) => releaseMine(endpoint, hosts),
    putMany: async (entries) => put(entries),
    async holdsAny(endpoint) {
      for (const key of s.answers.keys()) if (key.startsWith(`${endpoint}\n`)) return true;
      return false;
    },
    async join() {
      me.present = true;
      const live = others().some((h) => h.present);
      me.othersWrote ||= live;
      // The others learn of it, as SQLite's connections see the file change.
      for (const h of others()) h.othersWrote = true;
      return live;
    },
    leave: async () => leave(),
    past: {
      async replacedByMany(endpoint, asks) {
        return asks.map(({ host, at }) => {
          const second = Math.floor(at / 1000) * 1000;
          const list = s.past.get(keyOf(endpoint, host)) ?? [];
          for (let i = list.length - 1; i >= 0; i--) {
            const p = list[i] as PastAnswer;
            if (p.replacedAt >= second && p.replacedAt < second + 1000) return { ...p };
          }
          return null;
        });
      },
      async latest(endpoint, host) {
        const a = s.answers.get(keyOf(endpoint, host));
        return a === undefined ? null : held(a);
      },
      async pastAmong(endpoint, hosts) {
        const out = new Map<string, boolean>();
        for (const host of hosts) if (s.answers.has(keyOf(endpoint, host))) out.set(host, (s.past.get(keyOf(endpoint, host))?.length ?? 0) > 0);
        return out;
      },
      async hostsWithHistory(endpoint, after, limit) {
        const hosts = [...s.past.keys()].filter((k) => k.startsWith(`${endpoint}\n`) && (s.past.get(k)?.length ?? 0) > 0).map(hostOf);
        return hosts
          .filter((h) => after === null || h > after)
          .sort()
          .slice(0, limit);
      },
      history: async (endpoint, host) => [...(s.past.get(keyOf(endpoint, host)) ?? [])].reverse().map((p) => ({ ...p })),
      async previous(endpoint, host, at) {
        const list = s.past.get(keyOf(endpoint, host)) ?? [];
        if (at === undefined) return list.length === 0 ? null : { ...(list[list.length - 1] as PastAnswer) };
        const then = list.find((p) => p.replacedAt > at);
        if (then !== undefined) return { ...then };
        const now = s.answers.get(keyOf(endpoint, host));
        return now === undefined ? null : held(now);
      },
    },
    async stats() {
      const byEndpoint: Record<string, number> = {};
      let [found, missing, bytes, history] = [0, 0, 0, 0];
      let [oldest, newest] = [null as number | null, null as number | null];
      for (const [key, a] of s.answers) {
        const endpoint = key.slice(0, key.indexOf('\n'));
        byEndpoint[endpoint] = (byEndpoint[endpoint] ?? 0) + 1;
        if (a.status === 'found') found++;
        else missing++;
        oldest = oldest === null ? a.fetchedAt : Math.min(oldest, a.fetchedAt);
        newest = newest === null ? a.fetchedAt : Math.max(newest, a.fetchedAt);
        bytes += key.length + JSON.stringify(a.body ?? null).length;
      }
      for (const list of s.past.values()) history += list.length;
      return {
        path: 'memory',
        entries: s.answers.size,
        byEndpoint: Object.fromEntries(Object.entries(byEndpoint).sort()),
        found,
        missing,
        oldest,
        newest,
        bytes,
        history,
      };
    },
    clear: async () => remove(() => false),
    prune: async (maxAgeMs) => remove((_, a) => a.fetchedAt >= cutoff(maxAgeMs)),
    async pruneHistory(maxAgeMs) {
      const before = cutoff(maxAgeMs);
      let removed = 0;
      for (const [key, list] of s.past) {
        const kept = list.filter((p) => p.replacedAt >= before);
        removed += list.length - kept.length;
        if (kept.length === 0) s.past.delete(key);
        else s.past.set(key, kept);
      }
      return removed;
    },
    async close() {
      leave();
      me.open = false;
      s.handles.delete(me);
    },
    connect: () => handleOn(s),
  };
}
