// `domain-intel traffic <host>` or `--input FILE`: the monthly series, one lookup per host.
// The list path's module (the whole pipeline: CSV reader and writer, limiter, SQLite) loads only for a list.
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { single } from '../run/single.js';

export default async function traffic(ctx: Context<'traffic'>): Promise<number> {
  const host = ctx.args.host as string | undefined;
  const input = ctx.opts.input;
  if (input !== undefined && host !== undefined) throw new UsageError('give either a host or --input, not both');
  if (input !== undefined) return (await import('../run/batch-run.js')).runList(ctx, { kind: 'traffic', source: { file: input } });
  if (host === undefined) throw new UsageError('traffic needs a host, or --input FILE (- for stdin)');
  // One host is shown, not written as a row: the change columns belong to a list's output.
  if (ctx.opts.changes) throw new UsageError('--changes needs --input FILE (one host is shown, not written as rows)');
  return single(ctx, {
    kind: 'traffic',
    raw: host,
    fetch: (client, h, o) => client.traffic(h, o),
    view: async (t) => (await import('../output/render.js')).trafficView(t, ctx.outStyle),
  });
}
