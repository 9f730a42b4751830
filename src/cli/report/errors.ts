// The one place an error becomes output, whoever found it (a command, the end of a run, commander): one
// line on stderr, or under --json the object {error, code, host, exit} (and a hint when there is one).
import { CommanderError } from 'commander';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import type { Io } from '../io.js';
import { createLogger, type Logger } from '../output/logger.js';
import { colorEnabled, createStyle, sanitizeForTerminal } from '../output/terminal.js';

/** An error as the user is told about it. */
export interface Failure {
  message: string;
  /** Machine-readable: the service's code (not_found, invalid_key...) or ours (usage, incomplete...). */
  code: string;
  /** The host or technology it is about, if any. */
  host: string | null;
  exit: number;
  hint?: string | null;
  /** A run that finished with rows in error is a warning on a terminal; everything else an error. */
  level?: 'error' | 'warn';
}

/** Where a failure is written: a Context is one. */
export interface ReportTarget {
  readonly opts: { readonly json?: unknown };
  readonly io: { readonly stderr: NodeJS.WritableStream };
  readonly logger: Logger;
  clean(text: string): string;
  redact(text: string): string;
}

/** Writes one failure and returns its exit code. */
export function report(to: ReportTarget, f: Failure): number {
  if (to.opts.json === true) {
    const obj = { error: to.clean(f.message), code: f.code, host: f.host, exit: f.exit, ...(f.hint ? { hint: f.hint } : {}) };
    to.io.stderr.write(`${to.redact(JSON.stringify(obj))}\n`);
  } else if (f.level === 'warn') to.logger.warn(f.message);
  else to.logger.error(f.hint ? `${f.message}; ${f.hint}` : f.message);
  return f.exit;
}

/** What an error that ended a command means for the user; its exit code comes from exitCodeFor. */
export function failureOf(err: unknown, hint: string | null = null): Failure {
  const exit = exitCodeFor(err);
  if (err instanceof CommanderError) return { message: usageText(err.message), code: 'usage', host: null, exit };
  const e = err as { message?: unknown; code?: unknown; host?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  return {
    message: exit === EXIT.FAILURE ? `unexpected failure: ${message} (run again with --debug and report it)` : message,
    code: typeof e.code === 'string' ? e.code : 'failure',
    host: typeof e.host === 'string' ? e.host : null,
    exit,
    hint,
  };
}

/** commander's message ("error: unknown option '--x'\n(Did you mean --y?)") as one line without the prefix. */
function usageText(text: string): string {
  if (text === '(outputHelp)') return 'a subcommand is needed; see the help above';
  return text
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ');
}

/**
 * Reports an error commander found while parsing (unknown command or option, bad choice, missing argument),
 * before any command ran; `json` is whether --json was given.
 */
export function reportUsage(io: Io, err: CommanderError, json: boolean): number {
  // A command group run bare (`domain-intel keys`) has answered with its help on stderr: that says it all.
  if (err.code === 'commander.help' && !json) return exitCodeFor(err);
  const style = createStyle(colorEnabled(io.stderr, io.env));
  const logger = createLogger({ stream: io.stderr, style, quiet: false, debug: false, secrets: [] });
  return report({ opts: { json }, io, logger, clean: sanitizeForTerminal, redact: (t) => t }, failureOf(err));
}
