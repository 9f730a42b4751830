// `domain-intel tech <name>`: domains per technology (free). A name not in the catalog is taken in its one
// spelling that matches ignoring case (said on stderr), else it fails with suggestions.
import { closest, caseMatch } from '../../api/closest.js';
import { NotFoundError } from '../../api/errors.js';
import { withRetry } from '../../api/retry.js';
import type { TechnologyCount } from '../../api/types.js';
import { loadCatalog } from '../run/catalog-source.js';
import type { Context } from '../context.js';
import { timing } from '../io.js';
import { EXIT } from '../exit-codes.js';
import { pickFormat } from '../output/format-choice.js';
import { recordsJson, technologyView } from '../output/render.js';
import { writeCsv } from '../output/rows.js';

export default async function tech(ctx: Context<'tech'>): Promise<number> {
  const data = await technology(ctx, ctx.args.name as string);
  const format = pickFormat(ctx.opts.format, ctx.io.stdout.isTTY);
  if (format === 'table') ctx.io.stdout.write(`${technologyView(data, ctx.outStyle)}\n`);
  else if (format === 'csv') await writeCsv(ctx, ['tech', 'domains'], [[data.tech, data.domains]]);
  else ctx.io.stdout.write(recordsJson([data], format)); // one record, as an array like every listing
  return EXIT.OK;
}

/** The technology's count; on a 404, the catalog's one case-insensitive match, or an error with suggestions. */
async function technology(ctx: Context<'tech'>, name: string): Promise<TechnologyCount> {
  const client = await ctx.client();
  const ask = async (n: string): Promise<TechnologyCount> =>
    (await withRetry((patience) => client.technology(n, { patience }), { signal: ctx.interrupted, timeoutMs: client.timeoutMs, ...timing(ctx.io.clock) })).data;
  try {
    return await ask(name);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    const { categories } = await loadCatalog(ctx, false);
    const names = categories.flatMap((c) => c.technologies.map((t) => t.tech));
    const one = caseMatch(name, names);
    if (one !== undefined && one !== name) {
      ctx.logger.info(`no technology named ${JSON.stringify(name)}; using ${JSON.stringify(one)}, the catalog's one name that matches ignoring case`);
      return ask(one);
    }
    const near = closest(name, names);
    const hint = near.length > 0 ? `; did you mean ${near.map((n) => JSON.stringify(n)).join(', ')}?` : '; `domain-intel catalog` lists them';
    throw new NotFoundError(`no technology named ${JSON.stringify(name)} in the catalog${hint}`, { code: 'not_found', host: name, operation: 'technology' });
  }
}
