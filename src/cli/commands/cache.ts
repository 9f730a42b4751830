// `domain-intel cache stats|clear|prune`.
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { runs } from '../options/table.js';
import { groupedNumber, humanDuration } from '../output/format.js';
import { renderKeyValue } from '../output/table.js';

export default async function cache(ctx: Context<'cache stats' | 'cache clear' | 'cache prune'>): Promise<number> {
  const [{ CacheCorruptError }, { discardStore, storeWhere }] = await Promise.all([import('../../store/errors.js'), import('../../store/open.js')]);
  if (ctx.args.sub === 'clear') {
    const shown = (await ctx.config()).store.shown;
    // A shared store is the team's: clearing it is asked first (refused unasked without a terminal), and names it.
    if (shown !== null && !(await clearAgreed(ctx as Context<'cache clear'>, shown))) return EXIT.USAGE;
    // A damaged file cannot be opened to be cleared: remove it instead, which is what clearing means.
    try {
      await ctx.store();
    } catch (err) {
      if (!(err instanceof CacheCorruptError)) throw err;
      // The damaged store is the one named (the default file, or the service's own).
      const removed = await discardStore(storeWhere(await ctx.config()), err.path);
      ctx.logger.info(`removed the damaged cache (${removed.length} files)`);
      return EXIT.OK;
    }
  }
  const store = await ctx.store();
  if (!store) throw new UsageError('the cache is turned off (--no-cache)');
  switch (ctx.args.sub) {
    case 'stats': {
      const s = await store.stats();
      if (!ctx.io.stdout.isTTY) {
        ctx.io.stdout.write(`${JSON.stringify(s)}\n`);
        return EXIT.OK;
      }
      const now = ctx.io.clock.now();
      ctx.io.stdout.write(
        `${renderKeyValue(
          [
            [(await ctx.config()).store.url === null ? 'file' : 'store', s.path],
            ['answers', s.entries],
            ...Object.entries(s.byEndpoint).map(([k, v]): [string, unknown] => [`  ${k}`, v]),
            ['found / missing', `${groupedNumber(s.found)} / ${groupedNumber(s.missing)}`],
            ['past answers', s.history],
            ['oldest', s.oldest === null ? null : `${humanDuration(now - s.oldest)} ago`],
            ['newest', s.newest === null ? null : `${humanDuration(now - s.newest)} ago`],
            ['size', `${(s.bytes / 1048576).toFixed(1)} MiB`],
          ],
          { style: ctx.outStyle, width: ctx.io.stdout.columns },
        )}\n`,
      );
      return EXIT.OK;
    }
    case 'clear':
      ctx.logger.info(`removed ${groupedNumber(await store.clear())} cached answers`);
      return EXIT.OK;
    case 'prune':
      if (!runs(ctx, 'cache prune')) break; // --max-age is prune's alone
      ctx.logger.info(`removed ${groupedNumber(await store.prune(ctx.opts.maxAge))} answers older than ${humanDuration(ctx.opts.maxAge)}`);
      // History only on request: a nightly user's changes reach back further than the answers they re-use.
      if (ctx.opts.history !== undefined) {
        ctx.logger.info(
          `removed ${groupedNumber(await store.pruneHistory(ctx.opts.history))} past answers replaced over ${humanDuration(ctx.opts.history)} ago`,
        );
      }
      return EXIT.OK;
  }
  throw new UsageError(`unknown cache subcommand ${String(ctx.args.sub)}`);
}

/**
 * Whether clearing the shared store `shown` (its URL, password masked) goes ahead: --yes, or a yes at a
 * terminal. Without a terminal and without --yes it is refused in one line: a cron job that meant the local
 * cache must not empty the team's store because DOMAIN_INTEL_STORE was set around it.
 */
async function clearAgreed(ctx: Context<'cache clear'>, shown: string): Promise<boolean> {
  if (ctx.opts.yes === true) return true;
  if (ctx.io.stdin.isTTY !== true || ctx.io.stderr.isTTY !== true)
    throw new UsageError(`cache clear would remove every answer and past answer in the shared store ${shown}: give --yes to do it`);
  const { confirm } = await import('../prompt.js');
  if (await confirm(ctx.io.stdin, ctx.io.stderr, `remove every answer and past answer in the shared store ${shown}, for everyone who uses it?`)) return true;
  ctx.logger.info('nothing removed');
  return false;
}
