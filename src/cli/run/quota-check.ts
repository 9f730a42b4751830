// Whether the quota left can cover a file run, decided on the freshest figure there is: the account's memo
// while it can be trusted (seen under an hour ago, reset not passed), else the first answer of the run itself
// (a gate the run awaits with one request in flight). A short quota asks on a terminal and refuses elsewhere
// unless --allow-partial; a pack or a new month needs no flag, since the answer then says what is left.
import { stat } from 'node:fs/promises';
import type { QuotaInfo } from '../../api/types.js';
import { type JobInput, runJob } from '../../run/job.js';
import { quotaMemoTrusted } from '../../store/quota-memo.js';
import type { Context } from '../context.js';
import { groupedNumber as n, relativeAge } from '../output/format.js';
import type { EnrichCommand } from '../options/table.js';
import { confirm } from '../prompt.js';

/** A run the quota left cannot cover. */
export interface QuotaShort {
  needed: number;
  remaining: number;
}

/** What the check decided before the run. */
export type QuotaCheck =
  /** Refused up front; nothing was spent. */
  | { refused: string }
  /** Run; `gate` (when set) is the run's quotaGate, and `short()` says why it stopped the run, if it did. */
  | { refused: null; gate?: (quota: QuotaInfo) => Promise<boolean>; short(): QuotaShort | null };

type RunOptions = Parameters<typeof runJob>[2];

/**
 * Weighs the quota against a file run: up front on a trusted memo, else on the run's first answer.
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
  if (ctx.opts.allowPartial || file === null || file === '-') return { refused: null, short: () => null };
  const size = (await stat(file)).size;
  const lookupsNeeded = async (remaining: number): Promise<number | null> => {
    if (remaining * 4 >= size) return null; // every row takes at least 4 bytes, so it cannot need more
    const { stats } = await runJob(input(), null, { ...base, dryRun: true });
    const needed = Math.min(stats.lookupsNeeded, base.maxLookups ?? Number.POSITIVE_INFINITY);
    return needed <= remaining ? null : needed;
  };
  const onTerminal = ctx.io.stdin.isTTY === true && ctx.io.stderr.isTTY === true;
  const ask = (what: string) => aroundAsk(() => confirm(ctx.io.stdin, ctx.io.stderr, `${what}. Run until the quota is spent?`));

  const now = ctx.io.clock.now();
  const memo = await (await ctx.state()).quota();
  // A trusted 0 decides nothing: a 402 spends nothing (§7), and after a pack the first answer says how much
  // is left. A stale memo decides nothing either.
  if (memo !== null && memo.remaining !== null && memo.remaining > 0 && quotaMemoTrusted(memo, now)) {
    const needed = await lookupsNeeded(memo.remaining);
    if (needed === null) return { refused: null, short: () => null };
    const what = `this run needs ${n(needed)} lookups but only ${n(memo.remaining)} were left ${relativeAge(now - memo.seenAt)}`;
    if (onTerminal) return (await ask(what)) ? { refused: null, short: () => null } : { refused: 'cancelled; nothing was spent' };
    return { refused: `${what}; add --allow-partial to run until the quota is spent` };
  }

  let short: QuotaShort | null = null;
  const gate = async (quota: QuotaInfo): Promise<boolean> => {
    if (quota.remaining === null) return true; // the dispatcher asks only with a figure; nothing to weigh
    const needed = await lookupsNeeded(quota.remaining);
    if (needed === null) return true;
    if (onTerminal && (await ask(`this run needs ${n(needed)} lookups but only ${n(quota.remaining)} are left`))) return true;
    short = { needed, remaining: quota.remaining };
    return false;
  };
  return { refused: null, gate, short: () => short };
}
