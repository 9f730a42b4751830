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
import { timing } from '../io.js';
import type { EnrichCommand } from '../options/table.js';
import { EXIT, type ExitCode, runExit } from '../exit-codes.js';
import { baseUrlHint } from '../report/hints.js';
import { report } from '../report/errors.js';
import { humanDuration } from '../output/format.js';
import { createProgress } from '../output/progress.js';
import { type InputMeter, liveFigures } from '../report/progress-figures.js';
import { PROGRESS_INTERVAL_MS } from '../options/progress.js';
import { printPlan } from '../report/plan.js';
import { endOutput, type OutputEnd, wroteLine } from './output-end.js';
import { argsFormat } from '../output/format-choice.js';
import { renderSummary, staleAnswers } from '../output/summary.js';
import { wrapWidth } from '../output/wrap.js';
import { checkQuota } from './quota-check.js';
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
  // Every row would say `new`: there is no answer held before to compare with (a trial took it at its word).
  if (changes && o.cache === false)
    throw new UsageError('--changes compares each answer with the one the cache held, and --no-cache holds none: drop one of them');
  const config = await ctx.config();
  const [client, store] = await Promise.all([ctx.client(), openRunStore(ctx)]);
  const account = await ctx.state();
  // The library's policy (run/limit/policy.ts): the rate given, else the one learned, on the account's slots.
  const limiter = await pacedLimiter({
    rate: givenRate(config),
    windowMs: config.windowMs,
    account,
    ...timing(ctx.io.clock),
    onLearn: (rate) =>
      ctx.logger.info(
        `the service allows about ${rate.requests} requests per ${humanDuration(rate.windowMs)}; using that (${rateOption(rate)} skips learning)`,
      ),
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
    ...timing(ctx.io.clock),
  };

  if (o.dryRun) {
    const { stats, shape } = await runJob(input(), null, { ...base, dryRun: true });
    noteInput(ctx, spec, shape);
    const file = 'file' in spec.source && spec.source.file !== '-';
    await printPlan(ctx, stats, limiter.limit, limiter.windowMs, { batchSize: KINDS[spec.kind].batchSize, file, slots: account.slots });
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
  const rateUnsaid = givenRate(config) === undefined;
  const read = liveFigures({ stats: () => seen, limiter, slots, batchSize: KINDS[spec.kind].batchSize, meter, clock, rateUnsaid });
  const plainEveryMs = asked ? (o.progressInterval ?? PROGRESS_INTERVAL_MS) : null;
  // Rows piped on (`| head`, `| jq`): no spinner for the first second. The program reading them often writes to
  // this terminal too, and head prints its lines and exits at once: a spinner drawn meanwhile was left on
  // screen glued to the CSV header (a tryout saw it every time), where no clearing of ours can reach it.
  const piped = (o.output === undefined || o.output === '-') && ctx.io.stdout.isTTY !== true;
  const drawOn = {
    stream: ctx.io.stderr,
    enabled: showProgress,
    style: ctx.style,
    read,
    now: clock,
    every: ctx.io.clock.every,
    plainEveryMs,
    firstDrawMs: piped ? 1000 : 0,
  };
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
  const endChoice = { target, replaceIncomplete: o.replaceIncomplete === true, maxLookups: o.maxLookups ?? null, refresh: o.refresh === true };
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
  // The exit code and the words said with it come from the one map (exit-codes.ts); saying them is the CLI's.
  const end = runExit(stats, {
    cache: o.cache !== false,
    maxLookups: o.maxLookups ?? null,
    maxAgeMs: o.maxAge,
    refresh: o.refresh === true,
    strict: o.strict === true,
    short: quota.short(),
    partial: ended.partial,
    baseUrlHint: () => baseUrlHint(ctx.baseUrl),
  });
  return end.said === null ? end.exit : runEnd(ctx, end.exit, end.said.code, end.said.message);
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

/** How a run that did not end cleanly says so: a warning (an error when the quota stopped it), or the JSON object. */
function runEnd(ctx: Context, exit: ExitCode, code: string, message: string): number {
  return report(ctx, { message, code, host: null, exit, level: exit === EXIT.QUOTA ? 'error' : 'warn' });
}

/** The option that gives a learned rate (a new user was told `--plan` for 6 a minute, which no plan is). */
function rateOption(rate: { requests: number; windowMs: number }): string {
  const w = rate.windowMs;
  if (w === 60_000) return `--rpm ${rate.requests}`;
  const window = w % 60_000 === 0 ? `${w / 60_000}m` : w % 1000 === 0 ? `${w / 1000}s` : `${Math.round(w)}ms`;
  return `--rate ${rate.requests}/${window}`;
}
