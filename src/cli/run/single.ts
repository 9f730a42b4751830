// One host, one answer: the shared body of `lookup HOST`, `traffic HOST` and `employees HOST`.
import { NotFoundError, UsageError } from '../../api/errors.js';
import type { ApiResponse } from '../../api/types.js';
import type { CallOptions, DomainIntelClient } from '../../api/client.js';
import { chooseColumns } from '../../domain/flatten.js';
import { KINDS } from '../../domain/kinds.js';
import { keptStore } from '../../run/failsafe-store.js';
import { normaliseHost } from '../../domain/normalise.js';
import { lookupOne } from '../../run/single-lookup.js';
import type { RunKind } from '../../domain/types.js';
import type { Context } from '../context.js';
import { timing } from '../io.js';
import type { EnrichCommand } from '../options/table.js';
import { EXIT } from '../exit-codes.js';
import { durationText } from '../../config/values.js';
import { humanDuration, relativeAge } from '../output/format.js';
import { argsFormat, type Format } from '../output/format-choice.js';
import { openOutput } from '../../output/file.js';
import type { AnswerStore } from '../../store/contract.js';
import type { Writable } from 'node:stream';

export interface SingleSpec<T> {
  kind: RunKind;
  raw: string;
  fetch: (client: DomainIntelClient, host: string, opts: CallOptions) => Promise<ApiResponse<T>>;
  /** The table view (loaded only for a table: JSON and CSV need none of it). */
  view: (data: T) => Promise<string>;
}

/** Looks one host up (cache first) and prints it in the chosen format; returns the exit code. */
export async function single<T>(ctx: Context<EnrichCommand>, spec: SingleSpec<T>): Promise<number> {
  const n = normaliseHost(spec.raw, { anyName: ctx.opts.allowAnyName === true });
  if (!n.ok) throw new UsageError(`not a plausible hostname: ${JSON.stringify(spec.raw)} (${n.reason})`, 'bad_host');
  const host = n.host;
  const { endpoint, keyOf } = KINDS[spec.kind];
  const key = keyOf(host);
  const target = ctx.opts.output === '-' ? undefined : ctx.opts.output;
  const format: Format = argsFormat(ctx.opts.format, target, ctx.io.stdout.isTTY);
  if (ctx.opts.dryRun) {
    const store = await ctx.store();
    const hit = (await store?.getMany(endpoint, [key], (await ctx.config()).maxAgeMs))?.get(key);
    ctx.logger.info(hit && !ctx.opts.refresh ? `${host}: cached, costs nothing` : `${host}: 1 lookup needed`);
    return EXIT.OK;
  }
  // --fields is checked before anything is paid for, as a list run checks it.
  if (ctx.opts.fields !== undefined) chooseColumns(spec.kind, ctx.opts.fields, false);
  if (ctx.opts.maxLookups === 0) throw new UsageError('--max-lookups 0 allows no lookup', 'budget');
  // The client (undici, the account's state file) is made only when a request must go: a cached answer
  // needs the cache alone, and loading the rest was half of a cached lookup's time (issue 27).
  const store = await ctx.store();
  // The output is opened before anything is paid for: a path that cannot be written costs no lookup.
  const out = await openOutput(target, ctx.io.stdout, { signal: ctx.interrupted, onWait: (what) => ctx.logger.info(what) });
  try {
    const written = await lookupAndWrite(ctx, spec, { host, key, format, store, out: out.stream });
    await out.commit();
    if (written.error) throw written.error;
    return written.code;
  } finally {
    await out.abort(); // after a commit, nothing to do; otherwise FILE stays as it was
  }
}

interface Resolved {
  host: string;
  key: string;
  format: Format;
  store: AnswerStore | null;
  out: Writable;
}

/** The exit code, and the error to report once the output is complete (a host the service does not hold). */
interface Written {
  code: number;
  error?: NotFoundError;
}

async function lookupAndWrite<T>(ctx: Context<EnrichCommand>, spec: SingleSpec<T>, r: Resolved): Promise<Written> {
  const { host, key, format, store, out } = r;
  const { endpoint, fanOut } = KINDS[spec.kind];
  // A cache that cannot be written (disk full, read-only) costs the answer's keeping, never the paid answer.
  const kept = { notKept: 0, notKeptCause: null as string | null };
  // A shared store lost under the lookup: the paid answer is still shown, then the command ends on the loss (exit 13).
  let lost: Error | null = null;
  const result = await lookupOne<T>({
    endpoint,
    key,
    fetch: async (patience) => spec.fetch(await ctx.client(), host, { patience }),
    store: store && keptStore(store, { stats: kept, clock: () => ctx.io.clock.now(), onLost: (err) => (lost = err) }),
    ...timing(ctx.io.clock),
    maxAgeMs: (await ctx.config()).maxAgeMs, // the resolver's: one road from --max-age to the lookup
    refresh: ctx.opts.refresh === true,
    stale: ctx.opts.stale !== false,
    retries: ctx.opts.retries,
    timeoutMs: ctx.opts.timeout, // the client's per-attempt timeout; sets the cap on the request's time (api/retry.ts)
    signal: ctx.interrupted,
    onRetry: ({ delayMs, error, rateLimited }) =>
      ctx.logger.warn(rateLimited ? `rate limited; waiting ${humanDuration(delayMs)}` : `${error.message}; retrying in ${humanDuration(delayMs)}`),
  });
  if (result.quota) ctx.logger.quota(result.quota);
  if (kept.notKept > 0 && lost === null) ctx.logger.warn(`${kept.notKeptCause}: the answer is not kept; a re-run will pay for it again`);
  // Seconds shown as such: "just now" would contradict "older than --max-age 1s".
  const since = result.cachedAt === null ? 0 : ctx.io.clock.now() - result.cachedAt;
  const age = result.cachedAt === null ? '' : since < 45_000 ? `${humanDuration(Math.max(0, since))} ago` : relativeAge(since);
  if (result.staleCause !== null) {
    // An older answer stood in for one that could not be had: said as a warning, and exit 4 (a missing one
    // keeps exit 8 below: the exit code carries the answer, and this warning says how old it is).
    const older = ctx.opts.refresh ? '--refresh could not replace it' : `older than --max-age ${durationText(ctx.opts.maxAge)}`;
    ctx.logger.warn(`${host}: ${result.staleCause}; showing the answer fetched ${age} (${older}); run the same command again to refresh it`);
  } else if (result.cachedAt !== null) ctx.logger.info(`${host}: from the cache, fetched ${age} (--refresh fetches again)`);
  const missing = result.status === 'missing';
  const data = missing ? null : (fanOut(result.data, host) as T);
  if (format === 'table') {
    if (data !== null) out.write(`${await spec.view(data)}\n`);
  } else {
    // The same row envelope a list writes (one row, line 1), so one host and many read alike in every format.
    // The row writer loads only here: a table needs none of it.
    const { writeRows } = await import('../output/rows.js');
    const row = {
      kind: spec.kind,
      line: 1,
      cells: [spec.raw],
      value: spec.raw,
      status: missing ? ('missing' as const) : ('found' as const),
      host,
      reason: null,
      data: data as never,
      cached: result.cachedAt !== null,
      fetchedAt: Math.floor(result.fetchedAt / 1000) * 1000,
    };
    await writeRows(ctx, { stream: out, kind: spec.kind, format, rows: [row] });
  }
  if (lost !== null) throw lost;
  if (missing) {
    // Reported like every other error (a JSON object on stderr under --json), exit 8; the row above is data,
    // written all the same so a script reads the one shape whatever the answer.
    const message = `${host}: not held by the service${result.cachedAt === null ? ' (the lookup was spent; the answer is cached)' : ''}`;
    return { code: EXIT.NOT_FOUND, error: new NotFoundError(message, { code: 'not_found', host, operation: endpoint }) };
  }
  if (result.staleCause !== null) return { code: EXIT.INCOMPLETE };
  return { code: kept.notKept > 0 ? EXIT.NOT_KEPT : EXIT.OK };
}
