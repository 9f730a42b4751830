// `domain-intel batch big.csv | head` must end quietly (issue 7): when the reader of stdout goes away, the
// CLI stops with exit 141, writes nothing to stderr (no EPIPE message, no stack) and spends nothing more.
// Run in a real shell pipeline so the pipe closes the way it does for a user.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, cliEnv, ROOT } from '../helpers/cli.js';

const ROWS = 20_000;

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  assertBuilt();
  // A quota far above the file, so nothing but the closed pipe can stop the run.
  sb = await startSandbox({ port: 0, rpm: 0, quota: 10 * ROWS, latencyMs: 5 });
  dir = mkdtempSync(join(tmpdir(), 'di-pipe-'));
});
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `domain-intel <args> 2>ERR | head -<n>` in bash; the exit code is domain-intel's own (PIPESTATUS[0]). */
function pipeToHead(args: string[], n: number, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string; shellStderr: string }> {
  const errFile = join(dir, 'stderr.txt');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, expanded by the shell
  const script = 'node="$1"; bin="$2"; err="$3"; n="$4"; shift 4; "$node" "$bin" "$@" 2>"$err" | head "-$n"; exit "${PIPESTATUS[0]}"';
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, BIN, errFile, String(n), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let shellStderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (shellStderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: readFileSync(errFile, 'utf8'), shellStderr }));
  });
}

describe('batch | head', () => {
  it(`stops at once with exit 141, nothing on stderr, and spends far less than the ${ROWS.toLocaleString('en-US')} hosts`, async () => {
    const held = sb.hostList();
    // Distinct hosts: the held ones first, then made-up ones (a batch charges for a missing host too).
    const hosts = Array.from({ length: ROWS }, (_, i) => held[i] ?? `made-up-${i}.example.com`);
    expect(new Set(hosts).size).toBe(ROWS);
    const file = join(dir, 'big.csv');
    writeFileSync(file, `website,note\n${hosts.map((h, i) => `${h},row ${i}`).join('\n')}\n`);
    sb.resetCounters();

    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const r = await pipeToHead(['batch', file], 3, env);

    expect(r.stdout.split('\n').filter((l) => l !== '')).toHaveLength(3);
    expect(r.stdout.split('\n')[0]).toMatch(/^website,note,/);
    expect(r.stderr).toBe(''); // no EPIPE, no stack, no summary of a run nobody reads
    expect(r.shellStderr).toBe('');
    expect(r.code).toBe(141);

    // Whatever was in flight when stdout closed may be charged; the rest of the file must not be.
    const spent = sb.charges().total;
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThan(ROWS / 10);
    // And nothing keeps spending after the process is gone.
    await new Promise((r) => setTimeout(r, 300));
    expect(sb.charges().total).toBe(spent);
  }, 60_000);
});
