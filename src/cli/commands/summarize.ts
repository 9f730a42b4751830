// `domain-intel summarize [FILE|-]` (issue 18): the picture of an enriched file (or, with --from-cache, of a
// host list as the cache knows it): rows by status, then per distinct found host the technologies, platforms,
// countries, traffic, employees... Spends nothing: no client is opened, the catalog is read only if cached.
import { openJobInput } from '../../run/job.js';
import { cachedRows } from '../../summary/cache.js';
import { openEnriched, type SummarySource } from '../../summary/read.js';
import { summarize as summarise } from '../../summary/summarize.js';
import type { Summary } from '../../summary/types.js';
import type { Store } from '../../store/contract.js';
import { UsageError } from '../../api/errors.js';
import type { CatalogCategory } from '../../api/types.js';
import type { Stats } from 'node:fs';
import { openOutput, type OutputTarget } from '../../output/file.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { renderSummary } from '../output/bars.js';
import { relativeAge } from '../output/format.js';
import { inputReading, openInputFile, readingOf, refuseSameFile, stdinInput } from '../run/inputs.js';
import { BY_FIELDS, SCALES } from '../options/summarize.js';

export default async function summarize(ctx: Context<'summarize'>): Promise<number> {
  const o = ctx.opts;
  const file = (ctx.args.file as string | undefined) ?? '-';
  const fileName = file === '-' ? 'stdin' : file;
  if (o.by !== undefined && o.format === 'json') throw new UsageError('--by picks a section of the bar charts; --format json holds every list in full');
  if (o.html === '-' && o.format === 'json') throw new UsageError('--html - writes the report to stdout, where --format json would go too: give --html a file');
  // A terminal's keyboard is no enriched file: batch's "type hosts, Ctrl-D ends" prompt led a tryout to type a
  // host, be refused for a missing status column, and send the Ctrl-D to the shell.
  if (file === '-' && !o.fromCache && ctx.io.stdin.isTTY === true) {
    throw new UsageError('summarize reads a file batch wrote: give its name, or pipe it in (batch ... | domain-intel summarize)');
  }
  const store = o.fromCache ? await ctx.store() : await catalogStore(ctx);
  const { stream, st } = await inputStream(ctx, file);
  // The report's file is opened before the input is read: a path that cannot be written fails at once, and
  // the file is replaced only by a complete report (atomically, as -o is).
  const report = o.html === undefined ? null : await openReport(ctx, o.html, st);
  let source: SummarySource;
  if (o.fromCache) {
    if (store === null) throw new UsageError('--from-cache reads the cache, which is turned off');
    const { records } = await openJobInput({ stream, fileName, ...inputReading(o) });
    source = { format: 'hosts', rows: cachedRows(records, store) };
  } else {
    const { column: _column, earlier: _earlier, ...table } = inputReading(o);
    source = await openEnriched({ stream, fileName, prefix: o.prefix ?? '', table });
    const absent = source.absent ?? [];
    if (absent.length > 0)
      ctx.logger.warn(`${fileName} has no ${absent.join(', ')} column${absent.length > 1 ? 's' : ''} (written with --fields?): their figures are left empty`);
  }
  // A summary never fetches the catalog (it spends nothing, needs no key): the cached one, at any age, else the
  // newest one cached for any other service, or none.
  const catalog = store === null ? null : ((await (await import('../run/catalog-source.js')).cachedCatalog(store)) ?? (await otherCatalog(ctx)));
  if (catalog === null) ctx.logger.info('no catalog in the cache: categories left out; `domain-intel catalog` caches it (free)');
  const summary = await summarise(source.rows, {
    input: { name: fileName, format: source.format },
    catalog,
    now: new Date(ctx.io.clock.now()),
    signal: ctx.interrupted,
  });
  if (report !== null) {
    // An interrupted read gives a picture of part of the file: fine in the terminal, which says so below, but a
    // report file outlives the run and would not say so; the file is left as it was.
    if (ctx.interrupted.aborted) ctx.logger.warn(`interrupted: ${o.html} not written`);
    else {
      const { renderReport } = await import('../../summary/html/report.js');
      report.stream.write(await renderReport(summary, { top: ctx.command.getOptionValueSource('top') === 'cli' ? o.top : undefined }));
      await report.commit();
      if (report.kind === 'stdout') return EXIT.OK;
      ctx.logger.info(`report written to ${o.html}`);
    }
  }
  if (o.fromCache && summary.rows.unknown > 0 && summary.rows.unknown === summary.input.rows - summary.rows.invalid) {
    ctx.logger.warn(`none of the hosts of ${fileName} is in the cache: run batch on it first (or summarise the file batch wrote)`);
  }
  if (o.format === 'json') {
    ctx.io.stdout.write(`${JSON.stringify(ctx.command.getOptionValueSource('top') === 'cli' ? cut(summary, o.top) : summary, null, 2)}\n`);
  } else {
    const by = o.by === undefined ? undefined : BY_FIELDS[o.by];
    if (by !== undefined && summary[by].length === 0) {
      // Nothing to draw: said on stderr, not as a blank line on stdout.
      const why = by === 'categories' && catalog === null ? ': no catalog is cached (`domain-intel catalog` caches it, free)' : '';
      ctx.logger.warn(`no ${o.by} in ${fileName}${why}`);
      return EXIT.OK;
    }
    ctx.io.stdout.write(renderSummary(summary, { top: o.top, by, width: ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined, style: ctx.outStyle }));
  }
  if (ctx.interrupted.aborted) {
    ctx.logger.warn('interrupted: the summary is of the rows read so far');
    return EXIT.INTERRUPTED;
  }
  return EXIT.OK;
}

/** --html's target, opened as -o's is; the input file itself is refused: its rename would replace the export. */
async function openReport(ctx: Context, target: string, input: Stats | null): Promise<OutputTarget> {
  if (input !== null) await refuseSameFile(target, input, 'the report would replace it', async () => {}, '--html');
  const out = await openOutput(target, ctx.io.stdout, { signal: ctx.interrupted, onWait: (what) => ctx.logger.info(what) });
  ctx.onClose(() => out.abort()); // after a commit, nothing to do; otherwise the target stays as it was
  return out;
}

/**
 * The cache, read for the catalog alone when an enriched file is summarised: a cache that cannot be opened
 * (corrupt, locked, unwritable) costs the categories, not the summary.
 */
async function catalogStore(ctx: Context): Promise<Store | null> {
  try {
    return await ctx.store();
  } catch (err) {
    ctx.logger.warn(`the cache cannot be read (${(err as Error).message}): categories left out`);
    return null;
  }
}

/** The input file opened up front (an unreadable one is a usage error naming it) and what it is, or stdin. */
async function inputStream(ctx: Context, file: string): Promise<{ stream: NodeJS.ReadableStream; st: Stats | null }> {
  if (file === '-') return { stream: stdinInput(ctx), st: null };
  const { handle, st } = await openInputFile(file);
  ctx.onClose(() => handle.close());
  return { stream: readingOf(file, handle.createReadStream({ autoClose: false })), st };
}

/**
 * The newest catalog cached for any service, when the base URL in force has none: the file may have been
 * enriched from another (the sandbox, staging), and a summary fetches nothing. Said, naming that service.
 */
async function otherCatalog(ctx: Context): Promise<CatalogCategory[] | null> {
  const [config, { anyCachedCatalog, storeWhere }] = await Promise.all([ctx.config(), import('../../store/open.js')]);
  const found = await anyCachedCatalog(storeWhere(config));
  if (found === null) return null;
  const from = found.service === null ? 'another cache file' : found.service;
  ctx.logger.info(
    `no catalog cached for ${config.baseUrl}: categories from the one cached for ${from}, fetched ${relativeAge(ctx.io.clock.now() - found.fetchedAt)}`,
  );
  return found.body as CatalogCategory[];
}

/**
 * --top given with --format json: each by-count list cut to N. The scales (traffic bands, employee ranges,
 * status codes) are in their own order, not by count, so their first N are no "top": they stay whole, as in
 * the bars and the report (a tryout saw --top 3 hide the 10M+ band, the largest).
 */
function cut(s: Summary, top: number): Summary {
  const c = { ...s };
  for (const key of Object.values(BY_FIELDS)) if (!SCALES.has(key)) c[key] = s[key].slice(0, top);
  return c;
}
