// What a command gets: its options and arguments, the io it runs with, a logger, styles, the stop signals,
// and lazy access to settings, configuration, the client and the cache (services.ts).
import type { Command } from 'commander';
import { hintFor } from './report/hints.js';
import type { Io } from './io.js';
import { givenOptions, type Opts } from './options/table.js';
import { createLogger, redact, type Logger } from './output/logger.js';
import { colorEnabled, createStyle, sanitizeForTerminal, type Style } from './output/terminal.js';
import { createServices, type Services } from './services.js';
import { watchStops } from './stops.js';

export interface CommandModule {
  default(ctx: Context): Promise<number>;
}

/** What command C gets; C is the command's path ('cache prune'), or a union for a module serving several. */
export type Context<C extends string = string> = CommandContext<Opts<C>>;

// Generic over the options, not the command: TypeScript then compares two contexts by their options.
interface CommandContext<O> extends Services {
  /** The parsed options, typed from the option table (cli/options/table.ts). */
  readonly opts: O;
  /** The commander command being run. */
  readonly command: Command;
  readonly args: Record<string, unknown>;
  readonly io: Io;
  /** Colours for stderr (progress, summaries, messages). */
  readonly style: Style;
  /** Colours for stdout (tables): decided by stdout's own terminal, so `-f table > file` gets none. */
  readonly outStyle: Style;
  readonly logger: Logger;
  /** Aborted on the first Ctrl-C (a second one exits at once). */
  readonly interrupted: AbortSignal;
  /** Aborted when the reader of stdout went away (EPIPE). */
  readonly outputClosed: AbortSignal;
  /** Text made safe for the terminal, with secrets masked. */
  clean(text: string): string;
  redact(text: string): string;
  /** What to do about an error, e.g. which key was refused and how to replace it. */
  hintFor(err: unknown): string | null;
  /** Registers work to run when the command ends. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/** Builds the context for one run of a command. */
export function createContext(cmd: Command, args: Record<string, unknown>, io: Io): Context {
  const opts = cmd.optsWithGlobals<Opts<string>>();
  const secrets: string[] = [];
  const style = createStyle(colorEnabled(io.stderr, io.env));
  const logger = createLogger({
    stream: io.stderr,
    style,
    quiet: opts.quiet === true,
    debug: opts.debug === true,
    secrets,
    now: () => io.clock.now(),
  });
  const closers: (() => Promise<void> | void)[] = [];
  const onClose = (fn: () => Promise<void> | void): void => void closers.push(fn);
  const stops = watchStops(io);
  const services = createServices({ opts, flags: givenOptions(cmd), env: io.env, io, logger, secrets, onClose });

  return {
    opts,
    command: cmd,
    args,
    io,
    style,
    outStyle: createStyle(colorEnabled(io.stdout, io.env)),
    logger,
    interrupted: stops.interrupted,
    outputClosed: stops.outputClosed,
    get quota() {
      return services.quota;
    },
    get keySource() {
      return services.keySource;
    },
    get baseUrl() {
      return services.baseUrl;
    },
    settings: services.settings,
    config: services.config,
    client: services.client,
    state: services.state,
    store: services.store,
    clean: (text) => sanitizeForTerminal(redact(text, secrets)),
    redact: (text) => redact(text, secrets),
    hintFor: (err) => {
      const given = (opts as { output?: unknown }).output;
      const output = typeof given === 'string' && given !== '-' ? given : null;
      return hintFor(err, { keySource: services.keySource, lastQuota: services.quota, baseUrl: services.baseUrl, output });
    },
    onClose,
    async close() {
      stops.release();
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (err) {
          // A failed cleanup (closing the cache, recording the quota) must not hide the command's own result.
          logger.debug(`cleanup failed: ${(err as Error).message}`);
        }
      }
    },
  };
}
