// Dispatch: keys planned for lookup go out in batches of at most spec.batchSize, within the budget
// (--max-lookups, the quota's remaining lookups), paced by the limiter, under the one retry policy
// (api/retry.ts). It keeps the ledger: every answer the service charged for is stored before any row shows
// it, and what was spent is what was stored. It also owns why a run stopped: `stop` is the one place that sets it.
import { AbortedError, DomainIntelError, InvalidKeyError, QuotaExhaustedError } from '../api/errors.js';
import { decide, firstAttempt, isRateLimit, isUnreachable, mayHaveBeenCharged, type RetryState } from '../api/retry.js';
import type { Answer } from '../domain/kinds.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import { QuotaGate } from './quota-gate.js';
import { Ledger } from './ledger.js';
import type { Slot } from './ordered-buffer.js';
import { QuietInput } from './input-state.js';
import { Later } from './bought-elsewhere.js';
import { SlowStart } from './slow-start.js';
import type { Ticket } from './limit/limiter.js';
import { type StopReason, stopText, UNANSWERED } from './stats.js';
import type { RowStatus, RunKind } from '../domain/types.js';

export type { DispatcherOptions } from './dispatcher-options.js';

/** Stops that also cancel what waits to be sent (retries, rate-limit pauses); the others let it finish. */
const CANCELS: ReadonlySet<StopReason> = new Set(['aborted', 'closed', 'key', 'error']);

/** Sends the lookups a run needs and settles the rows waiting on them. */
export class Dispatcher<K extends RunKind> {
  readonly #o: DispatcherOptions<K>;
  readonly #stop = new AbortController();
  /** Keys to send, in planning order. */
  #queue: string[] = [];
  /** Keys another process is buying now: queued again in a moment, to be found in the cache then. */
  readonly #later = new Later((keys) => {
    this.#queue.push(...keys);
    this.sendPartial();
  });
  #inflight = 0;
  /** Lookups in flight: they may come back unspent, so the budget holds them apart. */
  #reserved = 0;
  #flushPartial = false;
  readonly #quiet: QuietInput;
  #stopText: string | null = null;
  #fatal: unknown = null;
  readonly #ledger: Ledger<K>;
  readonly #gate: QuotaGate;
  readonly #pace: SlowStart;
  readonly #halt = (reason: StopReason, cause?: unknown): void => this.stop(reason, cause);

  constructor(o: DispatcherOptions<K>) {
    this.#o = o;
    this.#ledger = new Ledger(o);
    this.#gate = new QuotaGate(o.quotaGate);
    this.#pace = new SlowStart(o.spec.batchSize, o.concurrency);
    this.#quiet = new QuietInput(o.input, () => this.#queue.length > 0 && this.sendPartial());
  }

  /** Requests in flight. */
  get inflight(): number {
    return this.#inflight;
  }

  /** The error the run ends with (a refused key, a failure reading), or null. */
  get fatal(): unknown {
    return this.#fatal;
  }

  /** True once a stop cancelled what waits to be sent: reading and planning stop too. */
  get cancelled(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Why nothing more is sent, as rows say it; null while the run goes on. */
  get stopped(): string | null {
    return this.#stopText;
  }

  /** Adds a row to those waiting on `key`, queueing the key if it is new. */
  enqueue(key: string, slot: Slot<K>): void {
    if (this.#o.waiting.add(key, slot)) this.#queue.push(key);
  }

  /** Rows go to the consumer now; call what this returns when it comes back for more (slow-start.ts). */
  taking(): () => void {
    return this.#pace.taking(() => this.pump());
  }

  /** Stops sending, for `reason` (the first reason stands); `cause` is the error the run then ends with. */
  stop(reason: StopReason, cause?: unknown): void {
    if (cause !== undefined) this.#fatal ??= cause;
    if (this.#stopText !== null) return;
    this.#stopText = stopText(reason, this.#o.maxLookups);
    this.#o.stats.stoppedBy = reason;
    if (CANCELS.has(reason)) this.#stop.abort();
    if (reason === 'quota') this.#o.onEvent?.({ type: 'quota-exhausted' });
    this.#failQueued();
    this.#o.buffer.notify();
  }

  /** Sends what the queue, the budget and the concurrency allow. */
  pump(): void {
    const { stats } = this.#o;
    const most = this.#gate.most(this.#o.concurrency);
    while (this.#inflight < most && this.#queue.length > 0) {
      if (this.#stopText !== null) return this.#failQueued();
      const { batchSize } = this.#o.spec;
      if (this.#queue.length < batchSize && !this.#o.input.done && !this.#flushPartial) {
        // Wait for a full batch while input keeps coming, or until it is quiet (input-state.ts). (Flushing on
        // queue age alone sent ~18% extra requests.)
        return this.#quiet.arm();
      }
      const budget = this.#o.maxLookups;
      const size = Math.min(
        this.#gate.keys(batchSize), // while the quota is unknown the first request asks about one host only
        this.#queue.length,
        this.#room(budget === null ? null : budget - stats.lookupsSpent, 'budget'),
        this.#room(stats.quota?.remaining ?? null, 'quota'),
      );
      if (size <= 0) return; // stopped, or what is in flight may come back unspent
      if (!this.#pace.allows(size, this.#reserved, this.#inflight === 0 && !this.#o.buffer.ready)) return;
      const keys = this.#queue.splice(0, size);
      this.#inflight++;
      this.#reserved += keys.length;
      void this.#send(keys).finally(() => {
        this.#inflight--;
        this.#reserved -= keys.length;
        this.pump();
        this.#o.buffer.notify();
      });
    }
  }

  /** Lookups that may go out under `limit` (null: none); at none with nothing in flight, the run stops. */
  #room(limit: number | null, reason: StopReason): number {
    if (limit === null) return Number.POSITIVE_INFINITY;
    const left = limit - this.#reserved;
    if (left <= 0 && this.#reserved === 0) this.stop(reason);
    return left;
  }

  /** Sends what is queued even if it falls short of a whole batch. */
  sendPartial(): void {
    this.#flushPartial = true;
    this.pump();
    this.#flushPartial = false;
  }

  /** Reports progress: the counters as they stand, with requests in flight and time elapsed. */
  report(): void {
    this.#stamp();
    this.#o.onProgress?.(this.#o.stats);
  }

  /** The run is over: drops the quiet-input timer and brings the clock fields up to date. */
  finish(): void {
    this.#quiet.clear();
    this.#later.take();
    this.#stamp();
  }

  /** After finish: the run leaves the store's presence. */
  readonly leave = (): Promise<void> => this.#ledger.leave();

  #stamp(): void {
    const { stats } = this.#o;
    stats.inFlight = this.#inflight;
    stats.lookupsWaiting = this.#o.waiting.size;
    stats.elapsedMs = this.#o.clock() - stats.startedAt;
  }

  // In-flight requests are not given the stop signal: once sent, a lookup may be paid for, so its answer is
  // let land in the cache even when the run is interrupted (the client's own timeout still bounds it).
  async #send(keys: string[]): Promise<void> {
    const { stats, spec } = this.#o;
    const limiter = await this.#o.limiter;
    const signal = this.#stop.signal;
    // The cap on the request's time starts with its first attempt, not while it waits for the limiter's slot.
    let state: RetryState | null = null;
    for (;;) {
      if (signal.aborted) return this.#settle(keys, 'error', null, this.#stopText ?? 'interrupted');
      let ticket: Ticket;
      try {
        ticket = await limiter.acquire(signal);
      } catch (err) {
        if (!signal.aborted) this.stop('error', err); // the account's shared slots failed: never pace alone
        return this.#settle(keys, 'error', null, this.#stopText ?? 'interrupted');
      }
      // A stop while this waited for its slot (a 402, the gate, the consumer gone) sends nothing new; hosts
      // another process bought since planning are not bought again (checked now, the slot granted).
      if (this.#stopText === null) {
        keys = await this.#ledger.boughtMeanwhile(keys, this.#o.maxAgeMs?.() ?? Number.POSITIVE_INFINITY, this.#later).catch((err: unknown) => {
          this.stop('error', err); // the store cannot be read: buy no more
          return keys;
        });
        // A stop while the store was asked: the keys just claimed are not bought, so their claims end.
        if (this.#stopText !== null) await this.#o.store.release(spec.endpoint, keys).catch(() => undefined);
      }
      if (this.#stopText !== null || keys.length === 0) {
        await limiter.release(ticket).catch((err: unknown) => this.stop('error', err));
        return this.#settle(keys, 'error', null, this.#stopText);
      }
      stats.requests++;
      state ??= firstAttempt(this.#o.clock(), this.#o.limits);
      limiter.sent(ticket);
      let answer: Answer;
      try {
        answer = await spec.call(this.#o.client, keys, (key) => this.#o.waiting.hostOf(key), { patience: state.patience });
      } catch (err) {
        // No usable key: the client refused before sending (only a 401 has a status), so no request went.
        if (err instanceof InvalidKeyError && err.status === undefined) stats.requests--;
        const rateLimited = isRateLimit(err);
        const paused = rateLimited ? limiter.rateLimit(err.resetAnnounced ? err.resumeAt : null, err.resetRounded) : null; // before any slot is taken
        await limiter.settle(ticket, !rateLimited).catch((err: unknown) => this.stop('error', err));
        if (mayHaveBeenCharged(err)) stats.unconfirmed += keys.length;
        if (err instanceof DomainIntelError) {
          this.#ledger.note(err.quota, 0);
          await this.#gate.pass(err.quota, false, this.#halt);
        }
        if (rateLimited) {
          stats.rateLimited++;
          await paused;
          // When the run resumes is the limiter's word (the service's reset, or its own estimate), not the error's fallback.
          this.#o.onEvent?.({ type: 'rate-limited', resumeAt: limiter.pausedUntil });
        }
        const next = decide(err, state, this.#o.limits, this.#o.clock(), this.#o.random);
        if (next.action === 'wait') {
          state.waits++; // the limiter holds every worker until the reset
          continue;
        }
        if (next.action === 'backoff') {
          state.attempt++;
          stats.retries++;
          this.#o.onEvent?.({ type: 'retry', keys: keys.length, attempt: state.attempt, delayMs: next.delayMs, error: (err as Error).message });
          await this.#o.sleep(next.delayMs, signal);
          continue;
        }
        return this.#giveUp(keys, err, next.reason);
      }
      this.#pace.answered(keys.length); // before any of its rows settles: the consumer may take them at once
      await limiter.settle(ticket, true).catch((err: unknown) => this.stop('error', err)); // paid: recorded all the same
      await this.#record(keys, answer);
      return this.#gate.pass(this.#o.stats.quota, true, this.#halt);
    }
  }

  async #giveUp(keys: string[], err: unknown, reason: string): Promise<void> {
    await this.#o.store.release(this.#o.spec.endpoint, keys);
    if (err instanceof QuotaExhaustedError) {
      const left = err.quota?.remaining ?? 0;
      if (left > 0 && left < keys.length && this.#stopText === null) {
        // The batch cost more than what was left and was refused whole: send again what fits (the budget
        // check sizes it from the quota this 402 reported; the rest waits in the queue, then stops on it).
        this.#queue.unshift(...keys);
        return;
      }
      this.stop('quota');
      return this.#settle(keys, 'error', null, this.#stopText);
    }
    if (err instanceof InvalidKeyError) {
      this.stop('key', err);
      return this.#settle(keys, 'error', null, this.#stopText);
    }
    if (err instanceof AbortedError) return this.#settle(keys, 'error', null, this.#stopText ?? 'interrupted');
    // Refused, no such name, a certificate not trusted: every other request would meet the same. Nothing more
    // is sent; as after a 402 the input is still read, so every row is settled (an older answer where the
    // cache has one, else "not looked up"), and these rows carry the error, the run's first cause.
    this.#o.waiting.failedWith(keys, err); // an older answer may stand in for it, if this error allows (run/stale-answers.ts)
    this.#settle(keys, 'error', null, reason, true);
    if (isUnreachable(err)) {
      // The cause the summary names for rows in error, even when only the rows it stops ("not looked up") are.
      this.#o.stats.errorCause ??= reason;
      this.stop('unreachable');
    }
  }

  /** Records an answer (ledger.ts), then settles the rows of keys it left out. */
  async #record(keys: string[], answer: Answer): Promise<void> {
    let left = keys;
    try {
      left = await this.#ledger.record(keys, answer);
    } catch (err) {
      this.stop('error', err); // a paid answer that cannot be stored (the cache gone bad): buy no more
    }
    // A batch served in part with nothing left (one reading of a batch that costs more than is left): the
    // rest are the quota's, and the run stops on it as on a 402.
    if (left.length > 0 && this.#o.stats.quota?.remaining === 0) this.stop('quota');
    this.#settle(left, 'error', null, this.#stopText ?? UNANSWERED, true);
  }

  /** Settles the rows waiting on `keys`; `remember` a failure so later rows with these keys share it. */
  #settle(keys: string[], status: RowStatus, data: unknown, reason: string | null, remember = false): void {
    for (const key of keys) this.#o.waiting.settle(key, status, data, reason, remember);
    this.report();
    this.#o.buffer.notify();
  }

  #failQueued(): void {
    const keys = this.#queue.splice(0).concat(this.#later.take());
    if (keys.length > 0) this.#settle(keys, 'error', null, this.#stopText);
  }
}
