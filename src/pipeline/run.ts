// The enrichment run: records in, enriched rows out in input order, every lookup needed and none twice.
// read -> normalise -> plan (dedupe, cache) -> batch -> schedule -> client -> cache -> rows (ARCHITECTURE.md).
// Memory stays flat: at most `maxBuffered` rows wait for answers, dedupe is a bounded table of fingerprints
// (seen.ts, SQLite past that), and answers go to the cache, which later duplicates read back.
import type { DomainIntelClient } from '../api/client.js';
import { AbortedError, DomainIntelError, InvalidKeyError, NotFoundError, QuotaExhaustedError, RateLimitedError } from '../api/errors.js';
import { backoffDelay, isRetryable } from '../api/retry.js';
import { MAX_BATCH, type QuotaInfo } from '../api/types.js';
import { apexOf } from './apex.js';
import { normaliseHost } from './normalise.js';
import { RateLimiter, sleep as defaultSleep, type Ticket } from './schedule.js';
import { openSeenSet, type SeenSet } from './seen.js';
import { emptyStats, type RunEvent, type RunStats } from './stats.js';
import type { EnrichedRow, InputRecord, ResultByKind, RowStatus, RunKind } from './types.js';

/** The part of the answer cache a run needs (store/cache.ts implements it). */
export interface AnswerStore {
  getMany(endpoint: string, hosts: string[], maxAgeMs: number): Map<string, { status: 'found' | 'missing'; body: unknown; fetchedAt: number }>;
  putMany(entries: { endpoint: string; host: string; status: 'found' | 'missing'; body: unknown }[]): void;
  /**
   * False when the store holds no answer at all for `endpoint`. Optional: a store without it is always asked.
   * A run that starts on a store with nothing for its endpoint asks it only about hosts met before in the run.
   */
  holdsAny?(endpoint: string): boolean;
}

/**
 * Input rows: records as read from a file, or plain host strings (numbered from line 1), one at a time or in
 * arrays (as openInput's `chunks` gives them).
 */
export type RecordSource = AsyncIterable<InputRecord | string | InputRecord[]> | Iterable<InputRecord | string | InputRecord[]>;

/** An AnswerStore in memory, for library callers who bring none: grows with the distinct hosts of a run. */
export function memoryStore(): AnswerStore {
  const map = new Map<string, { status: 'found' | 'missing'; body: unknown; fetchedAt: number }>();
  return {
    getMany(endpoint, hosts, maxAgeMs) {
      const out = new Map<string, { status: 'found' | 'missing'; body: unknown; fetchedAt: number }>();
      const oldest = Date.now() - maxAgeMs;
      for (const host of hosts) {
        const hit = map.get(`${endpoint} ${host}`);
        if (hit && hit.fetchedAt >= oldest) out.set(host, hit);
      }
      return out;
    },
    putMany(entries) {
      const now = Date.now();
      for (const e of entries) map.set(`${e.endpoint} ${e.host}`, { status: e.status, body: e.body, fetchedAt: now });
    },
    holdsAny(endpoint) {
      for (const key of map.keys()) if (key.startsWith(`${endpoint} `)) return true;
      return false;
    },
  };
}

export interface EnrichOptions<K extends RunKind> {
  kind: K;
  client: DomainIntelClient;
  /** Where answers are kept (default: in memory for this run; pass openCache() to keep them across runs). */
  store?: AnswerStore;
  /** Paces requests (default: no known limit, learned from the first 429). */
  limiter?: RateLimiter;
  /** Oldest cached answer still used (default 30 days). */
  maxAgeMs?: number;
  /** Fetch again what the cache holds (answers fetched during this run are still reused). */
  refresh?: boolean;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
  /** Attempts after the first for retryable failures (default 4). */
  retries?: number;
  /** Hard budget: never spend more lookups than this. */
  maxLookups?: number | null;
  /** Read and plan everything, send nothing, yield no rows; see `stats`. */
  dryRun?: boolean;
  signal?: AbortSignal;
  /** Rows held while waiting for answers before reading pauses (default 10,000). */
  maxBuffered?: number;
  clock?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onProgress?: (stats: Readonly<RunStats>) => void;
  onEvent?: (event: RunEvent) => void;
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

const ENDPOINT: Record<RunKind, string> = { profile: 'domain', traffic: 'traffic', employees: 'employees' };
const DAY = 86_400_000;
const MAX_RATE_LIMIT_WAITS = 50;
/** How long input must be quiet before a partial chunk is planned, or a partial batch sent. */
const INPUT_QUIET_MS = 200;

interface Slot<K extends RunKind> {
  row: EnrichedRow<K>;
  done: boolean;
}

/** Starts an enrichment of `records`; nothing is read until `rows()` is iterated. */
export function enrich<K extends RunKind>(records: RecordSource, options: EnrichOptions<K>): EnrichRun<K> {
  const run = new Run(records, options);
  return { rows: () => run.rows(), batches: () => run.batches(), stats: run.stats };
}

class Run<K extends RunKind> {
  readonly stats: RunStats;
  readonly #o: EnrichOptions<K>;
  readonly #records: RecordSource;
  readonly #store: AnswerStore;
  readonly #limiter: RateLimiter;
  readonly #clock: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #endpoint: string;
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #maxBuffered: number;
  readonly #stop = new AbortController();
  #fifo: Slot<K>[] = [];
  #head = 0;
  #waiting = new Map<string, Slot<K>[]>();
  #sendHost = new Map<string, string>();
  #errored = new Map<string, string>();
  #queue: string[] = [];
  #inflight = 0;
  #reserved = 0;
  #inputDone = false;
  #flushPartial = false;
  #flushTimer: NodeJS.Timeout | undefined;
  /** When the last record was read (performance.now(): real time, as the quiet timers'). */
  #lastInputAt = 0;
  #pausedForBuffer = false;
  /** The store held nothing for this endpoint when reading began (see #plan). */
  #storeWasEmpty = false;
  /**
   * Keys met in this run, and which of them the service does not hold. Closed when reading ends (that frees
   * its SQLite part, if it grew one); its memory part, all markMissing touches, serves answers still in flight.
   */
  readonly #seen: SeenSet = openSeenSet();
  #fatal: unknown = null;
  #stopReason: string | null = null;
  #wake: (() => void) | null = null;
  #changed: Promise<void> | null = null;

  constructor(records: RecordSource, o: EnrichOptions<K>) {
    this.#records = records;
    this.#store = o.store ?? memoryStore();
    this.#limiter = o.limiter ?? new RateLimiter({ limit: null, windowMs: 60_000 });
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
    this.#sleep = o.sleep ?? defaultSleep;
    this.#endpoint = ENDPOINT[o.kind];
    this.#batchSize = o.kind === 'profile' ? MAX_BATCH : 1;
    this.#concurrency = Math.max(1, o.concurrency ?? 8);
    this.#maxBuffered = Math.max(this.#batchSize * this.#concurrency * 2, o.maxBuffered ?? 10_000);
    this.stats = emptyStats(this.#clock());
    if (o.signal) {
      if (o.signal.aborted) this.#halt('interrupted', 'aborted');
      else o.signal.addEventListener('abort', () => this.#halt('interrupted', 'aborted'), { once: true });
    }
  }

  async *rows(): AsyncGenerator<EnrichedRow<K>, void, undefined> {
    for await (const batch of this.batches()) yield* batch;
  }

  async *batches(): AsyncGenerator<EnrichedRow<K>[], void, undefined> {
    const reader = this.#read().catch((err: unknown) => {
      this.#fatal ??= err;
      this.#halt('stopped by an error', 'error');
    });
    try {
      for (;;) {
        const ready: EnrichedRow<K>[] = [];
        while (this.#head < this.#fifo.length && this.#fifo[this.#head]?.done) {
          ready.push((this.#fifo[this.#head++] as Slot<K>).row);
        }
        if (ready.length > 0) {
          if (this.#head > 4096 && this.#head * 2 > this.#fifo.length) {
            this.#fifo = this.#fifo.slice(this.#head);
            this.#head = 0;
          }
          this.#notify();
          yield ready;
          continue;
        }
        if (this.#fatal !== null && this.#inflight === 0) throw this.#fatal;
        if (this.#inputDone && this.#head >= this.#fifo.length && this.#inflight === 0) break;
        await this.#changedPromise();
      }
      await reader;
      if (this.#fatal !== null) throw this.#fatal;
    } finally {
      // The consumer left early (stdout closed, break): send nothing more, let paid answers land in the cache.
      if (!this.#inputDone || this.#inflight > 0) this.#halt('the output was closed', this.stats.stoppedBy ?? 'closed');
      while (this.#inflight > 0) await this.#changedPromise();
      clearTimeout(this.#flushTimer);
      this.stats.elapsedMs = this.#clock() - this.stats.startedAt;
    }
  }

  // ---- reading and planning -------------------------------------------------------------------------------

  async #read(): Promise<void> {
    try {
      this.#storeWasEmpty = this.#store.holdsAny?.(this.#endpoint) === false;
      let chunk: InputRecord[] = [];
      let line = 0;
      // Rows are planned 256 at a time; when input pauses with some read (a slow pipe, `tail -f`), those are
      // planned once it has been quiet for INPUT_QUIET_MS rather than held until more arrive. One timer
      // checks for that, not one per record.
      const quietCheck = setInterval(() => {
        if (chunk.length === 0 || performance.now() - this.#lastInputAt < INPUT_QUIET_MS || this.#stop.signal.aborted) return;
        const quiet = chunk;
        chunk = [];
        try {
          this.#plan(quiet);
        } catch (err) {
          this.#fatal ??= err;
          this.#halt('stopped by an error', 'error');
        }
      }, INPUT_QUIET_MS).unref();
      try {
        for await (const item of this.#records) {
          if (this.#stop.signal.aborted) break;
          this.#lastInputAt = performance.now();
          if (Array.isArray(item)) {
            line += item.length;
            for (const record of item) chunk.push(record);
          } else {
            line++;
            chunk.push(typeof item === 'string' ? { line, cells: [item], value: item } : item);
          }
          while (chunk.length >= 256) {
            this.#plan(chunk.splice(0, 256));
            await this.#backPressure();
            if (this.#stop.signal.aborted) break;
          }
        }
      } finally {
        clearInterval(quietCheck);
      }
      if (chunk.length > 0 && !this.#stop.signal.aborted) this.#plan(chunk);
    } finally {
      this.#seen.close();
      this.#inputDone = true;
      this.#pump();
      this.#notify();
    }
  }

  #plan(chunk: InputRecord[]): void {
    const { stats } = this;
    const seen = this.#seen;
    const planned = chunk.map((record) => {
      const n = normaliseHost(record.value);
      const key = n.ok ? (this.#o.kind === 'employees' ? apexOf(n.host) : n.host) : null;
      return { record, n, key };
    });
    const keys = planned.flatMap((p) => (p.key === null ? [] : [p.key]));
    const fresh = seen.add(keys);
    // A repeat of a host this run already knows the service does not hold is answered from that: a missing
    // answer has no body, so one bit in the seen-set replaces a read of the cache.
    const knownMissing = fresh.map((f, j) => !f && seen.isMissing(keys[j] as string));
    const maxAge = this.#o.refresh ? this.#clock() - stats.startedAt : (this.#o.maxAgeMs ?? 30 * DAY);
    // A host met for the first time in this run cannot be in a store that was empty when the run began (its
    // answers since then are all about hosts met before), so only repeats are looked for there: half the
    // reads of a fresh 1,000,000-row run. A second process filling the same cache meanwhile is not seen; at
    // worst such a host is bought again, as it would be had both runs started at the same moment.
    const lookup = keys.filter(
      (k, i) => !knownMissing[i] && !this.#waiting.has(k) && !this.#errored.has(k) && (fresh[i] ? !this.#storeWasEmpty : !this.#o.dryRun),
    );
    const cached = lookup.length > 0 ? this.#store.getMany(this.#endpoint, [...new Set(lookup)], maxAge) : new Map();
    let i = 0;
    for (const { record, n, key } of planned) {
      stats.rows++;
      if (!n.ok || key === null) {
        stats.invalid++;
        this.#push(record, 'invalid', null, n.ok ? 'no registrable domain' : n.reason, null, false);
        continue;
      }
      stats.valid++;
      const j = i++;
      const isNew = fresh[j] === true;
      if (!isNew) stats.duplicates++;
      const host = n.host;
      const waiting = this.#waiting.get(key);
      if (waiting) {
        waiting.push(this.#push(record, 'found', host, null, null, false, true));
        continue;
      }
      const failed = this.#errored.get(key);
      if (failed !== undefined) {
        this.#push(record, 'error', host, failed, null, false);
        continue;
      }
      if (knownMissing[j]) {
        this.#push(record, 'missing', host, null, null, true);
        continue;
      }
      const hit = cached.get(key);
      if (hit) {
        if (isNew) stats.cacheHits++;
        if (hit.status === 'missing') seen.markMissing(key);
        this.#push(record, hit.status, host, null, hit.status === 'found' ? this.#fanOut(hit.body, host) : null, true);
        continue;
      }
      if (this.#o.dryRun) {
        if (isNew) stats.lookupsNeeded++;
        continue;
      }
      if (this.#stopReason !== null) {
        this.#push(record, 'error', host, this.#stopReason, null, false);
        continue;
      }
      stats.lookupsNeeded++;
      this.#waiting.set(key, [this.#push(record, 'found', host, null, null, false, true)]);
      if (this.#o.kind === 'employees') this.#sendHost.set(key, host);
      this.#queue.push(key);
    }
    stats.requestsNeeded = this.#o.kind === 'profile' ? Math.ceil(stats.lookupsNeeded / MAX_BATCH) : stats.lookupsNeeded;
    this.#pump();
    this.#progress();
    // Rows settled here (invalid, cached) are ready to go out: wake the consumer, or a run answered wholly
    // from the cache would fill the buffer, pause reading, and wait forever with the consumer asleep.
    this.#notify();
  }

  #push(record: InputRecord, status: RowStatus, host: string | null, reason: string | null, data: unknown, cached: boolean, pending = false): Slot<K> {
    const slot: Slot<K> = {
      row: {
        kind: this.#o.kind,
        line: record.line,
        cells: record.cells,
        value: record.value,
        status,
        host,
        reason,
        data: data as ResultByKind[K] | null,
        cached,
      },
      done: !pending,
    };
    if (status === 'found' && !pending) this.stats.found++;
    else if (status === 'missing') this.stats.missing++;
    else if (status === 'error') this.stats.errors++;
    if (!this.#o.dryRun) this.#fifo.push(slot);
    return slot;
  }

  /** Employee answers are per apex; each row gets the figure with its own host in `host`. */
  #fanOut(body: unknown, host: string): unknown {
    if (this.#o.kind !== 'employees' || body === null || typeof body !== 'object') return body;
    return { ...(body as object), host };
  }

  async #backPressure(): Promise<void> {
    try {
      this.#pausedForBuffer = true;
      await this.#drainBuffer();
    } finally {
      this.#pausedForBuffer = false;
    }
  }

  async #drainBuffer(): Promise<void> {
    while (this.#fifo.length - this.#head > this.#maxBuffered && !this.#stop.signal.aborted) {
      // Reading is paused. While requests are in flight or the consumer has rows to take, their progress
      // wakes us and the queue may still fill to a whole batch. Only when nothing is in flight and the oldest
      // row waits for an answer would nothing ever free the buffer: then a partial batch must go. (Flushing
      // on every pause sent 1.56x the requests needed; on every pause with nothing in flight, 1.1x.)
      if (this.#inflight === 0 && this.#fifo[this.#head]?.done !== true) this.#pumpPartial();
      await this.#changedPromise();
    }
  }

  // ---- dispatching ------------------------------------------------------------------------------------------

  #pump(): void {
    while (this.#inflight < this.#concurrency && this.#queue.length > 0) {
      if (this.#stopReason !== null) return this.#failQueued(this.#stopReason);
      if (this.#queue.length < this.#batchSize && !this.#inputDone && !this.#flushPartial) {
        // Wait for a full batch while input keeps coming; once input has been quiet for a moment (a slow
        // trickle from an interactive pipe), what is queued goes as it is. A pause for back-pressure is not
        // quiet input: #backPressure decides then. (Flushing on queue age alone sent ~18% extra requests.)
        this.#flushTimer ??= setTimeout(() => this.#quietInput(), INPUT_QUIET_MS);
        return;
      }
      let size = Math.min(this.#batchSize, this.#queue.length);
      const budget = this.#o.maxLookups ?? null;
      if (budget !== null) {
        const left = budget - this.stats.lookupsSpent - this.#reserved;
        if (left <= 0) {
          if (this.#reserved > 0) return; // what is in flight may come back unspent
          this.#halt(`not looked up: --max-lookups ${budget} reached`, 'budget');
          return this.#failQueued(this.#stopReason ?? '');
        }
        size = Math.min(size, left);
      }
      const remaining = this.stats.quota?.remaining ?? null;
      if (remaining !== null) {
        const left = remaining - this.#reserved;
        if (left <= 0) {
          if (this.#reserved > 0) return;
          this.#halt("not looked up: the month's lookups are spent (402)", 'quota');
          return this.#failQueued(this.#stopReason ?? '');
        }
        size = Math.min(size, left);
      }
      const keys = this.#queue.splice(0, size);
      this.#inflight++;
      this.#reserved += keys.length;
      void this.#execute(keys).finally(() => {
        this.#inflight--;
        this.#reserved -= keys.length;
        this.#pump();
        this.#notify();
      });
    }
  }

  #quietInput(): void {
    this.#flushTimer = undefined;
    if (this.#inputDone || this.#queue.length === 0 || this.#pausedForBuffer) return;
    const quietFor = performance.now() - this.#lastInputAt;
    if (quietFor < INPUT_QUIET_MS) {
      this.#flushTimer = setTimeout(() => this.#quietInput(), INPUT_QUIET_MS - quietFor);
      return;
    }
    this.#pumpPartial();
  }

  /** Dispatches what is queued even if it falls short of a whole batch. */
  #pumpPartial(): void {
    this.#flushPartial = true;
    this.#pump();
    this.#flushPartial = false;
  }

  async #execute(keys: string[]): Promise<void> {
    const { stats } = this;
    let attempt = 0;
    let waits = 0;
    for (;;) {
      if (this.#stop.signal.aborted) return this.#resolve(keys, 'error', null, this.#stopReason ?? 'interrupted');
      let ticket: Ticket;
      try {
        ticket = await this.#limiter.acquire(this.#stop.signal);
      } catch {
        return this.#resolve(keys, 'error', null, this.#stopReason ?? 'interrupted');
      }
      stats.requests++;
      try {
        await this.#call(keys);
        this.#limiter.settle(ticket, true);
        return;
      } catch (err) {
        this.#limiter.settle(ticket, !(err instanceof RateLimitedError));
        if (err instanceof RateLimitedError) {
          stats.rateLimited++;
          this.#limiter.rateLimit(err.resumeAt);
          this.#o.onEvent?.({ type: 'rate-limited', resumeAt: err.resumeAt });
          if (++waits <= MAX_RATE_LIMIT_WAITS) continue;
          return this.#resolve(keys, 'error', null, `still rate limited after ${MAX_RATE_LIMIT_WAITS} waits`);
        }
        if (err instanceof NotFoundError && this.#o.kind !== 'profile') {
          stats.lookupsSpent++; // a 404 on a costed lookup still spends (§8.6)
          this.#remember(keys, 'missing', null);
          return this.#resolve(keys, 'missing', null, null);
        }
        if (err instanceof QuotaExhaustedError) {
          if (err.quota) stats.quota = err.quota;
          const left = err.quota?.remaining ?? 0;
          if (left > 0 && left < keys.length) {
            // The batch cost more than what was left: send again what fits (the rest waits in the queue).
            this.#queue.unshift(...keys);
            return;
          }
          this.#halt("not looked up: the month's lookups are spent (402)", 'quota');
          this.#o.onEvent?.({ type: 'quota-exhausted' });
          return this.#resolve(keys, 'error', null, this.#stopReason);
        }
        if (err instanceof InvalidKeyError) {
          this.#fatal ??= err;
          this.#halt('not looked up: the API key was refused (401)', 'key');
          return this.#resolve(keys, 'error', null, this.#stopReason);
        }
        if (err instanceof AbortedError) return this.#resolve(keys, 'error', null, this.#stopReason ?? 'interrupted');
        if (isRetryable(err) && attempt < (this.#o.retries ?? 4)) {
          const delay = backoffDelay(attempt++, this.#o.random ? { random: this.#o.random } : {});
          stats.retries++;
          this.#o.onEvent?.({ type: 'retry', keys: keys.length, attempt, delayMs: delay, error: (err as Error).message });
          await this.#sleep(delay, this.#stop.signal);
          continue;
        }
        const reason = `${(err as Error).message}${attempt > 0 ? ` (after ${attempt} retries)` : ''}`;
        for (const k of keys) this.#errored.set(k, reason);
        return this.#resolve(keys, 'error', null, reason);
      }
    }
  }

  async #call(keys: string[]): Promise<void> {
    try {
      await (this.#o.kind === 'profile' ? this.#callBatch(keys) : this.#callOne(keys[0] as string));
    } catch (err) {
      if (err instanceof DomainIntelError) this.#noteQuota(err.quota);
      throw err;
    }
  }

  #noteQuota(q: QuotaInfo | null): void {
    if (q && (this.stats.quota === null || q.seenAt >= this.stats.quota.seenAt)) this.stats.quota = q;
  }

  // In-flight requests are not given the stop signal: once sent, a lookup may be paid for, so its answer is
  // let land in the cache even when the run is interrupted (the client's own timeout still bounds it).
  async #callBatch(keys: string[]): Promise<void> {
    const r = await this.#o.client.batch(keys);
    this.#noteQuota(r.quota);
    this.stats.lookupsSpent += keys.length; // one per distinct host, found or not (§8.6)
    const found = new Map(r.data.data.map((p) => [p.domain, p]));
    const missing = new Set(r.data.missing);
    const entries = [];
    for (const k of keys) {
      const p = found.get(k);
      if (p) entries.push({ endpoint: this.#endpoint, host: k, status: 'found' as const, body: p });
      else if (missing.has(k)) entries.push({ endpoint: this.#endpoint, host: k, status: 'missing' as const, body: null });
    }
    this.#store.putMany(entries);
    for (const k of keys) {
      const p = found.get(k);
      if (p) this.#resolve([k], 'found', p, null);
      else if (missing.has(k)) this.#resolve([k], 'missing', null, null);
      else {
        // Neither in data nor in missing: we cannot tell what the service holds, so it is not cached.
        const reason = "the service's batch answer left this host out";
        this.#errored.set(k, reason);
        this.#resolve([k], 'error', null, reason);
      }
    }
  }

  async #callOne(key: string): Promise<void> {
    const { client } = this.#o;
    const r = this.#o.kind === 'traffic' ? await client.traffic(key) : await client.employees(this.#sendHost.get(key) ?? key);
    this.#noteQuota(r.quota);
    this.stats.lookupsSpent++;
    this.#remember([key], 'found', r.data);
    this.#resolve([key], 'found', r.data, null);
  }

  #remember(keys: string[], status: 'found' | 'missing', body: unknown): void {
    this.#store.putMany(keys.map((host) => ({ endpoint: this.#endpoint, host, status, body })));
  }

  /** Settles every row waiting on these keys; a 'missing' answer is noted in the seen-set for repeats. */
  #resolve(keys: string[], status: RowStatus, data: unknown, reason: string | null): void {
    for (const key of keys) {
      if (status === 'missing') this.#seen.markMissing(key);
      const slots = this.#waiting.get(key);
      this.#waiting.delete(key);
      this.#sendHost.delete(key);
      for (const slot of slots ?? []) {
        slot.row.status = status;
        slot.row.reason = reason;
        slot.row.data = (status === 'found' && slot.row.host !== null ? this.#fanOut(data, slot.row.host) : null) as ResultByKind[K] | null;
        slot.done = true;
        if (status === 'found') this.stats.found++;
        else if (status === 'missing') this.stats.missing++;
        else if (status === 'error') this.stats.errors++;
      }
    }
    this.#progress();
    this.#notify();
  }

  #failQueued(reason: string): void {
    const keys = this.#queue.splice(0);
    if (keys.length > 0) this.#resolve(keys, 'error', null, reason);
  }

  #halt(reason: string, why: NonNullable<RunStats['stoppedBy']>): void {
    if (this.#stopReason !== null) return;
    this.#stopReason = reason;
    this.stats.stoppedBy = why;
    if (why === 'aborted' || why === 'closed' || why === 'key' || why === 'error') this.#stop.abort();
    this.#failQueued(reason);
    this.#notify();
  }

  // ---- plumbing ---------------------------------------------------------------------------------------------

  #progress(): void {
    this.stats.inFlight = this.#inflight;
    this.stats.elapsedMs = this.#clock() - this.stats.startedAt;
    this.#o.onProgress?.(this.stats);
  }

  #changedPromise(): Promise<void> {
    this.#changed ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#changed;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    this.#changed = null;
    wake?.();
  }
}
