// What a command gets: its options, the streams, a logger, and lazy access to settings, configuration, the
// client and the cache. Everything heavy is created on first use, so `keys list` never loads undici and
// `lookup` never opens SQLite unless it needs to.
import type { Command } from 'commander';
import type { DomainIntelClient } from '../api/client.js';
import { InvalidKeyError, QuotaExhaustedError, RateLimitedError } from '../api/errors.js';
import type { QuotaInfo } from '../api/types.js';
import type { ResolvedConfig } from '../store/config.js';
import type { AnswerCache } from '../store/cache.js';
import type { Settings } from '../store/settings.js';
import { createLogger, redact, type Logger } from './output/logger.js';
import { colorEnabled, createStyle, sanitizeForTerminal, type Style } from './output/terminal.js';

export interface CommandModule {
  default(ctx: Context): Promise<number>;
}

export interface Io {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

export interface Context {
  readonly opts: Record<string, unknown>;
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
  settings(): Promise<Settings>;
  config(): Promise<ResolvedConfig>;
  /** A client for the configured service; throws InvalidKeyError when there is no key. */
  client(): Promise<DomainIntelClient>;
  /** The answer cache, or null under --no-cache. */
  store(): Promise<AnswerCache | null>;
  /** The newest quota seen during this command. */
  readonly quota: QuotaInfo | null;
  /** Text made safe for the terminal, with secrets masked. */
  clean(text: string): string;
  redact(text: string): string;
  /** What to do about an error, e.g. which key was refused and how to replace it. */
  hintFor(err: unknown): string | null;
  /** Registers work to run before the process exits. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/** Builds the context for one run of a command. */
export function createContext(cmd: Command, args: Record<string, unknown>): Context {
  const opts = cmd.optsWithGlobals() as Record<string, unknown>;
  const io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
  const secrets: string[] = [];
  const style = createStyle(colorEnabled(io.stderr, io.env));
  const outStyle = createStyle(colorEnabled(io.stdout, io.env));
  const logger = createLogger({ stream: io.stderr, style, quiet: opts.quiet === true, debug: opts.debug === true, secrets });
  const closers: (() => Promise<void> | void)[] = [];

  const interrupt = new AbortController();
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);

  const closed = new AbortController();
  // `domain-intel batch big.csv | head`: the reader left. Stop quietly, spend nothing more.
  io.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed.abort();
    else throw err;
  });

  let settingsP: Promise<Settings> | undefined;
  let configP: Promise<ResolvedConfig> | undefined;
  let clientP: Promise<DomainIntelClient> | undefined;
  let storeP: Promise<AnswerCache | null> | undefined;
  let keySource: string | null = null;
  let lastQuota: QuotaInfo | null = null;

  const ctx: Context = {
    opts,
    command: cmd,
    args,
    io,
    style,
    outStyle,
    logger,
    interrupted: interrupt.signal,
    outputClosed: closed.signal,
    get quota() {
      return lastQuota;
    },
    settings() {
      settingsP ??= import('../store/settings.js').then((m) => m.openSettings({ env: io.env, onWarning: (w) => logger.warn(w) }));
      return settingsP;
    },
    config() {
      configP ??= (async () => {
        const [{ resolveConfig }, settings] = await Promise.all([import('../store/config.js'), ctx.settings()]);
        const config = resolveConfig({
          flags: {
            baseUrl: opts.baseUrl as string | undefined,
            plan: opts.plan as string | undefined,
            // --rpm 0 means no pacing (below): the limiter runs open and learns from a 429 if one comes.
            rpm: opts.rpm === 0 ? undefined : (opts.rpm as number | undefined),
            rate: opts.rate as { requests: number; windowMs: number } | undefined,
            maxAgeMs: opts.maxAge as number | undefined,
            cache: opts.cache as boolean | undefined,
          },
          env: io.env,
          settings,
          onWarning: (w) => logger.warn(w),
        });
        if (opts.rpm === 0) config.rpm = null;
        if (config.key) {
          secrets.push(config.key.key);
          keySource = config.key.source === 'env' ? 'the key in DOMAIN_INTEL_API_KEY' : `the stored key "${config.key.name ?? ''}"`;
        }
        return config;
      })();
      return configP;
    },
    client() {
      clientP ??= (async () => {
        // The modules load while the settings are read, not after: each import() waits on the disk.
        const [config, { DomainIntelClient }, v8] = await Promise.all([ctx.config(), import('../api/client.js'), import('node:v8')]);
        if (!config.key) {
          throw new InvalidKeyError('no API key: store one with `domain-intel keys add` (reads stdin) or set DOMAIN_INTEL_API_KEY', { code: 'invalid_key' });
        }
        // undici parses HTTP with llhttp built to WebAssembly. After the first response V8 starts optimising
        // its one big parser function on a background thread: ~250 ms of compiling that a CLI run gains
        // nothing from (it parses a few headers per response), and that process exit then waits for, as
        // V8 lets a running compile job finish. A budget no run reaches keeps the parser on the baseline
        // compiler. Set here, in the CLI, before the first connection: the library leaves V8 alone.
        v8.setFlagsFromString('--wasm-tiering-budget=2000000000');
        const client = new DomainIntelClient({
          baseUrl: config.baseUrl,
          apiKey: config.key.key,
          timeoutMs: opts.timeout as number,
          windowMs: config.windowMs,
          onQuota: (q) => {
            lastQuota = q;
          },
          onResponse: (r) => logger.debug(`${r.method} ${r.path} -> ${r.status ?? r.error ?? '?'} in ${r.ms} ms`),
        });
        closers.push(async () => {
          await client.close();
          // Kept in the cache file (even under --no-cache), not the settings file: see recordLastQuota.
          if (lastQuota) await (await import('../store/quota-memo.js')).recordLastQuota({ dir: config.cacheDir }, lastQuota);
        });
        return client;
      })();
      return clientP;
    },
    store() {
      storeP ??= (async () => {
        const [config, { openCache }] = await Promise.all([ctx.config(), import('../store/cache.js')]);
        if (!config.useCache) return null;
        const cache = await openCache({ dir: config.cacheDir });
        closers.push(() => cache.close());
        return cache;
      })();
      return storeP;
    },
    clean: (text) => sanitizeForTerminal(redact(text, secrets)),
    redact: (text) => redact(text, secrets),
    hintFor(err) {
      if (err instanceof InvalidKeyError) {
        return keySource ? `${keySource} was refused; replace it with \`domain-intel keys add <name>\` (reads stdin) or a new DOMAIN_INTEL_API_KEY` : null;
      }
      if (err instanceof QuotaExhaustedError) {
        const reset = err.resetAt ?? lastQuota?.reset ?? null;
        return `lookups renew ${reset ? `on ${reset.toISOString().slice(0, 10)}` : 'at the start of next month'}, or add a pack`;
      }
      if (err instanceof RateLimitedError) return 'set your plan (`domain-intel config set plan ...`) so requests are paced';
      return null;
    },
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (err) {
          logger.debug(`cleanup failed: ${(err as Error).message}`);
        }
      }
    },
  };
  return ctx;
}
