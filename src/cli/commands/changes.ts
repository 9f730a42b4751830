// `domain-intel changes [FILE|-]` (issue 17): what changed, per host of the input or of the whole cache
// (--all), between the answer held at --since (default: the one the latest replaced) and the latest. Reads the
// cache only: no client is opened, no key is needed, nothing is spent.
import { UsageError } from '../../api/errors.js';
import type { ChangeEvent } from '../../changes/events.js';
import { changeFeed, FEED_ENDPOINT, type FeedStats } from '../../changes/feed.js';
import { checkFields, type FeedFilter, techMatcher } from '../../changes/filter.js';
import { hostsWithHistory, type InputCounts, inputHosts } from '../../changes/hosts.js';
import { sinceMoment } from '../../changes/since.js';
import { createEventWriter, EVENT_COLUMNS } from '../../changes/write.js';
import { fetchedAtText, renderList } from '../../domain/flatten.js';
import { openJobInput } from '../../run/job.js';
import type { Store } from '../../store/contract.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { inputReading, noteRead, openInputFile, readingOf, stdinInput } from '../run/inputs.js';
import { groupedNumber } from '../output/format.js';
import { renderTable } from '../output/table.js';
import { sanitizeForTerminal } from '../output/terminal.js';

export default async function changes(ctx: Context<'changes'>): Promise<number> {
  const o = ctx.opts;
  const file = ctx.args.file as string | undefined;
  if (o.all && file !== undefined) throw new UsageError('give an input (FILE or -) or --all, not both');
  const fields = o.field === undefined ? null : checkFields(o.field);
  if (o.tech !== undefined && fields !== null && !fields.has('technologies')) {
    throw new UsageError('--tech reports technologies changes, which --field leaves out; add technologies to --field');
  }
  const store = await ctx.store();
  if (store === null) throw new UsageError('changes reads the cache, which is turned off');
  const catalog = o.tech === undefined ? null : await catalogNames(store);
  // The feed spends nothing, so it never fetches the catalog: without one cached, a misspelt name would match
  // nothing, silently, night after night. Said, with the free way to have it checked.
  if (o.tech !== undefined && catalog === null) {
    ctx.logger.warn(`no catalog in the cache to check --tech ${JSON.stringify(o.tech)} against; run \`domain-intel catalog\` once (free) to have it checked`);
  }
  const filter: FeedFilter = { fields, tech: o.tech === undefined ? null : techMatcher(o.tech, catalog) };
  const now = ctx.io.clock.now();
  const since = o.since === undefined ? null : sinceMoment(o.since, now);
  if (since !== null && since > now) throw new UsageError(`--since ${new Date(since).toISOString().slice(0, 19)}Z is in the future`, 'bad_since');
  const counts: InputCounts = { invalid: 0, duplicates: 0 };
  const hosts = o.all ? hostsWithHistory(store.past, FEED_ENDPOINT) : inputHosts(await readInput(ctx, file ?? '-'), counts);
  // commander offers changes no xlsx (options.ts); the option's type is the union of every command's choices.
  const format = (o.format ?? (ctx.io.stdout.isTTY ? 'table' : 'ndjson')) as Exclude<typeof o.format, 'xlsx' | undefined>;
  const stats: FeedStats = { compared: 0, notHeld: 0, changed: 0, events: 0 };
  const feed = changeFeed({ reads: store.past, hosts, since, filter }, stats);

  // Ctrl-C, or the reader of stdout gone (`| head`): the feed stops at the next host; runAction turns a closed
  // pipe into its own exit code.
  const stop = AbortSignal.any([ctx.interrupted, ctx.outputClosed]);
  if (format === 'table') {
    // A table's widths need every row: the feed is gathered first (a terminal's worth, in the nightly use).
    const all: ChangeEvent[] = [];
    for await (const events of feed) {
      if (stop.aborted) break;
      all.push(...events);
    }
    if (all.length > 0) ctx.io.stdout.write(`${eventTable(ctx, all)}\n`);
  } else {
    const toTerminal = ctx.io.stdout.isTTY === true;
    const writer = createEventWriter(ctx.io.stdout, { format, raw: o.raw === true, signal: stop, ...(toTerminal ? { cleanCell: sanitizeForTerminal } : {}) });
    try {
      for await (const events of feed) {
        if (stop.aborted) break;
        await writer.write(events);
      }
    } catch (err) {
      // A write given up on a stop: the stop is the outcome, said below (or by runAction for a closed pipe).
      if (!stop.aborted) throw err;
    }
    // Nothing on stdout when nothing changed, whatever the format: a hook piped from it gets no empty post.
    if (stats.events > 0 && !stop.aborted) await writer.end();
  }
  if (ctx.interrupted.aborted) {
    ctx.logger.warn('interrupted: the changes shown are those of the hosts compared so far');
    return EXIT.INTERRUPTED;
  }
  // With the reader gone, a summary of a feed cut short would mislead: runAction gives the pipe's exit code.
  if (!stop.aborted) await summarise(ctx, stats, counts);
  return EXIT.OK;
}

/**
 * The input, opened up front so a file that cannot be read is a usage error naming it. Read as batch reads
 * it, including a file batch wrote (the nightly pattern's crm.csv): the columns a run appended, with its
 * --prefix and with or without --changes' after them, are recognised, and the host read from our `host`.
 */
async function readInput(ctx: Context<'changes'>, file: string) {
  // Through the job's opening, as batch reads it: a workbook (by name or signature) too. But our own output is
  // read by our `host` column, the host that run looked up and the cache keys (input/own-columns.ts).
  const common = { ...inputReading(ctx.opts), ownHost: `${ctx.opts.prefix ?? ''}host` };
  let opened: Awaited<ReturnType<typeof openJobInput>>;
  if (file === '-') opened = await openJobInput({ stream: stdinInput(ctx), fileName: 'stdin', ...common });
  else {
    const { handle } = await openInputFile(file);
    ctx.onClose(() => handle.close());
    opened = await openJobInput({ stream: readingOf(file, handle.createReadStream({ autoClose: false })), fileName: file, ...common });
  }
  // Which column the hosts come from, when the header offered more than one (said before the feed, not after).
  noteRead(ctx, ctx.opts.column, file === '-' ? 'stdin' : file, opened.shape, false);
  return opened.records;
}

/** The technology names of the cached catalog, or null when the cache holds none (it is never fetched here). */
async function catalogNames(store: Store): Promise<string[] | null> {
  const catalog = await (await import('../run/catalog-source.js')).cachedCatalog(store);
  return catalog === null ? null : catalog.flatMap((c) => (c.technologies ?? []).map((t) => String(t.tech)));
}

/** The events as a table: technologies as +adopted and -dropped, other lists as CSV joins them. */
function eventTable(ctx: Context, events: ChangeEvent[]): string {
  const names = (prefix: string, list: string[] | undefined) => (list && list.length > 0 ? list.map((n) => `${prefix}${n}`).join(' ') : '');
  const rows = events.map((e) => ({
    host: e.host,
    field: e.field,
    from: e.field === 'technologies' ? names('-', e.removed) : renderList(e.from),
    to: e.field === 'technologies' ? names('+', e.added) : renderList(e.to),
    at: fetchedAtText(e.at),
  }));
  // The host, the field and the time are read whole; the values shrink on a narrow terminal (table.ts). Under
  // AT_COLUMNS the time is left out: kept, it took the room of the values, or at 60 columns turned every event
  // into a five-line block (16,000 lines for one night); a night's events share their time, and CSV and
  // NDJSON keep it.
  const width = ctx.io.stdout.columns;
  const keys = width !== undefined && width < AT_COLUMNS ? EVENT_COLUMNS.filter((key) => key !== 'at') : EVENT_COLUMNS;
  const columns = keys.map((key) => ({ key, ...(key === 'from' || key === 'to' ? { max: 40 } : { kind: 'key' as const }) }));
  return renderTable(rows, columns, { style: ctx.outStyle, ...(ctx.io.stdout.columns ? { width: ctx.io.stdout.columns } : {}) });
}

/** Terminal columns under which the table leaves out the time (`at`, 20 columns): the values need the room. */
const AT_COLUMNS = 100;

/** The stderr summary (not under --quiet, as batch's): what was compared, what changed, what was skipped. */
async function summarise(ctx: Context, stats: FeedStats, counts: InputCounts): Promise<void> {
  const n = groupedNumber;
  const plural = (count: number, word: string) => `${n(count)} ${word}${count === 1 ? '' : 's'}`;
  const notes = [stats.notHeld > 0 ? `${n(stats.notHeld)} not in the cache` : '', counts.invalid > 0 ? `${plural(counts.invalid, 'invalid row')} skipped` : '']
    .filter((x) => x !== '')
    .join(', ');
  const compared = `compared ${plural(stats.compared, 'host')}${notes === '' ? '' : ` (${notes})`}`;
  // Nothing to compare is not "no changes": a cron job under the wrong HOME (another cache) would say that for
  // ever. Said as a warning, naming the cache read.
  if (stats.compared === 0 && stats.notHeld > 0) {
    const { store, cacheDir } = await ctx.config();
    const where = store.shown === null ? `the cache in ${cacheDir}` : `the store ${store.shown}`;
    ctx.logger.warn(
      `none of the ${plural(stats.notHeld, 'host')} is in ${where}: nothing to compare (is this the ${store.shown === null ? 'cache' : 'store'} the batch runs use?)`,
    );
    return;
  }
  // It compares what batch runs stored, and fetches nothing: a trial switched the service's release, ran
  // `changes`, and took "no changes" for the service's word. Said how newer answers come in.
  if (stats.events === 0)
    ctx.logger.info(`no changes; ${compared}; these are the answers batch runs stored (batch FILE --refresh --changes fetches them again)`);
  else ctx.logger.info(`${compared}: ${n(stats.changed)} changed, ${plural(stats.events, 'event')}`);
}
