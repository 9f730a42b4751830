// A peek that costs a peek (issue 26, item 5): `batch hosts.txt --format ndjson | head -3` reads three rows,
// and the run must buy no more than a slow start allows: one batch, then two once its rows were taken, and
// nothing once the pipe has closed. Run in a real shell pipeline, so the pipe closes the way it does for a
// user; what was bought is what the sandbox charged.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS } from '../../src/domain/kinds.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, cliEnv, ROOT, runCli } from '../helpers/cli.js';

const ROWS = 5_000;
const BATCH = KINDS.profile.batchSize;

let sb: Sandbox;
let dir: string;
let file: string;
beforeAll(async () => {
  assertBuilt();
  // Unpaced and quick, with a quota far above the file: only the reader leaving can stop the run.
  sb = await startSandbox({ port: 0, rpm: 0, quota: 100 * ROWS, latencyMs: 100 });
  dir = mkdtempSync(join(tmpdir(), 'di-peek-'));
  const held = sb.hostList();
  const hosts = Array.from({ length: ROWS }, (_, i) => held[i] ?? `made-up-${i}.example.com`);
  file = join(dir, 'hosts.txt');
  writeFileSync(file, `${hosts.join('\n')}\n`);
});
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `domain-intel <args> 2>ERR | head -<n>` in bash; the exit code is domain-intel's (PIPESTATUS[0]). */
function peek(args: string[], n: number, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const errFile = join(dir, 'stderr.txt');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, expanded by the shell
  const script = 'node="$1"; bin="$2"; err="$3"; n="$4"; shift 4; "$node" "$bin" "$@" 2>"$err" | head "-$n"; exit "${PIPESTATUS[0]}"';
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, BIN, errFile, String(n), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: readFileSync(errFile, 'utf8') }));
  });
}

/** Lookups in the requests the sandbox charged for, request by request (its log, not the client's counts). */
function bought(): number[] {
  return sb
    .requests()
    .filter((r) => r.charged > 0)
    .map((r) => r.charged);
}

describe('batch --format ndjson | head -3', () => {
  it.each([
    ['a first run (the quota unknown: its first request asks about one host)', 'ndjson', false, 1],
    ['a run whose account remembers the quota (no one-host question first)', 'ndjson', true, 0],
    ['a CSV peek (its rows are short: written a turn after they are taken)', 'csv', true, 0],
  ])(
    '%s buys at most three batches, and nothing after the pipe closed',
    async (_name, format, warm, probe) => {
      const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
      if (warm) {
        // An earlier run of this account on this machine: the quota it saw is remembered (and trusted while fresh).
        const before = await runCli(['lookup', sb.hostList().at(-1) as string, '--format', 'json'], { env });
        expect(before.code, before.stderr).toBe(0);
      }
      sb.resetCounters();
      const r = await peek(['batch', file, '--format', format], 3, env);
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(3);
      if (format === 'csv') expect(lines[1]).toMatch(new RegExp(`^${sb.hostList()[0]},`));
      else expect(JSON.parse(lines[0] as string)).toMatchObject({ line: 1 });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(141);

      const requests = bought();
      // The one-host question, when asked, is no batch; beyond it, at most three batches of the file's hosts.
      const batches = requests.filter((n) => n > 1 || probe === 0);
      expect(requests.length - batches.length).toBeLessThanOrEqual(probe);
      expect(batches.length, `lookups per request: ${requests.join(', ')}`).toBeLessThanOrEqual(3);
      expect(sb.charges().total).toBeLessThanOrEqual(3 * BATCH + probe);
      // Nothing is sent once the process is gone, either.
      await new Promise((done) => setTimeout(done, 300));
      expect(bought()).toEqual(requests);
    },
    60_000,
  );
});
