// `domain-intel lookup <host...>`: one host through the domain endpoint, several through the batch endpoint.
// The list path's module (the whole pipeline: CSV reader and writer, limiter, SQLite) loads only for a list.
import type { Context } from '../context.js';
import { single } from '../run/single.js';

export default async function lookup(ctx: Context<'lookup'>): Promise<number> {
  const hosts = ctx.args.hosts as string[];
  if (hosts.length === 1) {
    return single(ctx, {
      kind: 'profile',
      raw: hosts[0] as string,
      fetch: (client, host, o) => client.domain(host, o),
      view: async (p) => (await import('../output/render.js')).profileView(p, ctx.outStyle, ctx.io.stdout.columns),
    });
  }
  return (await import('../run/batch-run.js')).runList(ctx, { kind: 'profile', source: { args: hosts } });
}
