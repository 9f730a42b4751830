// An input file that cannot be read is a usage error (exit 2) naming it, found before anything is spent:
// missing (ENOENT), a directory (EISDIR), no permission (EACCES), and a read that fails once reading began.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, cliEnv, type CliResult, ROOT, runInProcess } from '../helpers/cli.js';
import { spawn } from 'node:child_process';

let sb: Sandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function setUp() {
  sb = await startSandbox({ port: 0, rpm: 0 });
  dir = mkdtempSync(join(tmpdir(), 'di-input-'));
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  return { sb, dir, env };
}

/** Exit 2, the path named, no sign of a crash, and nothing charged. */
function refused(r: { code: number | null; stdout: string; stderr: string }, path: string, what: RegExp, s: Sandbox): void {
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(path);
  expect(r.stderr).toMatch(what);
  expect(r.stderr).not.toMatch(/unexpected|report it|\n\s+at /);
  expect(r.stdout).toBe('');
  expect(s.charges().requests).toBe(0);
}

describe('an input file that cannot be read: exit 2 naming it', () => {
  it('ENOENT, EISDIR, for batch and traffic --input', async () => {
    const { sb, dir, env } = await setUp();
    const missing = join(dir, 'nope.csv');
    refused(await runInProcess(['batch', missing], { env }), missing, /no such file/, sb);
    refused(await runInProcess(['traffic', '--input', missing], { env }), missing, /no such file/, sb);
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    refused(await runInProcess(['batch', folder], { env }), folder, /is a directory/, sb);
  });

  it('EACCES: no permission to read it (as another user when run as root, whom permissions do not stop)', async () => {
    const { sb, dir, env } = await setUp();
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, `${sb.hostList()[0]}\n`);
    chmodSync(secret, 0o600);
    if (process.getuid?.() !== 0) {
      chmodSync(secret, 0o000);
      refused(await runInProcess(['batch', secret], { env }), secret, /permission denied/, sb);
      return;
    }
    // A real process as nobody: the directory may be entered, the file not read.
    assertBuilt();
    chmodSync(dir, 0o755);
    const r = await new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'batch', secret], { env, cwd: ROOT, uid: 65534, gid: 65534, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
    refused(r, secret, /permission denied/, sb);
  });

  it('a read that fails after the file was opened (EIO): exit 2 naming it, not an unexpected failure', async (t) => {
    // /proc/self/mem opens, and says it is a file, but reading it at offset 0 fails with EIO.
    if (!existsSync('/proc/self/mem')) t.skip();
    const { sb, env } = await setUp();
    const r = await runInProcess(['batch', '/proc/self/mem'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/proc/self/mem: cannot be read (EIO)');
    expect(r.stderr).not.toMatch(/unexpected|report it|\n\s+at /);
    expect(sb.charges().total).toBe(0);
  });
});

describe('-o naming the input file in another format than CSV (in place as CSV: in-place.test.ts)', () => {
  it('is refused before anything is spent, directly or through a link; the export stays byte for byte', async () => {
    const { sb, dir, env } = await setUp();
    const file = join(dir, 'export.csv');
    const bytes = `website\n${sb.hostList().slice(0, 3).join('\n')}\n`;
    writeFileSync(file, bytes);
    const { symlinkSync, readFileSync } = await import('node:fs');
    const link = join(dir, 'link.csv');
    symlinkSync(file, link);
    for (const target of [file, link]) {
      const r = await runInProcess(['batch', file, '-f', 'json', '-o', target], { env });
      refused(r, target, /is the input file: only CSV output may replace its input/, sb);
      expect(readFileSync(file, 'utf8')).toBe(bytes);
    }
  });

  it('is refused when stdin reads it too (batch - -o in.csv < in.csv: a real process)', async () => {
    assertBuilt();
    const { sb, dir, env } = await setUp();
    const file = join(dir, 'export.csv');
    const bytes = `website\n${sb.hostList().slice(0, 3).join('\n')}\n`;
    writeFileSync(file, bytes);
    const { openSync, closeSync, readFileSync } = await import('node:fs');
    const fd = openSync(file, 'r');
    const child = spawn(process.execPath, [BIN, 'batch', '-', '-f', 'ndjson', '-o', file], { env, cwd: ROOT, stdio: [fd, 'pipe', 'pipe'] });
    closeSync(fd);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const code = await new Promise<number | null>((ok) => child.on('close', (c) => ok(c)));
    refused({ code, stdout, stderr }, file, /is the input file: only CSV output may replace its input/, sb);
    expect(readFileSync(file, 'utf8')).toBe(bytes);
  });
});
