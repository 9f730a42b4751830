// batch --changes (issue 17): what each row's answer changed against the answer held before it was fetched,
// through the one comparison (diff.ts). Two rules, by how the row was answered:
// - By a lookup in this run: against the answer the cache held when the run planned the key (any age; the
//   planner reads it and run/waiting-rows.ts holds it while the key is queued), or nothing (`new`). An answer another
//   process bought meanwhile (found just before sending, ledger.ts) is judged the same way: it too replaced
//   the answer held at planning.
// - From the cache: the history rule. The past answer whose `replaced_at` is the answer's `fetched_at` (to the
//   second, the store's replacedByMany) is what that fetch replaced; with none, the fetch changed nothing:
//   `new` when the cache says the host was never fetched before it (`prev_fetched_at` empty), else `same`
//   since the fetch before. An answer the cache does not know that of (one still in this connection's
//   journal, or a store without the column) reads `same` with no previous time.
// Repeats of a key this run looked up must say what its first row said, but the history sees merged answers
// only (this run's wait in the journal for up to MERGE_EVERY = 10,000 answers), and a `new` leaves no history
// at all. So the records of keys looked up in this run are kept, one shared object per key, in a map bounded
// at SETTLED_CAP keys, oldest first out (~150 bytes a key with its key string: ~10 MB at the cap). A repeat
// of a key that has left the map (more than SETTLED_CAP keys looked up since) is judged by the history rule:
// by then its answer is merged, so changed/gone/back and their fields are still exact; what is lost is `new`
// (read as `same`) and a `same`'s previous_fetched_at (empty). Written down as the cost of the bound.
// The history is read ahead, once per chunk of rows the planner settles from the store (`readAhead`), never
// per row: rows are settled without waiting on the store, from what was read (`fromStore`).
import type { HistoryReads, PastAnswer, StoredAnswer } from '../store/contract.js';
import { rowChange } from '../domain/row-change.js';
import type { RowChange } from '../domain/types.js';
import type { KindSpec } from '../domain/kinds.js';
import type { RowStatus } from '../domain/types.js';

/** Keys looked up in this run whose change is kept for their repeats (see the top of this file). */
const SETTLED_CAP = 65_536;

/** The changes of one run: computed once per key and answer, kept for the repeats of keys it looked up. */
export class ChangeTracker {
  readonly #spec: KindSpec;
  readonly #past: Pick<HistoryReads, 'replacedByMany'>;
  readonly #cap: number;
  readonly #settled = new Map<string, RowChange>();
  /**
   * For rows about to be settled from the store, by key: what the fetch (to the second) of the key's answer
   * replaced, read ahead; or the change this run already gave the key, held for the row (the map above may
   * let it go before the row settles). Dropped once used, when the key's lookup settles, and past the cap.
   */
  readonly #known = new Map<string, { second: number; before?: PastAnswer | null; change?: RowChange }>();
  /** Set once a history read failed: the rule is not tried again, its rows' change cells stay empty. */
  #pastFailed = false;

  /** `past`: the store's history. */
  constructor(spec: KindSpec, past: Pick<HistoryReads, 'replacedByMany'>, cap = SETTLED_CAP) {
    this.#spec = spec;
    this.#past = past;
    this.#cap = Math.max(1, cap);
  }

  /** A key looked up in this run, answered `status`/`body` at `at`, against `held` (the answer held at planning). */
  looked(key: string, host: string, held: StoredAnswer | undefined, status: RowStatus, body: unknown, at: number): RowChange | undefined {
    this.#known.delete(key);
    if (status !== 'found' && status !== 'missing') return undefined;
    const change = rowChange(this.#spec, host, held ?? null, { status, body }, at);
    this.#keep(key, change);
    return change;
  }

  /** Keeps `change` for the repeats of `key`, the oldest key out past the cap. */
  #keep(key: string, change: RowChange): void {
    this.#settled.delete(key);
    this.#settled.set(key, change);
    if (this.#settled.size > this.#cap) this.#settled.delete(this.#settled.keys().next().value as string);
  }

  /**
   * Readies a row of `key` about to be answered from the store with an answer fetched at `at`: true when the
   * history must be read ahead for it (readAhead); a change this run already gave the key is held for it.
   */
  ready(key: string, at: number): boolean {
    const second = Math.floor(at / 1000);
    if (this.#pastFailed || this.#known.get(key)?.second === second) return false;
    const mine = this.#settled.get(key);
    if (mine?.second !== second) return true;
    this.#hold(key, { second, change: mine });
    return false;
  }

  #hold(key: string, entry: { second: number; before?: PastAnswer | null; change?: RowChange }): void {
    this.#known.delete(key);
    this.#known.set(key, entry);
    if (this.#known.size > SETTLED_CAP) this.#known.delete(this.#known.keys().next().value as string);
  }

  /** Reads, in one call, what the fetches of `all` (keys and the times of their answers) replaced, where needed. */
  async readAhead(all: readonly { key: string; at: number }[]): Promise<void> {
    const asks = all.filter((a) => this.ready(a.key, a.at));
    if (asks.length === 0) return;
    let found: (PastAnswer | null)[];
    try {
      found = await this.#past.replacedByMany(
        this.#spec.endpoint,
        asks.map((a) => ({ host: a.key, at: a.at })),
      );
    } catch {
      // The answers are paid and stand; only what they changed is unknown: empty cells, not a failed run.
      this.#pastFailed = true;
      return;
    }
    for (const [i, a] of asks.entries()) this.#hold(a.key, { second: Math.floor(a.at / 1000), before: found[i] ?? null });
  }

  /**
   * A row answered from the store with `answer`: what this run said of the key when it looked it up and got
   * this answer, else the history rule, read ahead. Undefined (empty cells) once the history could not be
   * read, or when it was not read ahead.
   */
  fromStore(key: string, host: string, answer: StoredAnswer): RowChange | undefined {
    const second = Math.floor(answer.fetchedAt / 1000);
    const mine = this.#settled.get(key);
    if (mine !== undefined && mine.second === second) return mine;
    const known = this.#known.get(key);
    if (known?.change !== undefined && known.second === second) return known.change;
    if (this.#pastFailed || known === undefined || known.second !== second) return undefined;
    this.#known.delete(key);
    const before: StoredAnswer | null = known.before ?? null;
    const change = rowChange(this.#spec, host, before, answer, answer.fetchedAt);
    // Without a past answer replaced at that fetch, the fetch changed nothing: `new` when the store says the
    // host was never fetched before it, else `same` since the fetch before (when the store knows it).
    if (before === null) {
      change.change = answer.previousAt === null ? 'new' : 'same';
      change.previousAt = answer.previousAt ?? null;
    }
    // Kept for the key's repeats too: a repeat of a host the service does not hold is answered from the run's
    // seen-set, which keeps the time and nothing else, and must say what its first row said.
    this.#keep(key, change);
    return change;
  }
}
