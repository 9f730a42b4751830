// `domain-intel summarize [FILE|-]` (issue 18): the picture of an enriched file (or, with --from-cache, of a
// host list as the cache knows it): rows by status, then per distinct found host the technologies, platforms,
// countries, traffic, employees... Spends nothing: no client is opened, the catalog is read only if cached.
import type { CatalogCategory } from '../../api/types.js';
import { openJobInput } from '../../pipeline/job.js';
import { cachedRows } from '../../summary/cache.js';
import { openEnriched, type SummarySource } from '../../summary/read.js';
import { summarize as summarise } from '../../summary/summarize.js';
import type { Summary } from '../../summary/types.js';
import type { AnswerCache } from '../../store/cache.js';
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { renderSummary } from '../output/bars.js';
import { inputReading, openInputFile, readingOf, stdinInput } from '../run-inputs.js';
import { BY_FIELDS } from '../summarize-options.js';

export default async function summarize(ctx: Context<'summarize'>): Promise<number> {
  const o = ctx.opts;
  const file = (ctx.args.file as string | undefined) ?? '-';
  const fileName = file === '-' ? 'stdin' : file;
  if (o.by !== undefined && o.format === 'json') throw new UsageError('--by picks a section of the bar charts; --format json holds every list in full');
  const store = o.fromCache ? await ctx.store() : await catalogStore(ctx);
  const stream = await inputStream(ctx, file);
  let source: SummarySource;
  if (o.fromCache) {
    if (store === null) throw new UsageError('--from-cache reads the cache, which is turned off');
    const { records } = await openJobInput({ stream, fileName, ...inputReading(o) });
    source = { format: 'hosts', rows: cachedRows(records, store) };
  } else {
    const { column: _column, earlier: _earlier, ...table } = inputReading(o);
    source = await openEnriched({ stream, fileName, prefix: o.prefix ?? '', table });
  }
  const catalog = store === null ? null : cachedCatalog(store);
  if (catalog === null) ctx.logger.info('no catalog in the cache: categories left out; `domain-intel catalog` caches it (free)');
  const summary = await summarise(source.rows, {
    input: { name: fileName, format: source.format },
    catalog,
    now: new Date(ctx.io.clock.now()),
    signal: ctx.interrupted,
  });
  if (o.format === 'json') {
    ctx.io.stdout.write(`${JSON.stringify(ctx.command.getOptionValueSource('top') === 'cli' ? cut(summary, o.top) : summary, null, 2)}\n`);
  } else {
    const by = o.by === undefined ? undefined : BY_FIELDS[o.by];
    ctx.io.stdout.write(renderSummary(summary, { top: o.top, by, width: ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined, style: ctx.outStyle }));
  }
  if (ctx.interrupted.aborted) {
    ctx.logger.warn('interrupted: the summary is of the rows read so far');
    return EXIT.INTERRUPTED;
  }
  return EXIT.OK;
}

/**
 * The cache, read for the catalog alone when an enriched file is summarised: a cache that cannot be opened
 * (corrupt, locked, unwritable) costs the categories, not the summary.
 */
async function catalogStore(ctx: Context): Promise<AnswerCache | null> {
  try {
    return await ctx.store();
  } catch (err) {
    ctx.logger.warn(`the cache cannot be read (${(err as Error).message}): categories left out`);
    return null;
  }
}

/** The input file opened up front (an unreadable one is a usage error naming it), or stdin. */
async function inputStream(ctx: Context, file: string): Promise<NodeJS.ReadableStream> {
  if (file === '-') return stdinInput(ctx);
  const { handle } = await openInputFile(file);
  ctx.onClose(() => handle.close());
  return readingOf(file, handle.createReadStream({ autoClose: false }));
}

/** The cached catalog, at any age, or null: a summary never fetches (spends nothing, needs no key). */
function cachedCatalog(store: AnswerCache): CatalogCategory[] | null {
  const hit = store.get('catalog', '', Number.POSITIVE_INFINITY);
  return hit !== null && Array.isArray(hit.body) ? (hit.body as CatalogCategory[]) : null;
}

/** --top given with --format json: each list cut to N. */
function cut(s: Summary, top: number): Summary {
  const c = { ...s };
  for (const key of Object.values(BY_FIELDS)) c[key] = s[key].slice(0, top);
  return c;
}
