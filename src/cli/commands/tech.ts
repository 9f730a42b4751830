// `domain-intel tech <name>`: domains per technology (free). A name not in the catalog gets suggestions.
import { NotFoundError } from '../../api/errors.js';
import { closest } from '../../api/closest.js';
import { withRetry } from '../../api/retry.js';
import { loadCatalog } from '../catalog-source.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { pickFormat, recordsJson, technologyView } from '../output/render.js';
import { writeCsv } from '../rows.js';

export default async function tech(ctx: Context<'tech'>): Promise<number> {
  const name = ctx.args.name as string;
  const client = await ctx.client();
  try {
    const r = await withRetry(() => client.technology(name), { signal: ctx.interrupted });
    const format = pickFormat(ctx.opts.format, ctx.io.stdout.isTTY);
    if (format === 'table') ctx.io.stdout.write(`${technologyView(r.data, ctx.outStyle)}\n`);
    else if (format === 'csv') await writeCsv(ctx, ['tech', 'domains'], [[r.data.tech, r.data.domains]]);
    else ctx.io.stdout.write(recordsJson([r.data], format));
    return EXIT.OK;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const { categories } = await loadCatalog(ctx, false);
    const near = closest(
      name,
      categories.flatMap((c) => c.technologies.map((t) => t.tech)),
    );
    const hint = near.length > 0 ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(', ')}?` : '; `domain-intel catalog` lists them';
    throw new NotFoundError(`no technology named ${JSON.stringify(name)} in the catalog${hint}`, { code: 'not_found', host: name, operation: 'technology' });
  }
}
