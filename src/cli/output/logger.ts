// The stderr logger for commands. Every line is sanitised (messages quote hosts and service text) and then
// redacted: the API key should never reach a message, but if a bug or a service echo puts it there, the
// logger is the last place to stop it.
import type { QuotaInfo } from '../../api/types.js';
import { formatQuotaLine } from './format.js';
import { type Style, sanitizeForTerminal } from './terminal.js';
import { wrapLine, wrapWidth } from './wrap.js';

/** Replace each secret (8+ chars) in `text` by '…' and its last 4 characters. */
export function redact(text: string, secrets: readonly string[]): string {
  // Longest first, so a secret containing another is masked whole. Short strings are skipped: masking
  // every "abc" in a log would hide more than it protects.
  const usable = secrets.filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of usable) {
    if (out.includes(secret)) out = out.split(secret).join(`…${secret.slice(-4)}`);
  }
  return out;
}

export interface LoggerOptions {
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  style: Style;
  /** Suppress info and quota lines; warnings and errors still print. */
  quiet: boolean;
  /** Print debug lines. */
  debug: boolean;
  /** Values that must never be printed, e.g. the API key. */
  secrets: string[];
  /** Clock for the quota line's relative reset time. */
  now?: () => number;
}

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug(msg: string): void;
  quota(q: QuotaInfo): void;
}

/**
 * A logger writing sanitised, redacted, one-line messages to stderr. While a progress line is drawn there,
 * ora (output/progress.ts) takes each line written to the stream above it: no routing is needed here.
 */
export function createLogger(opts: LoggerOptions): Logger {
  const { style, secrets } = opts;
  const now = opts.now ?? Date.now;
  // Every line on a terminal (info, warning, error, quota, debug) is wrapped at its separators and spaces (output/wrap.ts), never mid-number; in a
  // log it stays one line. Wrapped after redacting, so a line break cannot split a secret out of reach.
  const emitWrapped = (line: string): void => void opts.stream.write(`${wrapLine(redact(line, secrets), wrapWidth(opts.stream))}\n`);
  // Redacted before sanitising and again on the finished line: escaping can split a secret, and stripping an
  // escape sequence can join one back together.
  const clean = (msg: string): string => sanitizeForTerminal(redact(String(msg), secrets));
  return {
    info(msg) {
      if (!opts.quiet) emitWrapped(clean(msg));
    },
    warn(msg) {
      emitWrapped(`${style.yellow('warning:')} ${clean(msg)}`);
    },
    error(msg) {
      emitWrapped(`${style.red('error:')} ${clean(msg)}`);
    },
    debug(msg) {
      if (opts.debug) emitWrapped(style.dim(`debug: ${clean(msg)}`));
    },
    quota(q) {
      // Wrapped as every line on a terminal is, its figures whole (`7,208 / 75,000` is one: wrap.ts).
      if (!opts.quiet) emitWrapped(style.dim(formatQuotaLine(q, now())));
    },
  };
}
