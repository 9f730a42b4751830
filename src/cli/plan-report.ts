// What --dry-run reports: the input's figures, what the run would need and how long it would take.
import type { RunStats } from '../pipeline/stats.js';
import type { Context } from './context.js';
import { humanDuration } from './output/format.js';

export function printPlan(ctx: Context, s: RunStats, rpm: number | null, windowMs: number): void {
  const requests = s.requestsNeeded;
  const eta = rpm ? Math.max(0, Math.ceil(requests / rpm) - 1) * windowMs : null;
  const q = s.quota;
  const lines = [
    `rows ${s.rows} · valid ${s.valid} · invalid ${s.invalid} · duplicates ${s.duplicates}`,
    `cache hits ${s.cacheHits} · lookups needed ${s.lookupsNeeded} · requests needed ${requests}`,
    `estimated time ${eta === null ? 'unknown (plan not set)' : humanDuration(eta + Math.min(requests, rpm ?? 0) * 50)}`,
  ];
  if (q) lines.push(`quota remaining ${q.remaining ?? '?'} (last seen)`);
  if (ctx.opts.json)
    ctx.io.stdout.write(
      `${JSON.stringify({ rows: s.rows, valid: s.valid, invalid: s.invalid, duplicates: s.duplicates, cache_hits: s.cacheHits, lookups_needed: s.lookupsNeeded, requests_needed: requests, estimated_ms: eta, quota_remaining: q?.remaining ?? null })}\n`,
    );
  else ctx.io.stderr.write(`${lines.join('\n')}\n`);
}
