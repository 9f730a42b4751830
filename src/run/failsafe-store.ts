// A store that survives its own failures. Once the service has charged for an answer, nothing the disk does may
// turn it into an error row: when a write to the store fails (disk full, read-only, locked past the busy
// timeout, damaged), the answer still goes to its rows, is counted as not kept (stats.notKept, notKeptCause),
// and the run says so once (a 'not-kept' event). From that failure on, the run writes nothing more to the store
// and keeps what it buys in memory: a disk that filled seldom empties mid-run, and each try of a locked file
// would cost the 5-s busy timeout again for every batch. The run's dedupe reads the store, so a repeat later in
// the input finds its answer here and is not bought twice.
// Memory: every answer bought after the failure is held to the end of the run, as its JSON text (smaller than
// the parsed object): about 1 KB per distinct host for a profile, so ~100 MB for a run of 100,000 distinct
// hosts whose cache fails at its first write. Not capped: dropping them would pay for repeats again.
// Sharing the store with other processes (getFresh, claims) degrades the same way: a failure there ends the
// sharing for this run, with one 'not-shared' event; this run then may buy what another is buying.
// A shared store lost mid-run (StoreUnavailableError: a PostgreSQL server gone) is not a disk that filled: the
// answers paid for still reach their rows (counted not kept), but the run must not go on buying alone, as its
// rate is the account's and other machines may be buying the same hosts; `onLost` stops it, and the error is
// what the run ends with.
import { StoreUnavailableError, storageTrouble } from '../store/errors.js';
import type { AnswerPut, AnswerStore } from '../store/contract.js';
import type { RunEvent, RunStats } from './stats.js';

interface Unkept {
  status: 'found' | 'missing';
  json: string | null;
  fetchedAt: number;
}

interface KeptOptions {
  /** Where not-kept answers are counted: a run's stats, or a single lookup's own two fields. */
  stats: Pick<RunStats, 'notKept' | 'notKeptCause'>;
  onEvent?: ((event: RunEvent) => void) | undefined;
  clock: () => number;
  /** Told once that a shared store was lost mid-run: the run stops buying, and ends with `err`. */
  onLost?: (err: StoreUnavailableError) => void;
}

/** What a run is told when its cache cannot be written: the cause in words, for the summary and the warning. */
const notKeptCause = (trouble: string): string => `the cache is not writable (${trouble})`;

/** `store`, with its write failures counted and survived (see above). */
export function keptStore(store: AnswerStore, o: KeptOptions): AnswerStore {
  const unkept = new Map<string, Unkept>();
  let failed = false;
  let alone = false;
  let lost = false;
  const keyOf = (endpoint: string, host: string) => `${endpoint}\n${host}`;
  const claimFresh = store.claimFresh?.bind(store) ?? (() => Promise.resolve({ busy: [], held: new Map() }));

  /** Runs a sharing step; a storage failure ends sharing for the run (once said), anything else is thrown. */
  const shared = async <T>(fn: () => Promise<T>, otherwise: T): Promise<T> => {
    if (alone || lost) return otherwise;
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StoreUnavailableError) {
        loseStore(err); // the run stops at once: what is asked now is not bought
        return otherwise;
      }
      const trouble = storageTrouble(err);
      if (trouble === null) throw err;
      if (!alone) o.onEvent?.({ type: 'not-shared', cause: `the cache cannot be shared with other runs (${trouble})` });
      alone = true;
      return otherwise;
    }
  };

  const loseStore = (err: StoreUnavailableError): void => {
    if (lost) return;
    lost = true;
    o.onLost?.(err);
  };

  return {
    async getMany(endpoint, hosts, maxAgeMs) {
      const found = await store.getMany(endpoint, hosts, maxAgeMs);
      if (unkept.size === 0) return found;
      const since = o.clock() - maxAgeMs;
      for (const host of hosts) {
        const u = unkept.get(keyOf(endpoint, host));
        // Bought in this run, so later than anything the store holds for the host.
        if (u !== undefined && u.fetchedAt >= since) {
          found.set(host, { status: u.status, body: u.json === null ? null : JSON.parse(u.json), fetchedAt: u.fetchedAt });
        }
      }
      return found;
    },
    getFresh: (endpoint, hosts, maxAgeMs) => shared(() => store.getFresh(endpoint, hosts, maxAgeMs), new Map()),
    claim: (endpoint, hosts) => shared(() => store.claim(endpoint, hosts), []),
    release: (endpoint, hosts) => shared(() => store.release(endpoint, hosts), undefined),
    ...(store.claimFresh
      ? {
          claimFresh: (endpoint: string, hosts: readonly string[], maxAgeMs: number) =>
            shared(() => claimFresh(endpoint, hosts, maxAgeMs), { busy: [], held: new Map() }),
        }
      : {}),
    join: () => shared(() => store.join(), false),
    leave: () => shared(() => store.leave(), undefined),
    async putMany(entries) {
      if (!failed && entries.length > 0) {
        try {
          return await store.putMany(entries);
        } catch (err) {
          if (err instanceof StoreUnavailableError) {
            // Paid for: its rows still show it, and the run stops on the loss (the error it ends with says so).
            o.stats.notKeptCause ??= err.message;
            failed = true;
            loseStore(err);
          } else {
            const trouble = storageTrouble(err);
            if (trouble === null) throw err;
            // Said once: a batch whose write was in flight when another failed is counted, not said again.
            if (!failed) {
              o.stats.notKeptCause = notKeptCause(trouble);
              o.onEvent?.({ type: 'not-kept', cause: o.stats.notKeptCause, count: entries.length });
            }
            failed = true;
          }
        }
      }
      const now = o.clock();
      if (entries.length === 0) return now;
      // A stored answer ends its claim; one not kept must end it too, or another run waits for it in vain
      // until the claim expires. Likely to fail as the write did, which ends sharing (said once).
      await shared(
        () =>
          store.release(
            (entries[0] as AnswerPut).endpoint,
            entries.map((e) => e.host),
          ),
        undefined,
      );
      for (const e of entries) {
        unkept.set(keyOf(e.endpoint, e.host), {
          status: e.status,
          json: e.body === null || e.body === undefined ? null : JSON.stringify(e.body),
          fetchedAt: now,
        });
      }
      o.stats.notKept += entries.length;
      return now; // the rows' fetched_at, as for a kept answer
    },
    async holdsAny(endpoint) {
      if (unkept.size > 0) for (const key of unkept.keys()) if (key.startsWith(`${endpoint}\n`)) return true;
      return store.holdsAny(endpoint);
    },
    // The history is the store's own (a write that failed added none).
    past: store.past,
  };
}
