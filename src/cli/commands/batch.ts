// `domain-intel batch [file|-]`: the main job. Streams the input through the pipeline to stdout or -o FILE.
import type { Context } from '../context.js';
import { runList } from '../run/batch-run.js';

export default async function batch(ctx: Context<'batch'>): Promise<number> {
  const file = (ctx.args.file as string | undefined) ?? '-';
  return runList(ctx, { kind: 'profile', source: { file } });
}
