// The enrichment run: records in, enriched rows out in input order, every lookup needed and none twice.
// A short composition of the stages (ARCHITECTURE.md): read (here) -> plan (planner.ts) -> dispatch
// (dispatcher.ts) -> order (run/ordered-buffer.ts) -> the caller writes; what differs by kind is in kinds.ts.
// Memory stays flat: at most `maxBuffered` rows wait for answers, dedupe is a bounded table of fingerprints
// (run/seen-keys.ts, SQLite past that), and answers go to the store, which later duplicates read back.
import type { DomainIntelClient } from '../api/client.js';
import { retryLimits } from '../api/retry.js';
import type { QuotaInfo } from '../api/types.js';
import { DEFAULT_MAX_AGE_MS } from '../config/values.js';
import type { AccountState, AnswerStore, LearnedRate } from '../store/contract.js';
import { memoryStore } from '../store/memory.js';
import { Dispatcher } from './dispatcher.js';
import type { InputState } from './input-state.js';
import { intake, type RecordSource } from './intake.js';
import { keptStore } from './failsafe-store.js';
import { KINDS } from '../domain/kinds.js';
import { OrderedBuffer } from './ordered-buffer.js';
import { Planner, type PlanTarget } from './planner.js';
import { ChangeTracker } from './change-tracker.js';
import { sleep as defaultSleep } from '../api/sleep.js';
import type { RateLimiter } from './limit/limiter.js';
import { type GivenRate, pacedLimiter } from './limit/policy.js';
import { openSeenSet } from './seen-keys.js';
import { StaleUse } from './stale-answers.js';
import { emptyStats, type RunEvent, type RunStats } from './stats.js';
import type { EnrichedRow, InputRecord, RunKind } from '../domain/types.js';
import { Waiting } from './waiting-rows.js';

export type { AnswerStore } from '../store/contract.js';
export type { GivenRate } from './limit/policy.js';

export type { RecordSource } from './intake.js';

export interface EnrichOptions<K extends RunKind> {
  kind: K;
  client: DomainIntelClient;
  /** Where answers are kept (default: in memory for this run; pass openStore() to keep them across runs). */
  store?: AnswerStore;
  /**
   * Paces requests. Default: built by the run's policy (run/limit/policy.ts) from `rate` and `account`: a
   * rate given is kept, else the account's learned rate, else learned from the first 429.
   */
  limiter?: RateLimiter;
  /** The rate the caller gave (requests per window; null: no pacing); default: nothing said. */
  rate?: GivenRate;
  /** The account (openAccount()): its slots are shared with every run of it, and a rate learned is kept there. */
  account?: AccountState;
  /** Told each rate the run learns from the service (with no rate given). */
  onLearn?: (rate: LearnedRate) => void;
  /** Oldest cached answer still used (default 30 days). */
  maxAgeMs?: number;
  /** Fetch again what the cache holds (answers fetched during this run are still reused). */
  refresh?: boolean;
  /**
   * When a cached answer older than maxAgeMs (under `refresh`, any from before the run) cannot be refreshed
   * (the service unreachable or failing, the quota spent, the budget reached, the run stopped), its rows get
   * that answer rather than an error, counted in stats.stale with the cause in stats.staleCause (default
   * true; false: such rows are errors).
   */
  stale?: boolean;
  /**
   * Each row says what its answer changed against the answer held before it was fetched (`row.change`,
   * row-change.ts): the planner then reads the store at any age, and the held answer goes with each key
   * queued (it stands in for errors only when `stale` allows). Default false: nothing of it is done.
   */
  changes?: boolean;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Attempts after the first for retryable failures (default RETRY_DEFAULTS, api/retry.ts). */
  retries?: number;
  /** 429 pauses one request sits out before its rows fail (default RETRY_DEFAULTS, api/retry.ts). */
  maxRateLimitWaits?: number;
  /** Hard budget: never spend more lookups than this. */
  maxLookups?: number | null;
  /** Read and plan everything, send nothing, yield no rows; see `stats`. */
  dryRun?: boolean;
  /** Send every name rule 2.9 accepts, with none of normaliseHost's checks beyond it (intranet names). */
  anyName?: boolean;
  signal?: AbortSignal;
  /** Rows held while waiting for answers before reading pauses (default 10,000). */
  maxBuffered?: number;
  clock?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onProgress?: (stats: Readonly<RunStats>) => void;
  onEvent?: (event: RunEvent) => void;
  /**
   * For a caller that cannot trust what it knows of the quota: the run sends one request, puts the first
   * quota an answer reports to the gate (no second request before it resolves), and goes on if it resolves
   * true, or stops with 'short' (rows not looked up) if false.
   */
  quotaGate?: (quota: QuotaInfo) => Promise<boolean>;
}

/** An enrichment in progress: iterate `rows()` once; `stats` fills in as it goes. */
export interface EnrichRun<K extends RunKind> {
  rows(): AsyncGenerator<EnrichedRow<K>, void, undefined>;
  /**
   * The same rows, in the same order, as many at a time as are ready: for a consumer that handles rows in
   * bulk (one await per batch rather than per row). Iterate either this or rows(), once.
   */
  batches(): AsyncGenerator<EnrichedRow<K>[], void, undefined>;
  readonly stats: RunStats;
}

/** Starts an enrichment of `records`; nothing is read until `rows()` is iterated. */
export function enrich<K extends RunKind>(records: RecordSource, o: EnrichOptions<K>): EnrichRun<K> {
  const spec = KINDS[o.kind];
  const clock = o.clock ?? Date.now;
  const stats = emptyStats(clock());
  const concurrency = Math.max(1, o.concurrency ?? 8);
  const maxBuffered = Math.max(spec.batchSize * concurrency * 2, o.maxBuffered ?? 10_000);
  const buffer = new OrderedBuffer<K>({ kind: o.kind, maxBuffered, stats, keep: !o.dryRun });
  // A store write that fails never turns a paid answer into an error row (run/failsafe-store.ts).
  const own = o.store ?? memoryStore();
  // A shared store lost mid-run stops the run (it never buys on alone), which then ends with the loss.
  const store = keptStore(own, { stats, onEvent: o.onEvent, clock, onLost: (err) => dispatcher.stop('error', err) });
  // Keys met in this run, and which of them the service does not hold (closed when reading ends).
  const seen = openSeenSet();
  const input: InputState = { done: false, pausedForBuffer: false, lastAt: 0 };
  const stale = o.stale === false || o.dryRun === true ? null : new StaleUse(stats, o.maxLookups ?? null);
  // The history the rule for cached rows reads is the caller's store's (run/failsafe-store.ts adds none of its own).
  const changes = o.changes === true && o.dryRun !== true ? new ChangeTracker(spec, own.past) : null;
  const waiting = new Waiting<K>(buffer, spec, seen, stale, clock, changes);
  const dispatcher = new Dispatcher<K>({
    spec,
    client: o.client,
    store,
    limiter: o.limiter ?? pacedLimiter({ rate: o.rate, account: o.account ?? null, onLearn: o.onLearn }),
    buffer,
    waiting,
    stats,
    input,
    concurrency,
    maxLookups: o.maxLookups ?? null,
    // The cap on one request's time is set by the client's timeout (api/retry.ts REQUEST_CAP_TIMEOUTS).
    limits: retryLimits({ ...o, timeoutMs: o.client.timeoutMs }),
    random: o.random,
    sleep: o.sleep ?? defaultSleep,
    clock,
    onProgress: o.onProgress,
    onEvent: o.onEvent,
    maxAgeMs: () => planner.maxAgeMs(),
    quotaGate: o.quotaGate,
  });
  const planner = new Planner({
    spec,
    store,
    seen,
    stats,
    maxAgeMs: o.maxAgeMs ?? DEFAULT_MAX_AGE_MS,
    refresh: o.refresh === true,
    dryRun: o.dryRun === true,
    anyName: o.anyName === true,
    stale,
    changes,
    clock,
  });
  const target: PlanTarget = {
    settled: (record, row) => {
      const slot = buffer.add(record, row);
      if (row.change !== undefined) slot.row.change = row.change;
    },
    waiting: (key) => waiting.has(key),
    pending: (key, record, host, old, first) => {
      dispatcher.enqueue(key, buffer.addPending(record, host));
      if (old !== undefined) waiting.holdOld(key, old);
      if (first === true) waiting.holdFirst(key);
    },
    failure: (key) => waiting.failure(key),
    stopped: () => dispatcher.stopped,
  };
  if (o.signal?.aborted) dispatcher.stop('aborted');
  else o.signal?.addEventListener('abort', () => dispatcher.stop('aborted'), { once: true });

  const plan = async (chunk: InputRecord[]): Promise<void> => {
    await planner.plan(chunk, target);
    dispatcher.pump();
    dispatcher.report();
    // Rows settled here (invalid, cached) are ready to go out: wake the consumer, or a run answered wholly
    // from the cache would fill the buffer, pause reading, and wait forever with the consumer asleep.
    buffer.notify();
  };

  async function* batches(): AsyncGenerator<EnrichedRow<K>[], void, undefined> {
    const reader = intake({ records, plan, buffer, dispatcher, input })
      .catch((err: unknown) => dispatcher.stop('error', err))
      .finally(() => {
        // Frees the seen-set's SQLite part, if it grew one; its memory part serves answers still in flight.
        seen.close();
        dispatcher.pump();
        // The input's end makes the need whole: progress reads it now, not at the next answer.
        stats.inputDone = true;
        buffer.notify();
      });
    try {
      for (;;) {
        const ready = buffer.take();
        if (ready.length > 0) {
          buffer.notify(); // reading may wait for room
          const taken = dispatcher.taking();
          yield ready;
          taken(); // the consumer came back for more: the run may buy further ahead (slow start)
          continue;
        }
        if (dispatcher.fatal !== null && dispatcher.inflight === 0) throw dispatcher.fatal;
        if (input.done && buffer.empty && dispatcher.inflight === 0) break;
        await buffer.changed();
      }
      await reader;
      if (dispatcher.fatal !== null) throw dispatcher.fatal;
    } finally {
      // The consumer left early (stdout closed, break): send nothing more, let paid answers land in the cache.
      if (!input.done || dispatcher.inflight > 0) dispatcher.stop('closed');
      while (dispatcher.inflight > 0) await buffer.changed();
      dispatcher.finish();
      await dispatcher.leave();
    }
  }

  async function* rows(): AsyncGenerator<EnrichedRow<K>, void, undefined> {
    for await (const batch of batches()) yield* batch;
  }

  return { rows, batches, stats };
}
