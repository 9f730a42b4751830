// Running the CLI in tests: in-process through main(io) with fake streams (runInProcess: what most tests
// use), or spawning the built bin the way a user would (runCli: for what needs a real process, such as
// signals, a closed pipe or the bin itself). Settings and cache are isolated in a temp dir either way.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Io, REAL_CLOCK, type StopSignal } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { holdingDispatcher, type Time } from './virtual-time.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'domain-intel.js');

/** Fails clearly when the bundle is missing (npm test builds it first). */
export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build:js` (npm test does it)');
}

/** A fresh environment: temp config and cache dirs, no inherited key, base URL or proxy, no colour. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'di-e2e-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOMAIN_INTEL_CONFIG_DIR: join(home, 'config'),
    DOMAIN_INTEL_CACHE_DIR: join(home, 'cache'),
    NO_COLOR: '1',
    ...extra,
  };
  delete env.DOMAIN_INTEL_API_KEY;
  delete env.DOMAIN_INTEL_BASE_URL;
  delete env.DOMAIN_INTEL_STORE; // the machine's shared store is not the tests'
  delete env.FORCE_COLOR;
  // The machine's proxy is not the tests': requests to the sandbox on 127.0.0.1 would go through it. A test of
  // proxies (e2e/proxy.test.ts) sets its own.
  for (const name of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY']) delete env[name];
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI; `done` resolves with its output when it exits. */
export function startCli(args: string[], opts: { env: NodeJS.ProcessEnv; input?: string; cwd?: string }): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: opts.env, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  else child.stdin?.end();
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Runs the CLI to the end. */
export function runCli(args: string[], opts: { env: NodeJS.ProcessEnv; input?: string; cwd?: string }): Promise<CliResult> {
  return startCli(args, opts).done;
}

export interface InProcessOptions {
  /** The whole environment of the run: nothing is inherited from the test process. */
  env: Record<string, string | undefined>;
  /** What stdin holds; it ends after this (empty by default, like `< /dev/null`). */
  input?: string | Buffer;
  /** Stdin is a terminal nobody types into: it never ends (`input` is then ignored). */
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  /** Terminal width reported by stdout and stderr (when they are terminals). */
  columns?: number;
  /**
   * The CLI's time (io.clock): what it reads and waits on; its requests go through a dispatcher that holds it
   * while they are in flight. Give the sandbox the same (sandboxTime in test/helpers/virtual-time.ts). Default real time.
   */
  time?: Time;
}

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it and says it is (or is not) a terminal `columns` wide. */
function captureStream(tty: boolean, columns: number): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  if (tty) {
    // What a terminal offers beyond a stream, as far as the CLI (and ora) use it.
    const ok = (...args: unknown[]) => {
      const cb = args.at(-1);
      if (typeof cb === 'function') cb();
      return true;
    };
    Object.assign(stream, {
      isTTY: true,
      columns,
      rows: 24,
      cursorTo: ok,
      moveCursor: ok,
      clearLine: ok,
      clearScreenDown: ok,
      getColorDepth: () => 4,
      hasColors: () => true,
      getWindowSize: () => [columns, 24],
    });
  }
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** An io of fake streams and signals: what main(io) gets in a test, and what it wrote so far. */
export interface FakeIo {
  io: Io;
  stdout(): string;
  stderr(): string;
  /** Sends SIGINT or SIGTERM to whatever listens through io.signals. */
  signal(name: StopSignal): void;
  /** Resolves with the code io.exit was called with (a second Ctrl-C); never, if it was not. */
  exited: Promise<number>;
}

/** Builds a FakeIo for `args`. */
export function fakeIo(args: string[], opts: InProcessOptions): FakeIo {
  const columns = opts.columns ?? 80;
  const out = captureStream(opts.stdoutTTY === true, columns);
  const err = captureStream(opts.stderrTTY === true, columns);
  const stdin = new PassThrough();
  if (opts.stdinTTY === true) Object.assign(stdin, { isTTY: true });
  else stdin.end(opts.input ?? '');
  const signals = new EventEmitter();
  let exit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const io: Io = {
    argv: args,
    env: Object.fromEntries(Object.entries(opts.env).filter(([, v]) => v !== undefined)),
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: out.stream,
    stderr: err.stream,
    clock: opts.time ?? REAL_CLOCK,
    ...(opts.time ? { dispatcher: holdingDispatcher(opts.time) } : {}),
    signals: { on: (name, fn) => void signals.on(name, fn), off: (name, fn) => void signals.off(name, fn) },
    exit: (code) => exit(code),
  };
  return { io, stdout: out.text, stderr: err.text, signal: (name) => void signals.emit(name), exited };
}

/**
 * Starts the CLI's main(io) inside this process with a FakeIo. `done` resolves with the exit code and what
 * was written, when main returns (or exits at once, on a second Ctrl-C).
 */
export function startInProcess(args: string[], opts: InProcessOptions): { signal: (name: StopSignal) => void; done: Promise<InProcessResult> } {
  const fake = fakeIo(args, opts);
  const done = Promise.race([main(fake.io), fake.exited]).then(async (code) => {
    // The client never closes a dispatcher it was given.
    await fake.io.dispatcher?.close();
    return { code, stdout: fake.stdout(), stderr: fake.stderr() };
  });
  return { signal: fake.signal, done };
}

/** Runs the CLI's main(io) inside this process to its end. */
export function runInProcess(args: string[], opts: InProcessOptions): Promise<InProcessResult> {
  return startInProcess(args, opts).done;
}
