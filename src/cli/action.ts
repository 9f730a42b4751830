// Runs one command: gives its module (loaded on demand by main.ts) a context, and turns whatever it throws
// into one reported failure (report.ts) and an exit code.
import type { Command } from 'commander';
import { createContext, type CommandModule, type Context } from './context.js';
import { EXIT } from './exit-codes.js';
import type { Io } from './io.js';
import { failureOf, report } from './report/errors.js';
import { CacheUnavailableError, cacheWayOut } from '../store/errors.js';

/** Runs the command in `command` with the parsed options of `cmd`; returns its exit code. */
export async function runAction(command: Promise<CommandModule>, cmd: Command, args: Record<string, unknown>, io: Io): Promise<number> {
  const ctx = createContext(cmd, args, io);
  let code: number;
  try {
    const mod = await command;
    code = await mod.default(ctx);
  } catch (err) {
    // Once the reader of stdout has gone, nobody reads a message either: the pipe's own code says it.
    code = ctx.outputClosed.aborted ? EXIT.PIPE : reportError(ctx, err);
  }
  await ctx.close();
  if (ctx.outputClosed.aborted && code === EXIT.OK) code = EXIT.PIPE;
  return code;
}

/** Reports the error that ended a command (with its stack under --debug) and returns its exit code. */
function reportError(ctx: Context, err: unknown): number {
  const failure = failureOf(err, ctx.hintFor(err));
  // The cache's way out names --no-cache, which only the enriching commands take (quota, cache stats refuse it).
  if (err instanceof CacheUnavailableError && !ctx.command.options.some((opt) => opt.long === '--no-cache')) {
    failure.message = `${err.reason}; ${cacheWayOut(false)}`;
  }
  const code = report(ctx, failure);
  const stack = (err as { stack?: unknown }).stack;
  // The message in a stack can quote the service (an error code): cleaned like every other line, not only redacted.
  if (ctx.opts.debug && typeof stack === 'string') {
    ctx.io.stderr.write(
      `${stack
        .split('\n')
        .map((l) => ctx.clean(l))
        .join('\n')}\n`,
    );
  }
  return code;
}
