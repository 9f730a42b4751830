// `domain-intel employees <host>` or `--input FILE`: one lookup per organisation (registrable domain).
// The list path's module (the whole pipeline: CSV reader and writer, limiter, SQLite) loads only for a list.
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { single } from '../run/single.js';

export default async function employees(ctx: Context<'employees'>): Promise<number> {
  const host = ctx.args.host as string | undefined;
  const input = ctx.opts.input;
  if (input !== undefined && host !== undefined) throw new UsageError('give either a host or --input, not both');
  if (input !== undefined) return (await import('../run/batch-run.js')).runList(ctx, { kind: 'employees', source: { file: input } });
  if (host === undefined) throw new UsageError('employees needs a host, or --input FILE (- for stdin)');
  // One host is shown, not written as a row: the change columns belong to a list's output.
  if (ctx.opts.changes) throw new UsageError('--changes needs --input FILE (one host is shown, not written as rows)');
  return single(ctx, {
    kind: 'employees',
    raw: host,
    fetch: (client, h, o) => client.employees(h, o),
    view: async (e) => (await import('../output/render.js')).employeesView(e, ctx.outStyle),
  });
}
