// Machines for the multi-machine tests (e2e/machines*.test.ts): each "machine" is a real process with its own
// HOME, config and cache directories, and (as root) its own PID and UTS namespace (`unshare -p -f -u
// --mount-proc`), so every machine's CLI is PID 1 on a host of its own name and nothing can be judged by a pid.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, cliEnv, ROOT } from './cli.js';

// Root is needed for namespaces; elsewhere the machines are plain processes (still separate directories, so
// still separate caches and settings), and the test says so.
const ROOT_USER = process.getuid?.() === 0;
if (!ROOT_USER) console.warn('machines: not root, so each machine is a plain process without a PID/UTS namespace of its own');

/** The account's known rate: requests per window. */
export const RATE = 20;
export const WINDOW_MS = 1000;
export const PLAN = ['--rate', `${RATE}/${WINDOW_MS / 1000}s`];

export interface Machine {
  name: string;
  env: NodeJS.ProcessEnv;
}

/** A machine of its own: separate HOME, config and cache, the account's key, the shared store. */
export function machine(sb: Sandbox, name: string, store: string, withKey = true): Machine {
  const home = mkdtempSync(join(tmpdir(), `di-${name}-`));
  const env = cliEnv({
    HOME: home,
    DOMAIN_INTEL_BASE_URL: sb.baseUrl,
    ...(withKey ? { DOMAIN_INTEL_API_KEY: sb.key } : {}),
    DOMAIN_INTEL_STORE: store,
  });
  return { name, env };
}

export interface Run {
  /** The CLI's own process: PID 1 of its namespace where there is one. */
  cliPid: () => number | undefined;
  kill9: () => void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number }>;
}

/** Runs the CLI on `m`; in a namespace of its own (PID and hostname) when root. */
export function run(m: Machine, args: string[]): Run {
  const started = Date.now();
  const child = ROOT_USER
    ? spawn('unshare', ['-p', '-f', '-u', '--mount-proc', 'sh', '-c', `hostname "$0" && exec "$@"`, m.name, process.execPath, BIN, ...args], {
        env: m.env,
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [BIN, ...args], { env: m.env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  // Under unshare -f the CLI is unshare's child: killing unshare would leave it running.
  const cliPid = (): number | undefined => {
    if (!ROOT_USER) return child.pid;
    try {
      const kids = execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n');
      return Number(kids[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  return {
    cliPid,
    kill9: () => {
      const pid = cliPid();
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    },
    done: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }))),
  };
}

export function list(dir: string, name: string, hosts: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `domain\n${hosts.join('\n')}\n`);
  return file;
}
export const sites = (from: number, to: number, tag: string) => Array.from({ length: to - from }, (_, i) => `${tag}-${from + i}.example.com`);

/** Hosts the service charged more than once since the counters were last reset. */
export const twice = (sb: Sandbox) => Object.entries(sb.charges().byHost).filter(([, n]) => n > 1);

export async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The account the machines share: a sandbox at the known rate, its answers a little slow, with a quota no test
 * here spends (the runs add up to tens of thousands of lookups). The machines run the built bin.
 */
export async function startAccount(): Promise<Sandbox> {
  assertBuilt();
  return startSandbox({ port: 0, rpm: RATE, windowMs: WINDOW_MS, latencyMs: 20, quota: 10_000_000 });
}

/** A directory for a test file's lists and outputs. */
export const listDir = (): string => mkdtempSync(join(tmpdir(), 'di-machines-'));
