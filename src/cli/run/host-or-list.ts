// The shape `traffic` and `employees` share: one host given (shown, cache first), or `--input FILE` (a list run
// through the whole pipeline, whose module loads only for a list).
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { type SingleSpec, single } from './single.js';

/** Runs `kind` for the host argument or for `--input FILE`; returns the exit code. */
export async function hostOrList<T>(ctx: Context<'traffic' | 'employees'>, spec: Omit<SingleSpec<T>, 'raw'>): Promise<number> {
  const host = ctx.args.host as string | undefined;
  const input = ctx.opts.input;
  if (input !== undefined && host !== undefined) throw new UsageError('give either a host or --input, not both');
  if (input !== undefined) return (await import('./batch-run.js')).runList(ctx, { kind: spec.kind, source: { file: input } });
  if (host === undefined) throw new UsageError(`${spec.kind} needs a host, or --input FILE (- for stdin)`);
  // One host is shown, not written as a row: the change columns belong to a list's output.
  if (ctx.opts.changes) throw new UsageError('--changes needs --input FILE (one host is shown, not written as rows)');
  return single(ctx, { ...spec, raw: host });
}
