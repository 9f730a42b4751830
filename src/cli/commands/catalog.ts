// `domain-intel catalog`: every tracked technology by category (free; cached locally).
import { caseMatch, closest } from '../../api/closest.js';
import { UsageError } from '../../api/errors.js';
import type { CatalogCategory } from '../../api/types.js';
import { loadCatalog, mayPredateRelease } from '../run/catalog-source.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { relativeAge } from '../output/format.js';
import { pickFormat } from '../output/format-choice.js';
import { catalogView, recordsJson } from '../output/render.js';
import { writeCsv } from '../output/rows.js';

export default async function catalog(ctx: Context<'catalog'>): Promise<number> {
  const { categories, cachedAt, staleCause } = await loadCatalog(ctx, ctx.opts.refresh === true);
  const now = ctx.io.clock.now();
  // Where the catalog came from is noise on every call; it is said under --verbose, or when it matters: the
  // copy may be a data release behind, or stands in for a fetch that failed.
  if (cachedAt !== null) {
    const age = `catalog from the cache, fetched ${relativeAge(now - cachedAt)}`;
    if (staleCause !== null) ctx.logger.warn(`${age}: a fresh one could not be had (${staleCause})`);
    else if (mayPredateRelease(cachedAt, now)) ctx.logger.info(`${age}, before this month's data release (--refresh fetches the current one)`);
    else if (ctx.opts.verbose === true) ctx.logger.info(`${age} (--refresh fetches again)`);
  } else if (ctx.opts.verbose === true) ctx.logger.info('catalog fetched from the service now, and kept in the cache');
  const shown = ctx.opts.category === undefined ? categories : [inCategory(ctx, categories, ctx.opts.category)];
  const format = pickFormat(ctx.opts.format, ctx.io.stdout.isTTY);
  if (format === 'table') ctx.io.stdout.write(`${catalogView(shown, ctx.outStyle, ctx.io.stdout.columns)}\n`);
  else if (format === 'csv') {
    await writeCsv(
      ctx,
      ['category', 'tech', 'domains'],
      shown.flatMap((c) => c.technologies.map((t) => [c.category, t.tech, t.domains])),
    );
  } else
    ctx.io.stdout.write(
      recordsJson(
        shown.flatMap((c) => c.technologies.map((t) => ({ category: c.category, ...t }))),
        format,
      ),
    );
  return EXIT.OK;
}

/** The category named `wanted`: as typed, else its one spelling that matches ignoring case (said); else a usage error. */
function inCategory(ctx: Context<'catalog'>, categories: CatalogCategory[], wanted: string): CatalogCategory {
  const named = (slug: string): CatalogCategory | undefined => categories.find((c) => c.category === slug);
  const exact = named(wanted);
  if (exact) return exact;
  const slugs = categories.map((c) => c.category);
  const one = caseMatch(wanted, slugs);
  if (one !== undefined) {
    ctx.logger.info(`no category ${JSON.stringify(wanted)}; using ${JSON.stringify(one)}, the one that matches ignoring case`);
    return named(one) as CatalogCategory;
  }
  const near = closest(wanted, slugs);
  throw new UsageError(`no category ${JSON.stringify(wanted)}; ${near.length > 0 ? `did you mean ${near.join(', ')}?` : `categories: ${slugs.join(', ')}`}`);
}
