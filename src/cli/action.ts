// Runs one command: gives its module (loaded on demand by main.ts) a context, maps whatever it throws to one
// clear stderr line (or a JSON object with --json) and an exit code. Nothing else in the CLI calls process.exit.
import type { Command } from 'commander';
import { createContext, type CommandModule, type Context } from './context.js';
import { EXIT, exitCodeFor } from './exit-codes.js';

/** Runs the command in `command` with the parsed options of `cmd`, then exits with its code. */
export async function runAction(command: Promise<CommandModule>, cmd: Command, args: Record<string, unknown>): Promise<void> {
  const ctx = createContext(cmd, args);
  let code: number;
  try {
    const mod = await command;
    code = await mod.default(ctx);
  } catch (err) {
    code = ctx.outputClosed.aborted ? EXIT.PIPE : reportError(ctx, err);
  }
  await ctx.close();
  if (ctx.outputClosed.aborted && code === EXIT.OK) code = EXIT.PIPE;
  await flush(process.stdout);
  await flush(process.stderr);
  process.exit(code);
}

/** Prints one line (or a JSON object) for an error and returns its exit code. */
export function reportError(ctx: Context, err: unknown): number {
  const code = exitCodeFor(err);
  const e = err as { message?: string; code?: string; host?: string; stack?: string };
  let message = e.message ?? String(err);
  const hint = ctx.hintFor(err);
  if (code === EXIT.FAILURE) message = `unexpected failure: ${message} (run again with --debug and report it)`;
  if (ctx.opts.json) {
    const obj = {
      error: ctx.clean(message),
      code: typeof e.code === 'string' ? e.code : 'failure',
      host: e.host ?? null,
      exit: code,
      ...(hint ? { hint } : {}),
    };
    process.stderr.write(`${ctx.redact(JSON.stringify(obj))}\n`);
  } else {
    ctx.logger.error(hint ? `${message}; ${hint}` : message);
  }
  // The message in a stack can quote the service (an error code): cleaned like every other line, not only redacted.
  if (ctx.opts.debug && e.stack)
    process.stderr.write(
      `${e.stack
        .split('\n')
        .map((l) => ctx.clean(l))
        .join('\n')}\n`,
    );
  return code;
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
