// Planning: what each input row needs. A row is invalid, or answered by what this run already knows (a
// lookup in flight, one that failed, a key the service does not hold), or by the cache, or it needs a
// lookup. Decisions only: the planner reads the store it is given and tells its target what it decided; it
// sends nothing and holds no rows. With stale answers allowed it reads the store at any age and decides the
// age itself: an answer too old to use still stands in for an error (the run stopped, the key failed), and
// goes with a key queued, for its rows should the lookup fail (run/waiting-rows.ts, run/stale-answers.ts). Under --changes it reads
// at any age too, with or without stale answers: the answer held goes with the key queued, to compare the
// refreshed one with (row-change.ts); under --no-stale it never stands in.
import type { AnswerStore, StoredAnswer } from '../store/contract.js';
import type { KindSpec } from '../domain/kinds.js';
import { normaliseHost } from '../domain/normalise.js';
import type { ChangeTracker } from './change-tracker.js';
import type { SeenSet } from './seen-keys.js';
import type { StaleUse } from './stale-answers.js';
import { quoteSpanReason } from '../input/quote-span.js';
import { optionValue, showValue } from '../domain/safe-text.js';
import type { RunStats } from './stats.js';
import type { InputRecord, RowChange } from '../domain/types.js';
import type { NewRow } from './ordered-buffer.js';

/** Rows planned at once: one cache read (awaited) and one seen-set pass per chunk, not per row. */
export const PLAN_CHUNK = 256;

/** Where the planner's decisions go (the run wires them to the ordered buffer and the dispatcher). */
export interface PlanTarget {
  /** A row whose outcome is known now; `change` under --changes. */
  settled(record: InputRecord, row: NewRow & { change?: RowChange }): void;
  /** True when a lookup of `key` is queued or in flight. */
  waiting(key: string): boolean;
  /**
   * A row that waits for the lookup of `key`: queued now, unless it already is or is in flight. `old`: the
   * cache's answer, too old to use, to stand in should the lookup fail (with stale answers allowed) and to
   * compare the new one with (under --changes). `first`: the row is the first of its key in the run (the one
   * a cache hit of the key is counted by).
   */
  pending(key: string, record: InputRecord, host: string, old?: StoredAnswer, first?: boolean): void;
  /** Why the lookup of `key` failed earlier in this run, if it did. */
  failure(key: string): string | undefined;
  /** Why nothing more is sent, once the run stopped; else null. */
  stopped(): string | null;
}

export interface PlannerOptions {
  spec: KindSpec;
  store: AnswerStore;
  /** Keys met in this run, and which of them the service does not hold. */
  seen: SeenSet;
  stats: RunStats;
  /** Oldest cached answer still used. */
  maxAgeMs: number;
  /** Use only answers fetched during this run. */
  refresh: boolean;
  /** Count what would be looked up; plan no lookup. */
  dryRun: boolean;
  /** Every name rule 2.9 accepts is looked up (normalise.ts). */
  anyName?: boolean;
  /** Older answers stand in for errors, counted here; null: never (--no-stale). */
  stale: StaleUse | null;
  /** batch --changes: each row's change against the answer held before (row-change.ts); null: off. */
  changes?: ChangeTracker | null;
  clock: () => number;
}

/** What the store and the seen-set say of a chunk's keys: the answers read, and since when a key is known not held (by index). */
interface Gathered {
  cached: Map<string, StoredAnswer>;
  knownMissing: (number | null)[];
}

/** An empty host cell's reason, pointing to another column that holds something (an Email beside a Website). */
function elsewhere(record: InputRecord, reason: string): string {
  const other = record.elsewhere;
  if (other === undefined || reason !== 'empty value') return reason;
  // Quoted only where needed: the reason is a CSV cell, where every quote is doubled.
  const plain = (text: string, re: RegExp) => (re.test(text) ? text : showValue(text));
  const column = plain(other.column, /^[\w .-]+$/);
  return `empty value; ${column} holds ${plain(other.value, /^[\x21-\x7e]+$/)} (--column ${optionValue(other.column)} reads hosts from it)`;
}

/** Plans chunks of input rows; counts rows, invalid rows, duplicates, cache hits and lookups needed. */
export class Planner {
  readonly #o: PlannerOptions;
  /** The store held nothing for this endpoint when planning began (see plan). */
  #storeWasEmpty: boolean | null = null;

  constructor(o: PlannerOptions) {
    this.#o = o;
  }

  /** The oldest answer the run takes from the store: --max-age, or under --refresh those of this run only. */
  maxAgeMs(): number {
    return this.#o.refresh ? this.#o.clock() - this.#o.stats.startedAt : this.#o.maxAgeMs;
  }

  /**
   * Plans `chunk` (rows in input order) and hands each decision to `to`. The store is awaited for the chunk
   * (its answers, and under --changes their history), then every row is decided at once, with nothing awaited
   * in between: a decision never rests on a key's state from before an await (see #gather).
   */
  async plan(chunk: InputRecord[], to: PlanTarget): Promise<void> {
    const { spec, seen, stats, dryRun } = this.#o;
    const stale = dryRun ? null : this.#o.stale;
    const changes = dryRun ? null : (this.#o.changes ?? null);
    this.#storeWasEmpty ??= !(await this.#o.store.holdsAny(spec.endpoint));
    const planned = chunk.map((record) => {
      const n = normaliseHost(record.value, this.#o);
      return { record, n, key: n.ok ? spec.keyOf(n.host) : null };
    });
    const keys = planned.flatMap((p) => (p.key === null ? [] : [p.key]));
    const fresh = seen.add(keys);
    const maxAge = this.maxAgeMs();
    // Read at any age, the store's answers are checked for age here (else the store's own check stands).
    const oldest = stale !== null || changes !== null ? this.#o.clock() - maxAge : Number.NEGATIVE_INFINITY;
    const { cached, knownMissing } = await this.#gather(keys, fresh, to, changes);
    let i = 0;
    for (const { record, n, key } of planned) {
      stats.rows++;
      for (const c of record.cells) stats.inputChars += c.length + 1;
      if (!n.ok || key === null) {
        stats.invalid++;
        to.settled(record, {
          status: 'invalid',
          host: null,
          reason: n.ok ? 'no registrable domain' : (quoteSpanReason(record) ?? elsewhere(record, n.reason)),
        });
        continue;
      }
      stats.valid++;
      const j = i++;
      const isNew = fresh[j] === true;
      if (!isNew) stats.duplicates++;
      const host = n.host;
      if (to.waiting(key)) {
        to.pending(key, record, host);
        continue;
      }
      const missingSince = knownMissing[j] ?? null;
      if (missingSince !== null) {
        const change = changes?.fromStore(key, host, { status: 'missing', body: null, fetchedAt: missingSince });
        to.settled(record, { status: 'missing', host, cached: true, fetchedAt: missingSince, change });
        continue;
      }
      const hit = cached.get(key);
      const failed = to.failure(key);
      // (A key that failed is read only with stale answers allowed: an answer of the age wanted found then,
      // another process's, is used as any cache hit.)
      if (hit !== undefined && hit.fetchedAt >= oldest) {
        if (isNew) stats.cacheHits++;
        if (hit.status === 'missing') seen.markMissing(key, hit.fetchedAt);
        this.#fromStore(to, record, host, hit, key, changes);
        continue;
      }
      // Read at any age under --changes too, but only stale answers allowed stand in for an error.
      const old = stale === null ? undefined : hit;
      const cannot = failed ?? (dryRun ? null : to.stopped());
      if (cannot !== null) {
        if (old === undefined) to.settled(record, { status: 'error', host, reason: cannot });
        else {
          stale?.used(1, isNew ? 1 : 0, undefined, cannot);
          this.#fromStore(to, record, host, old, key, changes);
        }
        continue;
      }
      // Under --dry-run a repeat of a host to be looked up is neither asked about nor counted again.
      if (isNew || !dryRun) stats.lookupsNeeded++;
      if (!dryRun) to.pending(key, record, host, changes === null ? old : hit, isNew);
    }
    stats.requestsNeeded = Math.ceil(stats.lookupsNeeded / spec.batchSize);
  }

  /**
   * What the store holds for the chunk's keys (any age for stale answers or --changes), and under --changes
   * the history of those answers, read ahead. A key is read unless this run answers it already: queued or in
   * flight, known not held, failed (read only for a stale answer to stand in), or met for the first time in a
   * store that was empty when the run began (its answers since are all about hosts met before: half the reads
   * of a fresh 1,000,000-row run; another process filling the store meanwhile is caught just before sending,
   * ledger.ts boughtMeanwhile). A key's lookup may settle while the store is awaited, and then the key needs
   * reading after all: those are read again, until a pass reads nothing, so the decisions that follow (made
   * without an await) find what they need.
   */
  async #gather(keys: string[], fresh: boolean[], to: PlanTarget, changes: ChangeTracker | null): Promise<Gathered> {
    const { spec, seen, store, dryRun } = this.#o;
    const stale = dryRun ? null : this.#o.stale;
    const readAge = stale !== null || changes !== null ? Number.POSITIVE_INFINITY : this.maxAgeMs();
    // A repeat of a host this run already knows the service does not hold is answered from that: a missing
    // answer has no body, so its time in the seen-set replaces a read of the cache.
    const knownMissing = fresh.map((f, j) => (f ? null : seen.missingSince(keys[j] as string)));
    let cached = new Map<string, StoredAnswer>();
    const asked = new Set<string>();
    // First pass: every key; later passes: the keys waiting at the pass before (the others' state holds).
    let candidates: Iterable<number> = keys.keys();
    for (;;) {
      const read: string[] = [];
      const waited: number[] = [];
      for (const j of candidates) {
        const key = keys[j] as string;
        if (asked.has(key)) continue;
        if (to.waiting(key)) waited.push(j);
        else if (knownMissing[j] === null && (stale !== null || to.failure(key) === undefined) && (fresh[j] ? !this.#storeWasEmpty : !dryRun)) {
          asked.add(key);
          read.push(key);
        }
      }
      const past = changes === null ? [] : this.#pastAsks(keys, knownMissing, cached, to, changes);
      if (read.length === 0 && past.length === 0) return { cached, knownMissing };
      await Promise.all([
        read.length === 0
          ? null
          : store.getMany(spec.endpoint, read, readAge).then((got) => {
              if (cached.size === 0) cached = got;
              else for (const [k, a] of got) cached.set(k, a);
            }),
        changes?.readAhead(past),
      ]);
      // A key waiting before the await may have been answered meanwhile, perhaps as not held.
      for (const j of waited) if (!fresh[j]) knownMissing[j] = seen.missingSince(keys[j] as string);
      candidates = waited;
    }
  }

  /** The history reads the rows about to be settled from the store need and the tracker does not hold. */
  #pastAsks(
    keys: string[],
    knownMissing: (number | null)[],
    cached: Map<string, StoredAnswer>,
    to: PlanTarget,
    changes: ChangeTracker,
  ): { key: string; at: number }[] {
    const asks = new Map<string, number>();
    for (const [j, key] of keys.entries()) {
      if (asks.has(key) || to.waiting(key)) continue;
      const at = knownMissing[j] ?? cached.get(key)?.fetchedAt;
      if (at !== undefined && changes.ready(key, at)) asks.set(key, at);
    }
    return [...asks].map(([key, at]) => ({ key, at }));
  }

  /** Settles a row with an answer the store holds (of the age wanted, or an older one standing in). */
  #fromStore(to: PlanTarget, record: InputRecord, host: string, answer: StoredAnswer, key: string, changes: ChangeTracker | null): void {
    const data = answer.status === 'found' ? this.#o.spec.fanOut(answer.body, host) : null;
    to.settled(record, { status: answer.status, host, data, cached: true, fetchedAt: answer.fetchedAt, change: changes?.fromStore(key, host, answer) });
  }
}
