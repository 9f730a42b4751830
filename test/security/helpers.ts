// Shared set-up for the hostile-input and secrets suite: running the CLI (in-process, or the built bin where
// a test needs a process) with a sealed environment (every file it may write lands under one temp root),
// walking what it wrote, and tiny node:http servers that play a hostile or broken service.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInProcess } from '../helpers/cli.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'domain-intel.js');
export const SAMPLE_CSV = join(ROOT, 'fixtures', 'sample.csv');

/** Fails with a clear message when `npm run build` has not been run (the e2e tests spawn dist/). */
export function requireBuild(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build:js` first (npm test does)');
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from start to exit. */
  ms: number;
  /** Highest resident set size seen while it ran (Linux /proc sampling), in bytes; null elsewhere. */
  peakRss: number | null;
  timedOut: boolean;
}

export interface RunOptions {
  env: Record<string, string | undefined>;
  input?: string | Buffer;
  /** Stop the CLI after this long (the test then fails on `timedOut`), default 15 s. */
  timeoutMs?: number;
}

/** Runs the CLI in-process (main(io), test/helpers/cli.ts); a run past its time is stopped by two Ctrl-Cs. */
export async function runCli(args: string[], opts: RunOptions): Promise<CliResult> {
  const started = Date.now();
  const run = startInProcess(args, { env: opts.env, ...(opts.input === undefined ? {} : { input: opts.input }) });
  let timedOut = false;
  const stopper = setTimeout(() => {
    timedOut = true;
    run.signal('SIGINT');
    run.signal('SIGINT');
  }, opts.timeoutMs ?? 15_000);
  const r = await run.done;
  clearTimeout(stopper);
  return { ...r, signal: null, ms: Date.now() - started, peakRss: null, timedOut };
}

export interface SpawnOptions extends RunOptions {
  cwd?: string;
  /** Sample /proc/<pid>/status every 10 ms for the peak RSS. */
  sampleRss?: boolean;
}

/** Runs `bin/domain-intel.js` asynchronously (an in-process sandbox must keep serving meanwhile). */
export function spawnCli(args: string[], opts: SpawnOptions): Promise<CliResult> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: Object.fromEntries(Object.entries(opts.env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    let timedOut = false;
    const killer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 15_000);
    let peakRss: number | null = null;
    const sampler = opts.sampleRss
      ? setInterval(() => {
          try {
            const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) peakRss = Math.max(peakRss ?? 0, Number(m[1]) * 1024);
          } catch {
            // gone already, or no /proc on this platform
          }
        }, 10)
      : null;
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      if (sampler) clearInterval(sampler);
      done({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: Date.now() - started,
        peakRss,
        timedOut,
      });
    });
    child.stdin.on('error', () => {}); // the CLI may exit before reading its input
    child.stdin.end(opts.input ?? '');
  });
}

/** A throwaway root holding the CLI's config dir, cache dir, TMPDIR and working files. */
export interface TempHome {
  root: string;
  configDir: string;
  cacheDir: string;
  tmp: string;
  /** Environment for the CLI: nothing inherited but PATH; colour off; files confined to `root`. */
  env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
  path(...parts: string[]): string;
  remove(): void;
}

export function tempHome(service?: { baseUrl: string; key: string }): TempHome {
  const root = mkdtempSync(join(tmpdir(), 'di-sec-'));
  const configDir = join(root, 'config'); // created by the CLI itself (0700)
  const cacheDir = join(root, 'cache');
  const tmp = join(root, 'tmp');
  mkdirSync(tmp);
  return {
    root,
    configDir,
    cacheDir,
    tmp,
    env: (extra = {}) => ({
      PATH: process.env.PATH,
      HOME: root,
      TMPDIR: tmp,
      NO_COLOR: '1',
      DOMAIN_INTEL_CONFIG_DIR: configDir,
      DOMAIN_INTEL_CACHE_DIR: cacheDir,
      ...(service ? { DOMAIN_INTEL_BASE_URL: service.baseUrl, DOMAIN_INTEL_API_KEY: service.key } : {}),
      ...extra,
    }),
    path: (...parts) => join(root, ...parts),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Every regular file under `dir`, recursively. */
export function walkFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walkFiles(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** A V8 stack frame line ("    at fn (file:1:2)"): never shown to a user without --debug. */
export const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;

/** Bytes a terminal acts on: ESC, BEL, other C0 controls but TAB/LF, DEL, C1 controls, bidi embeddings/overrides/isolates. */
const TERMINAL_HAZARD = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** Describes the first hazardous character in `s` and where, for readable failures. */
export function firstHazard(s: string): string | null {
  const m = TERMINAL_HAZARD.exec(s);
  if (!m) return null;
  return `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(s.slice(Math.max(0, m.index - 30), m.index + 30))}`;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestServer {
  url: string;
  baseUrl: string;
  requests: RecordedRequest[];
  server: Server;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1, port 0, that records each request (body read) and hands it to `handler`. */
export async function startServer(handler: (req: RecordedRequest, res: ServerResponse) => void | Promise<void>): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(r);
      Promise.resolve(handler(r, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/api/v1`,
    requests,
    server,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length), ...headers });
  res.end(text);
}

/** A well-formed key in the spec's shape (§5.2) that no server knows. */
export function fakeKey(seed: string): string {
  let hex = '';
  for (let i = 0; hex.length < 48; i++) hex += ((seed.charCodeAt(i % seed.length) * 2654435761 + i * 40503) >>> 0).toString(16).padStart(8, '0');
  return `di_live_${hex.slice(0, 48)}`;
}
