// `domain-intel quota`: the last quota the service reported, and how old that figure is. Costs nothing.
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { formatQuotaLine, relativeAge } from '../output/format.js';

export default async function quota(ctx: Context): Promise<number> {
  // Recorded in the cache file by every metered call (under --no-cache too), so read from there in any case.
  const [{ cacheDir }, { readLastQuota }] = await Promise.all([ctx.config(), import('../../store/quota-memo.js')]);
  const q = await readLastQuota({ dir: cacheDir });
  if (!q) {
    ctx.logger.info('no quota seen yet: it is reported with every metered lookup');
    return EXIT.OK;
  }
  const info = { limit: q.limit, remaining: q.remaining, reset: q.reset ? new Date(q.reset) : null, resetRaw: q.resetRaw, seenAt: q.seenAt };
  if (ctx.opts.json || !ctx.io.stdout.isTTY) ctx.io.stdout.write(`${JSON.stringify({ ...q, age_ms: Date.now() - q.seenAt })}\n`);
  else ctx.io.stdout.write(`${formatQuotaLine(info, Date.now())} (seen ${relativeAge(Date.now() - q.seenAt)})\n`);
  return EXIT.OK;
}
