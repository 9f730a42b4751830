// The ledger of a run: what the service charged for, stored before any row shows it, and what the service says
// is left. Answers arrive out of order (one slow batch lands after later ones), so the quota shown is the
// lowest X-Quota-Remaining of the current period, not the last to arrive; and the drop over the run (the
// highest remaining-before-an-answer minus the lowest remaining) is kept to check the lookups recorded
// against what the service counted.
import { comparePeriods, periodMark } from '../api/quota.js';
import type { QuotaInfo } from '../api/types.js';
import type { AnswerStore, ClaimedFresh } from '../store/contract.js';
import type { Answer, KindSpec } from '../domain/kinds.js';
import type { Later } from './bought-elsewhere.js';
import type { RunStats } from './stats.js';
import type { RunKind } from '../domain/types.js';
import type { Waiting } from './waiting-rows.js';

/** Where `b` stands against the period of `a` (api/quota.ts); unorderable, the later answer says (by arrival). */
function periodOf(a: QuotaInfo, b: QuotaInfo): 'same' | 'newer' | 'older' {
  const order = comparePeriods(periodMark(b), periodMark(a));
  if (order === null) return a.limit === null || b.limit === null ? 'same' : 'newer';
  return order === 0 ? 'same' : order > 0 ? 'newer' : 'older';
}

interface LedgerOptions<K extends RunKind> {
  spec: KindSpec;
  store: AnswerStore;
  stats: RunStats;
  waiting: Waiting<K>;
}

/** Records paid answers and settles their rows; keeps stats.lookupsSpent, unanswered, quota and quotaDrop. */
export class Ledger<K extends RunKind> {
  readonly #o: LedgerOptions<K>;
  /** An answer of the current quota period, and its lowest remaining so far. */
  #low: QuotaInfo | null = null;
  /** The highest remaining + charged of the current period: what was left before its answers. */
  #top = 0;
  /** The drop of earlier periods of this run (a rollover or a pack mid-run starts a new one). */
  #earlier = 0;
  /** This run said it is here (the store's presence), before its first batch. */
  #joined: Promise<boolean> | null = null;

  constructor(o: LedgerOptions<K>) {
    this.#o = o;
  }

  /**
   * Stores what the service charged for in `answer` (found, or not held), counts it as spent, notes its quota
   * and settles the rows of those keys. Returns the keys in neither list: not stored, since they may not
   * have been charged; their rows are the caller's to settle. The rows settle once the store has recorded the
   * answers: a paid answer is in the store before any row shows it.
   */
  async record(keys: string[], answer: Answer): Promise<string[]> {
    const { stats, spec, waiting } = this.#o;
    const entries = [];
    const left: string[] = [];
    for (const k of keys) {
      if (answer.found.has(k)) entries.push({ endpoint: spec.endpoint, host: k, status: 'found' as const, body: answer.found.get(k) });
      else if (answer.missing.has(k)) entries.push({ endpoint: spec.endpoint, host: k, status: 'missing' as const, body: null });
      else left.push(k);
    }
    const at = await this.#o.store.putMany(entries); // when recorded: the rows' fetched_at
    if (left.length > 0) await this.#o.store.release(spec.endpoint, left); // not answered: another run may buy them
    stats.lookupsSpent += entries.length; // one per distinct host answered, found or not (§8.6)
    stats.unanswered += left.length;
    this.note(answer.quota, entries.length);
    for (const e of entries) waiting.settle(e.host, e.status, e.body, null, false, false, at);
    return left;
  }

  /**
   * `keys` less those another process sharing the store is buying now (claimed: put aside on `later`, to be
   * found in the store in a moment) and those it bought since planning (their rows settle from the store:
   * cached, counted as cache hits). The rest are this run's claims, returned to be sent. The first call says
   * the run is here (the store's presence).
   *
   * Claimed first, then looked for, and claimed even by a run that believes itself alone: two runs started at
   * the same instant each joined before the other was there to see, and each bought the same batch. Claims
   * are taken one run at a time, so of two runs after one host the second finds the first's claim, or, once
   * that has ended, the answer it stored (stored before the claim ends); a look before the claim could miss
   * both.
   */
  async boughtMeanwhile(keys: string[], maxAgeMs: number, later: Later): Promise<string[]> {
    const { store, spec, stats, waiting } = this.#o;
    this.#joined ??= store.join();
    await this.#joined;
    const { busy, held } = store.claimFresh ? await store.claimFresh(spec.endpoint, keys, maxAgeMs) : await this.#claimFresh(keys, maxAgeMs);
    later.add(busy);
    const gone = new Set(busy);
    for (const [key, hit] of held) {
      gone.add(key);
      if (waiting.holdsFirst(key)) stats.cacheHits++;
      waiting.settle(key, hit.status, hit.body, null, false, true, hit.fetchedAt);
    }
    return gone.size === 0 ? keys : keys.filter((k) => !gone.has(k));
  }

  /** claimFresh asked as three steps, for a store that has no one-step claimFresh (contract.ts). */
  async #claimFresh(keys: string[], maxAgeMs: number): Promise<ClaimedFresh> {
    const { store, spec } = this.#o;
    const busy = await store.claim(spec.endpoint, keys);
    const taken = new Set(busy);
    const held = await store.getFresh(spec.endpoint, taken.size === 0 ? keys : keys.filter((k) => !taken.has(k)), maxAgeMs);
    if (held.size > 0) await store.release(spec.endpoint, [...held.keys()]); // not bought here: their claims end
    return { busy, held };
  }

  /** The run is over: it leaves the store's presence, if it joined. */
  async leave(): Promise<void> {
    if (this.#joined === null) return;
    await this.#joined.catch(() => undefined);
    this.#joined = null;
    await this.#o.store.leave();
  }

  /** Notes the quota an answer carried; `charged` is what was recorded for it. */
  note(q: QuotaInfo | null, charged: number): void {
    const stats = this.#o.stats;
    if (q === null) return;
    if (q.remaining === null) {
      // Nothing to compare: shown only until an answer with a figure comes.
      if (this.#low === null) stats.quota = q;
      return;
    }
    const low = this.#low;
    const period = low === null ? 'newer' : periodOf(low, q);
    if (period === 'older') return; // a slow answer from before the rollover or the pack
    if (period === 'newer' || low === null) {
      if (low !== null) this.#earlier += this.#top - (low.remaining ?? 0);
      this.#low = q;
      this.#top = q.remaining + charged;
    } else {
      this.#top = Math.max(this.#top, q.remaining + charged);
      if (q.remaining < (low.remaining ?? Number.POSITIVE_INFINITY)) this.#low = q;
    }
    stats.quota = this.#low;
    stats.quotaDrop = this.#earlier + this.#top - (this.#low?.remaining ?? 0);
  }
}
