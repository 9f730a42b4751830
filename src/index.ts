// The library's public face. Importing it has no side effects: nothing is read, opened or printed until a
// function is called.
export { DomainIntelClient, type ClientOptions, type CallOptions } from './api/client.js';
export * from './api/errors.js';
export { isPlausibleHostname } from './api/hostname.js';
export { backoffDelay, isRetryable, withRetry, type WithRetryOptions } from './api/retry.js';
export * from './api/types.js';
export { normaliseHost } from './domain/normalise.js';
export { enrich, type AnswerStore, type EnrichOptions, type EnrichRun, type GivenRate } from './run/enrich.js';
export { runJob, type JobInput, type JobOutput, type JobResult } from './run/job.js';
export { openInput } from './input/read.js';
export { columnsFor, createRowWriter, flatten, neutraliseCell, openOutput } from './output/write.js';
export { RateLimiter, type LimiterOptions } from './run/limit/limiter.js';
export { pacedLimiter, type PacingOptions } from './run/limit/policy.js';
export type { AccountState, HistoryReads, LearnedRate, SlotStore, Store, StoredAnswer, StoreMaintenance } from './store/contract.js';
export { memoryStore, type MemoryStore } from './store/memory.js';
export { memorySlots } from './store/memory-slots.js';
export { openAccount, openCache, openStore, type OpenAccountOptions, type OpenStoreOptions } from './store/open.js';
export { isComplete, type RunEvent, type RunStats } from './run/stats.js';
export type { OutputTarget } from './output/target.js';
export type { EnrichedRow, InputRecord, InputShape, RowStatus, RunKind } from './domain/types.js';
export { renderReport, type ReportOptions } from './summary/html/report.js';
export { openEnriched, type SummaryInput, type SummarySource } from './summary/read.js';
export { summarize, type SummarizeOptions } from './summary/summarize.js';
export type { Count, Summary } from './summary/types.js';
export { VERSION } from './version.js';
