// Spawning the built CLI the way a user would, with settings and cache isolated in a temp dir.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'domain-intel.js');

/** Fails clearly when the bundle is missing (npm test builds it first). */
export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` (npm test does it)');
}

/** A fresh environment: temp config and cache dirs, no inherited key or base URL, no colour. */
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
  delete env.FORCE_COLOR;
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
