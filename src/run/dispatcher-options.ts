// What a Dispatcher (dispatcher.ts) is given: the run's parts it drives and the limits it keeps.
import type { DomainIntelClient } from '../api/client.js';
import type { RetryLimits } from '../api/retry.js';
import type { QuotaInfo } from '../api/types.js';
import type { AnswerStore } from '../store/contract.js';
import type { InputState } from './input-state.js';
import type { KindSpec } from '../domain/kinds.js';
import type { OrderedBuffer } from './ordered-buffer.js';
import type { RateLimiter } from './limit/limiter.js';
import type { RunEvent, RunStats } from './stats.js';
import type { RunKind } from '../domain/types.js';
import type { Waiting } from './waiting-rows.js';

export interface DispatcherOptions<K extends RunKind> {
  spec: KindSpec;
  client: DomainIntelClient;
  store: AnswerStore;
  /** The limiter, or the promise of one (the run's policy reads the account's learned rate first). */
  limiter: RateLimiter | Promise<RateLimiter>;
  buffer: OrderedBuffer<K>;
  waiting: Waiting<K>;
  stats: RunStats;
  input: InputState;
  /** Requests in flight at once. */
  concurrency: number;
  /** Hard budget of lookups, or null. */
  maxLookups: number | null;
  limits: RetryLimits;
  random?: (() => number) | undefined;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  clock: () => number;
  onProgress?: ((stats: Readonly<RunStats>) => void) | undefined;
  onEvent?: ((event: RunEvent) => void) | undefined;
  /** Oldest cached answer the run accepts (the planner's rule); default: any age. */
  maxAgeMs?: (() => number) | undefined;
  /** Asked once, with the first quota an answer reports; false stops the run ('short'). See EnrichOptions. */
  quotaGate?: ((quota: QuotaInfo) => Promise<boolean>) | undefined;
}
