// `domain-intel catalog`: every tracked technology by category (free; cached locally).
import { UsageError } from '../../api/errors.js';
import { closest } from '../../api/closest.js';
import { loadCatalog } from '../catalog-source.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { relativeAge } from '../output/format.js';
import { catalogView, pickFormat, recordsJson } from '../output/render.js';
import { writeCsv } from '../rows.js';

export default async function catalog(ctx: Context<'catalog'>): Promise<number> {
  const { categories, cachedAt } = await loadCatalog(ctx, ctx.opts.refresh === true);
  if (cachedAt !== null) ctx.logger.info(`catalog from the cache, fetched ${relativeAge(Date.now() - cachedAt)} (--refresh fetches again)`);
  const wanted = ctx.opts.category;
  const shown = wanted === undefined ? categories : categories.filter((c) => c.category === wanted);
  if (wanted !== undefined && shown.length === 0) {
    const names = categories.map((c) => c.category);
    const near = closest(wanted, names);
    throw new UsageError(`no category ${JSON.stringify(wanted)}; ${near.length > 0 ? `did you mean ${near.join(', ')}?` : `categories: ${names.join(', ')}`}`);
  }
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
