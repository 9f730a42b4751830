// `domain-intel traffic <host>` or `--input FILE`: the monthly series, one lookup per host.
import type { Context } from '../context.js';
import { hostOrList } from '../run/host-or-list.js';

export default async function traffic(ctx: Context<'traffic'>): Promise<number> {
  return hostOrList(ctx, {
    kind: 'traffic',
    fetch: (client, h, o) => client.traffic(h, o),
    view: async (t) => (await import('../output/render.js')).trafficView(t, ctx.outStyle),
  });
}
