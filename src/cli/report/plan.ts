// What --dry-run reports: the input's figures, what the run would need and how long it would take, weighed
// against the quota last seen (the account's memo, as cli/run/quota-check.ts reads it) and the plan's monthly
// allowance. The text (stderr) and --json (stdout) give the same figures, computed once here.
import { PLANS } from '../../api/types.js';
import type { RunStats } from '../../run/stats.js';
import { quotaMemoTrusted } from '../../store/quota-memo.js';
import type { Context } from '../context.js';
import type { EnrichCommand } from '../options/table.js';
import { groupedNumber, humanDuration, relativeAge } from '../output/format.js';
import { wrapLines, wrapWidth } from '../output/wrap.js';
import { etaMs } from './progress-figures.js';
import type { SlotStore } from '../../store/contract.js';

/** About how long one request takes (the service's answer, not the limiter's wait): the estimate's share of it. */
const REQUEST_MS = 50;

/** The figures of a plan, as both the text and the JSON give them. */
interface Plan {
  cost: number;
  requests: number;
  estimatedMs: number | null;
  quota: { remaining: number; seenAt: number; trusted: boolean } | null;
  allowance: { monthly: number; plan: string | null } | null;
}

/** How the run would send its lookups: how many go in one request, and whether it reads a file (stdin is not weighed ahead). */
export interface Sending {
  batchSize: number;
  file: boolean;
  /** The account's slots: what the window already holds delays the run (a trial: told 400ms, took 56 s). */
  slots?: Pick<SlotStore, 'acceptedBetween' | 'pausedUntil'>;
}

async function planOf(ctx: Context<EnrichCommand>, s: RunStats, rpm: number | null, windowMs: number, sending: Sending): Promise<Plan> {
  // --max-lookups stops the run there: that is what it can cost.
  const cost = Math.min(s.lookupsNeeded, ctx.opts.maxLookups ?? Number.POSITIVE_INFINITY);
  const now = ctx.io.clock.now();
  const memo = await (await ctx.state()).quota();
  // A figure from before its reset says nothing of this month; an older one (over an hour) is shown for what
  // it is, but the run checks again at its first answer (cli/run/quota-check.ts), as this report says.
  const reset = memo?.reset ? Date.parse(memo.reset) : Number.NaN;
  const current = memo !== null && memo.remaining !== null && !(reset <= now);
  const quota = current ? { remaining: memo.remaining as number, seenAt: memo.seenAt, trusted: quotaMemoTrusted(memo, now) } : null;
  // The plan the user set, else the monthly limit the service's headers gave.
  const { plan } = await ctx.config();
  const allowance = plan !== null ? { monthly: PLANS[plan].monthly, plan } : memo?.limit ? { monthly: memo.limit, plan: null } : null;
  // A file run that cannot trust a remembered quota to cover it asks about one host first (cli/run/quota-check.ts,
  // run/quota-gate.ts), then sends the rest in whole batches: one request more than the lookups fill (a trial
  // was told 1 request and saw 2).
  const gated = sending.file && ctx.opts.allowPartial !== true && !(quota?.trusted === true && cost <= quota.remaining);
  const requests = gated && s.lookupsNeeded > 1 ? 1 + Math.ceil((s.lookupsNeeded - 1) / sending.batchSize) : s.requestsNeeded;
  // What the limiter allows, as the progress line's ETA reckons it: the window's free slots at once, the rest a
  // window at a time from when the oldest slot held frees (requests of an earlier run, or another machine's,
  // hold them too), and after a 429 pause; plus about REQUEST_MS a request of the last window.
  const held = rpm && sending.slots ? await sending.slots.acceptedBetween(now - windowMs, now + 1) : { count: 0, first: null };
  const pausedUntil = rpm && sending.slots ? await sending.slots.pausedUntil() : 0;
  const pace = { limit: rpm, windowMs, batchSize: 1, held: held.count, oldestHeldAt: held.first, pausedUntil };
  const limited = rpm ? (etaMs({ now, hostsLeft: requests, requestsSent: 0, startedAt: now, pace }) ?? 0) : 0;
  const estimatedMs = rpm ? limited + Math.min(requests, rpm) * REQUEST_MS : null;
  return { cost, requests, estimatedMs, quota, allowance };
}

/** Prints the plan of a dry run: figures on stderr (wrapped on a terminal), or one JSON object on stdout; warns when it costs more than is left or allowed. */
export async function printPlan(ctx: Context<EnrichCommand>, s: RunStats, rpm: number | null, windowMs: number, sending: Sending): Promise<void> {
  const n = groupedNumber;
  const p = await planOf(ctx, s, rpm, windowMs, sending);
  const now = ctx.io.clock.now();
  const overQuota = p.quota !== null && p.cost > p.quota.remaining;
  const overPlan = p.allowance !== null && p.cost > p.allowance.monthly;
  if (ctx.opts.json) {
    const plan = {
      rows: s.rows,
      valid: s.valid,
      invalid: s.invalid,
      duplicates: s.duplicates,
      distinct_hosts: s.valid - s.duplicates,
      cache_hits: s.cacheHits,
      lookups_needed: s.lookupsNeeded,
      requests_needed: p.requests,
      estimated_ms: p.estimatedMs,
      quota_remaining: p.quota?.remaining ?? null,
      quota_seen_at: p.quota ? new Date(p.quota.seenAt).toISOString() : null,
      quota_trusted: p.quota?.trusted ?? false,
      plan: p.allowance?.plan ?? null,
      monthly_allowance: p.allowance?.monthly ?? null,
      over_quota: overQuota,
      over_plan: overPlan,
    };
    ctx.io.stdout.write(`${JSON.stringify(plan)}\n`);
  } else {
    const capped = p.cost < s.lookupsNeeded ? [`--max-lookups stops at ${n(p.cost)}`] : [];
    // No rate: either the user turned pacing off (--rpm 0 leaves a rate said, but none), or none is known.
    const config = await ctx.config();
    const off = config.rpm === null && config.sources.rate !== 'default';
    const time = p.estimatedMs !== null ? humanDuration(p.estimatedMs) : off ? 'unknown (pacing off: --rpm 0)' : 'unknown (no rate known: set --plan or --rpm)';
    const seen = p.quota ? relativeAge(now - p.quota.seenAt) : '';
    const quota = p.quota
      ? p.quota.trusted
        ? `quota: ${n(p.quota.remaining)} left (seen ${seen})`
        : `quota: ${n(p.quota.remaining)} left when seen ${seen} (the run checks at its first answer)`
      : 'quota: not seen lately (the run checks at its first answer)';
    const allowance = p.allowance
      ? [p.allowance.plan ? `plan ${p.allowance.plan}: ${n(p.allowance.monthly)} a month` : `${n(p.allowance.monthly)} a month`]
      : [];
    const lines = [
      [`rows: read ${n(s.rows)}`, `valid ${n(s.valid)}`, `invalid ${n(s.invalid)}`, `duplicates ${n(s.duplicates)}`].join(' · '),
      [`hosts: distinct ${n(s.valid - s.duplicates)}`, `from cache ${n(s.cacheHits)}`, `lookups needed ${n(s.lookupsNeeded)}`, ...capped].join(' · '),
      [`requests needed ${n(p.requests)}`, `estimated time ${time}`].join(' · '),
      [quota, ...allowance].join(' · '),
    ];
    ctx.io.stderr.write(`${wrapLines(lines.join('\n'), wrapWidth(ctx.io.stderr))}\n`);
  }
  // Said in both modes: stderr is for the person, and a script reads over_quota / over_plan.
  if (overQuota && p.quota) {
    const when = p.quota.trusted ? `seen ${relativeAge(now - p.quota.seenAt)}` : `when seen ${relativeAge(now - p.quota.seenAt)}`;
    // With none left there is nothing to ask (cli/run/quota-check.ts, run/quota-gate.ts): the run's first request is refused
    // (a 402 spends nothing) and it stops there, or goes on if a pack was bought since.
    const then =
      p.quota.remaining === 0
        ? 'the run stops at its first request unless lookups were added since (a refused request costs nothing)'
        : ctx.opts.allowPartial === true
          ? 'with --allow-partial the run stops when they are spent'
          : 'if its first answer says so too, the run asks on a terminal and is refused elsewhere, unless --allow-partial (it then stops when they are spent)';
    ctx.logger.warn(`this run needs ${n(p.cost)} lookups but only ${n(p.quota.remaining)} are left (${when}) · ${then}`);
  }
  if (overPlan && p.allowance) {
    const whose = p.allowance.plan ? `plan ${p.allowance.plan} allows` : 'the service reported as the monthly limit';
    ctx.logger.warn(`this run needs ${n(p.cost)} lookups, more than the ${n(p.allowance.monthly)} a month ${whose}`);
  }
}
