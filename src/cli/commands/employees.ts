// `domain-intel employees <host>` or `--input FILE`: one lookup per organisation (registrable domain).
import type { Context } from '../context.js';
import { hostOrList } from '../run/host-or-list.js';

export default async function employees(ctx: Context<'employees'>): Promise<number> {
  return hostOrList(ctx, {
    kind: 'employees',
    fetch: (client, h, o) => client.employees(h, o),
    view: async (e) => (await import('../output/render.js')).employeesView(e, ctx.outStyle),
  });
}
