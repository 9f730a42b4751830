// Shared set-up for pipeline tests: a real sandbox on port 0, a real client, a real cache in a temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainIntelClient } from '../../src/api/client.js';
import { RETRY_DEFAULTS } from '../../src/api/retry.js';
import { Dispatcher, type DispatcherOptions } from '../../src/run/dispatcher.js';
import type { InputState } from '../../src/run/input-state.js';
import { KINDS } from '../../src/domain/kinds.js';
import { OrderedBuffer } from '../../src/run/ordered-buffer.js';
import { enrich, type EnrichOptions } from '../../src/run/enrich.js';
import { RateLimiter } from '../../src/run/limit/limiter.js';
import { openSeenSet } from '../../src/run/seen-keys.js';
import { emptyStats, type RunEvent } from '../../src/run/stats.js';
import type { EnrichedRow, InputRecord, RunKind } from '../../src/domain/types.js';
import { Waiting } from '../../src/run/waiting-rows.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { openCache, type AnswerCache } from '../../src/store/sqlite/cache.js';
import { busyWhileCalling, type Time } from './virtual-time.js';

export interface Harness {
  sb: Sandbox;
  client: DomainIntelClient;
  cache: AnswerCache;
  dir: string;
  run<K extends RunKind>(
    kind: K,
    values: string[],
    opts?: Partial<EnrichOptions<K>> & { limit?: number | null; windowMs?: number },
  ): Promise<{ rows: EnrichedRow<K>[]; stats: ReturnType<typeof enrich>['stats'] }>;
  close(): Promise<void>;
}

/** Records as a newline list would give them. */
function records(values: string[]): InputRecord[] {
  return values.map((value, i) => ({ line: i + 1, cells: [value], value }));
}

/**
 * Starts a sandbox and everything a run needs; `close` tears it all down. `time`: one clock for the sandbox,
 * the client, the limiter and the run (test/helpers/virtual-time.ts), the client's requests holding it.
 */
export async function harness(options: SandboxOptions = {}, time?: Time): Promise<Harness> {
  const sb = await startSandbox({ port: 0, ...options, ...(time ? { clock: time.now } : {}) });
  const own = new DomainIntelClient({ baseUrl: sb.baseUrl, apiKey: sb.key, windowMs: options.windowMs ?? 60_000, ...(time ? { clock: time.now } : {}) });
  const client = time ? busyWhileCalling(own, time) : own;
  const dir = mkdtempSync(join(tmpdir(), 'di-run-'));
  const cache = await openCache({ dir });
  return {
    sb,
    client,
    cache,
    dir,
    async run(kind, values, opts = {}) {
      const { limit, windowMs, ...rest } = opts;
      const clocked = time ? { clock: time.now, sleep: time.sleep } : {};
      const limiter = new RateLimiter({ limit: limit ?? null, windowMs: windowMs ?? options.windowMs ?? 60_000, given: limit != null, ...clocked });
      const r = enrich(records(values), { kind, client, store: cache, limiter, random: () => 0.01, ...clocked, ...rest });
      const rows = [];
      for await (const row of r.rows()) rows.push(row);
      return { rows, stats: r.stats };
    },
    async close() {
      await client.close();
      await cache.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The dispatch stage alone, around a harness's client: rows are added with `want` and settle in `buffer`. */
export function dispatchStage<K extends RunKind>(
  h: Harness,
  kind: K,
  opts: Partial<Pick<DispatcherOptions<K>, 'concurrency' | 'maxLookups' | 'limits' | 'client' | 'store' | 'limiter'>> = {},
) {
  const spec = KINDS[kind];
  const stats = emptyStats(Date.now());
  const buffer = new OrderedBuffer<K>({ kind, maxBuffered: 10_000, stats, keep: true });
  const seen = openSeenSet();
  const waiting = new Waiting<K>(buffer, spec, seen);
  const input: InputState = { done: true, pausedForBuffer: false, lastAt: 0 };
  const events: RunEvent[] = [];
  const dispatcher = new Dispatcher<K>({
    spec,
    client: h.client,
    store: h.cache,
    limiter: new RateLimiter({ limit: null, windowMs: 60_000, given: false }),
    buffer,
    waiting,
    stats,
    input,
    concurrency: 4,
    maxLookups: null,
    limits: RETRY_DEFAULTS,
    random: () => 0.01,
    sleep: async () => {},
    clock: Date.now,
    onEvent: (e) => events.push(e),
    ...opts,
  });
  let line = 0;
  return {
    spec,
    stats,
    buffer,
    input,
    events,
    dispatcher,
    /** Adds a row for `host` waiting on its key, as planning does. */
    want(host: string): void {
      line++;
      dispatcher.enqueue(spec.keyOf(host), buffer.addPending({ line, cells: [host], value: host }, host));
    },
    /**
     * Takes rows as a consumer does (each take opens the dispatcher's slow start) until every row wanted is
     * taken and nothing is in flight; returns them, in order.
     */
    async settled(): Promise<EnrichedRow<K>[]> {
      const rows: EnrichedRow<K>[] = [];
      for (;;) {
        const ready = buffer.take();
        if (ready.length > 0) {
          const taken = dispatcher.taking();
          rows.push(...ready);
          taken();
          continue;
        }
        if (buffer.empty && dispatcher.inflight === 0) break;
        await buffer.changed();
      }
      dispatcher.finish();
      return rows;
    },
  };
}
