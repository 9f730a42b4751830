// The CLI side of a pipeline run (batch, lookup with several hosts, traffic/employees --input): opens the
// input and output, asks before overspending, draws progress, prints the summary, picks the exit code.
import { UsageError } from '../../api/errors.js';
import { closesDocument, openJobInput, runJob } from '../../run/job.js';
import { enrich } from '../../run/enrich.js';
import { KINDS } from '../../domain/kinds.js';
import { givenRate, pacedLimiter } from '../../run/limit/policy.js';
import { type RunStats, stopCause } from '../../run/stats.js';
import type { EnrichedRow, InputShape } from '../../domain/types.js';
import type { Context } from '../context.js';
import type { EnrichCommand } from '../options/table.js';
import { EXIT } from '../exit-codes.js';
import { baseUrlHint } from '../report/hints.js';
import { report } from '../report/errors.js';
import { formatReset, groupedNumber, humanDuration } from '../output/format.js';
import { createProgress } from '../output/progress.js';
import { type InputMeter, liveFigures } from '../report/progress-figures.js';
import { PROGRESS_INTERVAL_MS } from '../options/progress.js';
import { printPlan } from '../report/plan.js';
import { endOutput, type OutputEnd, wroteLine } from './output-end.js';
import { argsFormat } from '../output/format-choice.js';
import { renderSummary, staleAnswers } from '../output/summary.js';
import { wrapWidth } from '../output/wrap.js';
import { checkQuota, type QuotaShort } from './quota-check.js';
import { renderRowsTable, terminalCells } from '../output/rows.js';
import { fileRunFormat, type ListSpec, noteRead, openRunStore, openSource } from './inputs.js';

/** Runs an enrichment described by the command's options; returns the exit code. */
export async function runList(ctx: Context<EnrichCommand>, spec: ListSpec): Promise<number> {
  const o = ctx.opts;
  // The input file's size: progress's share read (of the rows planned), until the need is known.
  const meter: InputMeter = { total: null };
  const input = await openSource(ctx, spec, meter);
  const requested = o.format;
  // Lists from the command line default like single lookups; files default to CSV (any size streams), or
  // xlsx when -o names a workbook.
  const format = 'args' in spec.source ? argsFormat(requested, o.output, ctx.io.stdout.isTTY) : fileRunFormat(requested, o.output);
  // A workbook is binary: into a pipe or a file, never onto a terminal.
  if (format === 'xlsx' && (o.output === undefined || o.output === '-') && ctx.io.stdout.isTTY === true)
    throw new UsageError('--format xlsx is binary and stdout is a terminal: write it with -o FILE.xlsx, or into a pipe');
  const changes = o.changes === true;
  // The change columns are data for a file or a script; a table for the eyes has no room for them.
  if (changes && format === 'table') throw new UsageError('--changes writes csv, json or ndjson; choose one with --format');
  const config = await ctx.config();
  const [client, store] = await Promise.all([ctx.client(), openRunStore(ctx)]);
  const account = await ctx.state();
  // The library's policy (run/limit/policy.ts): the rate given, else the one learned, on the account's slots.
  const limiter = await pacedLimiter({
    rate: givenRate(config),
    windowMs: config.windowMs,
    account,
    onLearn: (rate) =>
      ctx.logger.info(`the service allows about ${rate.requests} requests per ${humanDuration(rate.windowMs)}; using that (set --plan to skip learning)`),
    onLearnLost: (err) => ctx.logger.warn(`could not store the learned rate: ${(err as Error).message}`),
  });
  // The limiter's slots, read by progress too: what holds them now says when the next request may go.
  const slots = account.slots;
  const stop = AbortSignal.any([ctx.interrupted, ctx.outputClosed]);
  const base = {
    kind: spec.kind,
    client,
    store,
    limiter,
    // The resolver's --max-age (config/resolve.ts): one road from the flag to the run.
    maxAgeMs: config.maxAgeMs,
    refresh: o.refresh === true,
    stale: o.stale !== false,
    anyName: o.allowAnyName === true,
    changes,
    concurrency: o.concurrency,
    retries: o.retries,
    maxLookups: o.maxLookups ?? null,
    signal: stop,
  };

  if (o.dryRun) {
    const { stats, shape } = await runJob(input(), null, { ...base, dryRun: true });
    noteInput(ctx, spec, shape);
    await printPlan(ctx, stats, limiter.limit, limiter.windowMs);
    return EXIT.OK;
  }
  // --progress-interval alone asks for progress too. A spinner needs stderr to be a terminal that stdout's
  // rows do not stream onto (they would break its line); off a terminal the plain line is for logs.
  const asked = o.progress === true || o.progressInterval !== undefined;
  const rowsOnTerminal = format !== 'table' && (o.output === undefined || o.output === '-') && ctx.io.stdout.isTTY === true;
  const showProgress = !o.quiet && o.json !== true && (ctx.io.stderr.isTTY === true ? !rowsOnTerminal : asked);
  // The run's counters as last reported: a run that ends in an error (a refused key) still says what it spent.
  // The same object fills in as the run goes: progress reads it live.
  let seen: Readonly<RunStats> | null = null;
  const clock = () => ctx.io.clock.now();
  const read = liveFigures({ stats: () => seen, limiter, slots, batchSize: KINDS[spec.kind].batchSize, meter, clock });
  const plainEveryMs = asked ? (o.progressInterval ?? PROGRESS_INTERVAL_MS) : null;
  // Rows piped on (`| head`, `| jq`): no spinner for the first second. The program reading them often writes to
  // this terminal too, and head prints its lines and exits at once: a spinner drawn meanwhile was left on
  // screen glued to the CSV header (a tryout saw it every time), where no clearing of ours can reach it.
  const piped = (o.output === undefined || o.output === '-') && ctx.io.stdout.isTTY !== true;
  const drawOn = { stream: ctx.io.stderr, enabled: showProgress, style: ctx.style, read, now: clock, plainEveryMs, firstDrawMs: piped ? 1000 : 0 };
  let progress = await createProgress(drawOn);
  // Cleared on every way out: the end and a thrown error (the command's close), at once on Ctrl-C (a second
  // one exits before any close) and when the reader of stdout went away (`| head`: its lines follow ours).
  const clear = () => progress.stop();
  ctx.onClose(clear);
  for (const stop of [ctx.interrupted, ctx.outputClosed]) stop.addEventListener('abort', clear, { once: true });
  const quota = await checkQuota(ctx, 'file' in spec.source ? spec.source.file : null, input, base, async (ask) => {
    // A question mid-run cannot share the terminal's line with the spinner: it stops, and a new one follows.
    progress.stop();
    try {
      return await ask();
    } finally {
      progress = await createProgress(drawOn);
    }
  });
  const runOptions = { ...base, ...(quota.gate ? { quotaGate: quota.gate } : {}) };
  const onProgress = (s: Readonly<RunStats>) => {
    seen = s;
  };
  const onEvent = (e: import('../../run/stats.js').RunEvent) => {
    if (e.type === 'rate-limited') ctx.logger.debug(`429: pausing every worker for ${humanDuration(Math.max(0, e.resumeAt - ctx.io.clock.now()))}`);
    else if (e.type === 'retry') ctx.logger.debug(`retry ${e.attempt} in ${humanDuration(e.delayMs)}: ${e.error}`);
    // The one warning a full or read-only cache gives, as it happens: no count here (the first batch's would
    // read as the run's); the summary gives the total and the exit code (11) says it to a script. What else
    // the same disk stops (sharing the cache, the account state file) is said under --debug.
    else if (e.type === 'not-kept')
      ctx.logger.warn(`${e.cause}: answers bought from now on go to the output but not to the cache, so a re-run will pay for them again`);
    else if (e.type === 'not-shared') ctx.logger.debug(`${e.cause}: going on alone; another run on this cache may buy the same hosts meanwhile`);
  };

  const { openOutput } = await import('../../output/write.js');
  const target = o.output;
  // How the output ends, whether the run completed or its input failed mid-file (cli/run/output-end.ts).
  const endChoice = { target, replaceIncomplete: o.replaceIncomplete === true, maxLookups: o.maxLookups ?? null };
  let stats: RunStats;
  let ended: OutputEnd = { line: null, partial: null, wrote: null };
  if (format === 'table') {
    // A table needs every row to align its columns: only for lists small enough to read on a screen.
    const rows: EnrichedRow[] = [];
    const opened = await openJobInput(input());
    const run = enrich(opened.records, { ...runOptions, onProgress, onEvent });
    for await (const row of run.rows()) rows.push(row);
    progress.stop();
    stats = run.stats;
    noteInput(ctx, spec, opened.shape);
    ctx.io.stdout.write(`${renderRowsTable(rows, spec.kind, ctx.outStyle, ctx.io.stdout.columns)}\n`);
  } else {
    const out = await openOutput(target, ctx.io.stdout, { signal: ctx.interrupted, onWait: (what) => ctx.logger.info(what) });
    try {
      let shape: InputShape;
      ({ stats, shape } = await runJob(
        input(),
        {
          stream: out.stream,
          format,
          prefix: o.prefix,
          fields: o.fields,
          raw: o.raw === true,
          neutraliseInput: o.neutraliseInput === true,
          bom: o.bom === true,
          changes,
          ...(format === 'xlsx' ? {} : terminalCells(ctx, out.stream)),
        },
        { ...runOptions, onProgress, onEvent },
      ));
      progress.stop();
      noteInput(ctx, spec, shape);
      if (shape.earlier)
        ctx.logger.info(
          `${'file' in spec.source ? spec.source.file : 'input'}: the ${shape.earlier.length} columns an earlier run appended are written afresh`,
        );
      ended = await endOutput(out, stats, endChoice);
    } catch (err) {
      progress.stop();
      // A failed write is why the run ended (the row writer only saw its stream fail): said as such, exit 10.
      // Any other error keeps FILE and leaves no partial: its document was never closed (a JSON array without
      // its `]`); its paid answers are in the cache.
      const failed = out.failure();
      // An input that failed mid-file, or a key missing or refused, after rows were answered: those rows are
      // whole in the document the job closed, and kept as any incomplete run's are: FILE unchanged, rows in
      // FILE.partial (on stdout, written).
      if (closesDocument(err) && failed === null && seen !== null && !ctx.outputClosed.aborted) {
        const kept = await endOutput(out, seen, endChoice);
        summarize(ctx, seen, kept, format);
        throw err;
      }
      await out.abort();
      // Not when the reader went away (`| head`): a closed pipe ends quietly, as Unix tools do.
      // The run stopped because its output failed, not because a reader left: the error says why.
      if (seen !== null && !ctx.outputClosed.aborted) summarize(ctx, failed ? { ...(seen as RunStats), stoppedBy: null } : seen, null, format);
      throw failed ?? err;
    }
  }

  // A table went to stdout as a whole, once every row was in.
  summarize(ctx, stats, format === 'table' ? { line: null, wrote: wroteLine(stats, 'stdout') } : ended, format);
  return exitFor(ctx, stats, quota.short(), ended.partial);
}

/** What the reader found out about the input (ragged rows, an encoding guessed, the host column), said once the run has read it. */
function noteInput(ctx: Context<EnrichCommand>, spec: ListSpec, shape: InputShape): void {
  noteRead(ctx, ctx.opts.column, 'file' in spec.source ? spec.source.file : 'input', shape);
}

/**
 * The summary on stderr (unless --quiet), wrapped to the terminal's width; why the run stopped in the words
 * its rows use, not the reason's code; where the rows went (`end`: what endOutput said, none when the output failed).
 */
function summarize(ctx: Context<EnrichCommand>, stats: Readonly<RunStats>, end: Pick<OutputEnd, 'line' | 'wrote'> | null, format: string): void {
  const output = end?.line ?? null;
  // What became of -o FILE is said even under --quiet: a cron job's user must learn the file was kept.
  if (ctx.opts.quiet) {
    if (output) ctx.logger.warn(output);
    return;
  }
  const stoppedBy = stats.stoppedBy === null ? null : stopCause(stats.stoppedBy, ctx.opts.maxLookups ?? null);
  const staleWhat = staleAnswers(ctx.opts.maxAge, ctx.opts.refresh === true);
  // CSV (and a workbook) carry --prefix on our columns; JSON keys never change.
  const prefix = format === 'csv' || format === 'xlsx' ? (ctx.opts.prefix ?? '') : '';
  const columns = { status: `${prefix}status`, reason: `${prefix}reason` };
  const summary = { ...stats, stoppedBy, output, wrote: end?.wrote ?? null, staleWhat, columns, strict: ctx.opts.strict === true };
  ctx.io.stderr.write(`${renderSummary(summary, ctx.style, wrapWidth(ctx.io.stderr))}\n`);
}

function exitFor(ctx: Context<EnrichCommand>, s: RunStats, short: QuotaShort | null, partial: string | null): number {
  const n = groupedNumber;
  if (s.stoppedBy === 'closed') return EXIT.PIPE;
  if (s.stoppedBy === 'short') {
    const what = short ? `this run needs ${n(short.needed)} lookups but only ${n(short.remaining)} are left` : 'the quota left cannot cover this run';
    return runEnd(ctx, EXIT.QUOTA, 'over_quota', `${what}; add --allow-partial to run until the quota is spent, or add a pack and run it again`);
  }
  if (s.stoppedBy === 'aborted') {
    // Under --no-cache nothing was kept: a re-run pays again for what this one bought.
    const kept =
      ctx.opts.cache === false
        ? 'answers so far are not kept (--no-cache); a re-run pays for them again'
        : 'answers so far are cached; run the same command again to resume';
    return runEnd(ctx, EXIT.INTERRUPTED, 'interrupted', `interrupted: ${kept}`);
  }
  if (s.stoppedBy === 'quota') {
    const when = s.quota?.reset || s.quota?.resetRaw ? `it renews ${formatReset(s.quota)}, or add a pack` : 'add a pack or wait for the month to roll over';
    // What the rows the quota stopped became: not looked up, or given an answer older than --max-age.
    const failed = s.errors - s.notLookedUp;
    const rest = [
      s.notLookedUp > 0 ? `${n(s.notLookedUp)} rows not looked up` : '',
      failed > 0 ? `${n(failed)} rows in error` : '',
      s.stale > 0 ? `${n(s.stale)} rows given older answers` : '',
    ].filter(Boolean);
    const kept = s.errors > 0 && s.found + s.missing > 0 ? `; ${partial ?? 'the output'} holds the rest` : '';
    return runEnd(ctx, EXIT.QUOTA, 'quota_exhausted', `stopped by the monthly quota${rest.length > 0 ? `: ${rest.join(', ')}` : ''}${kept}; ${when}`);
  }
  if (s.errors > 0) {
    const unreachable = s.lookupsSpent === 0 && s.found + s.missing === s.cacheHits + s.stale;
    const code = unreachable && (s.stoppedBy === null || s.stoppedBy === 'unreachable') ? EXIT.NETWORK : EXIT.INCOMPLETE;
    // The first failed row's reason names the trouble (an outage says what the connection met); rows may
    // differ after it. Rows a stop left untried are not failures: said apart, with the stop.
    const failed = s.errors - s.notLookedUp;
    const why = s.errorCause ? ` (the first: ${s.errorCause})` : '';
    const untried = s.stoppedBy === null ? '' : ` (${stopCause(s.stoppedBy, ctx.opts.maxLookups ?? null)})`;
    const what = [failed > 0 ? `${n(failed)} rows in error${why}` : '', s.notLookedUp > 0 ? `${n(s.notLookedUp)} rows not looked up${untried}` : ''];
    const where = s.stoppedBy === 'unreachable' ? baseUrlHint(ctx.baseUrl) : null; // where the base URL came from
    const message = `${what.filter(Boolean).join(', ')}; ${where ? `${where}; ` : ''}run the same command again to fetch only those`;
    return runEnd(ctx, code, s.stoppedBy === 'budget' ? 'budget' : 'incomplete', message);
  }
  if (s.stale > 0) {
    // Every row has an answer, but some are older than asked for: not complete, and a re-run refreshes them.
    const what = staleAnswers(ctx.opts.maxAge, ctx.opts.refresh === true);
    // Why, in the line --quiet leaves: a night that replaced FILE with older answers names the outage.
    const why = s.staleCause ? `: ${s.staleCause}` : '';
    return runEnd(ctx, EXIT.INCOMPLETE, 'stale', `${n(s.stale)} rows from ${what}${why}; run the same command again to refresh them`);
  }
  if (s.notKept > 0) {
    const cause = s.notKeptCause ?? 'the cache is not writable';
    const message = `${n(s.notKept)} paid answers are in the output but not in the cache: ${cause}; a re-run will pay for them again (free the cache's disk, or set DOMAIN_INTEL_CACHE_DIR to another directory)`;
    return runEnd(ctx, EXIT.NOT_KEPT, 'not_kept', message);
  }
  if (s.invalid > 0 && ctx.opts.strict) return runEnd(ctx, EXIT.INVALID_ROWS, 'invalid_rows', `${n(s.invalid)} invalid rows (--strict)`);
  return EXIT.OK;
}

/** How a run that did not end cleanly says so: a warning (an error when the quota stopped it), or the JSON object. */
function runEnd(ctx: Context, exit: number, code: string, message: string): number {
  return report(ctx, { message, code, host: null, exit, level: exit === EXIT.QUOTA ? 'error' : 'warn' });
}
