// Whether the quota left can cover a file run. The account's memo, while it can be trusted (seen under an
// hour ago, reset not passed), may let a run go at full pace when it covers it, but never refuses one by
// itself: a pack added a minute ago would be refused (issue 26). Otherwise the first answer of the run
// decides (a gate the run awaits with one request in flight, about one host: a lookup the run needs anyway,
// or a 402, which costs nothing). A short quota asks on a terminal and refuses elsewhere unless
// --allow-partial; a pack or a new month needs no flag.
import { stat } from 'node:fs/promises';
import type { QuotaInfo } from '../../api/types.js';
import { type JobInput, runJob } from '../../run/job.js';
import { quotaMemoTrusted } from '../../store/quota-memo.js';
import type { Context } from '../context.js';
import { groupedNumber as n } from '../output/format.js';
import type { EnrichCommand } from '../options/table.js';
import { confirm } from '../prompt.js';
import type { QuotaShort } from '../exit-codes.js';

/** How the run is checked: `gate` (when set) is the run's quotaGate, and `short()` says why it stopped the run, if it did. */
export interface QuotaCheck {
  gate?: (quota: QuotaInfo) => Promise<boolean>;
  short(): QuotaShort | null;
}

type RunOptions = Parameters<typeof runJob>[2];

/**
 * Weighs the quota against a file run: a trusted memo that covers it lets it run, else the run's first answer decides.
 * `aroundAsk` wraps a question on the terminal (the run's progress line stands aside for it).
 */
export async function checkQuota(
  ctx: Context<EnrichCommand>,
  file: string | null,
  input: () => JobInput,
  base: RunOptions,
  aroundAsk: (ask: () => Promise<boolean>) => Promise<boolean>,
): Promise<QuotaCheck> {
  // Only files are planned ahead (stdin can be read once): a stdin run simply stops at the quota (402).
  if (ctx.opts.allowPartial || file === null || file === '-') return { short: () => null };
  const size = (await stat(file)).size;
  const lookupsNeeded = async (remaining: number): Promise<number | null> => {
    if (remaining * 4 >= size) return null; // every row takes at least 4 bytes, so it cannot need more
    const { stats } = await runJob(input(), null, { ...base, dryRun: true });
    const needed = Math.min(stats.lookupsNeeded, base.maxLookups ?? Number.POSITIVE_INFINITY);
    return needed <= remaining ? null : needed;
  };
  const onTerminal = ctx.io.stdin.isTTY === true && ctx.io.stderr.isTTY === true;
  const ask = (what: string) => aroundAsk(() => confirm(ctx.io.stdin, ctx.io.stderr, `${what}. Run until the quota is spent?`));

  // A fresh memo that covers the run spares it the gate's one request at a time; one that does not decides nothing.
  const memo = await (await ctx.state()).quota();
  if (memo?.remaining && quotaMemoTrusted(memo, ctx.io.clock.now()) && (await lookupsNeeded(memo.remaining)) === null) return { short: () => null };

  let short: QuotaShort | null = null;
  const gate = async (quota: QuotaInfo): Promise<boolean> => {
    if (quota.remaining === null) return true; // the dispatcher asks only with a figure; nothing to weigh
    const needed = await lookupsNeeded(quota.remaining);
    if (needed === null) return true;
    if (onTerminal && (await ask(`this run needs ${n(needed)} lookups but only ${n(quota.remaining)} are left`))) return true;
    short = { needed, remaining: quota.remaining };
    return false;
  };
  return { gate, short: () => short };
}
