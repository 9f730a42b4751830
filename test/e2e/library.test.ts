import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, ROOT } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ port: 0 });
  // A project that depends on domain-intel: node_modules/domain-intel points at this package.
  dir = mkdtempSync(join(tmpdir(), 'di-lib-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'domain-intel'), 'dir');
});
afterAll(async () => {
  await sb?.close();
});

/** Runs a script in the dependent project (asynchronously: the sandbox lives in this process). */
function run(file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: dir,
    env: { ...process.env, DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('the library', () => {
  it('runs the example of docs/library.md as written', async () => {
    const page = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
    const code = /<!-- library-example -->\s*```js\n([\s\S]*?)```/.exec(page)?.[1];
    expect(code).toBeTruthy();
    const file = join(dir, 'example.mjs');
    writeFileSync(file, code ?? '');
    const host = sb.hostList()[0] ?? '';
    sb.resetCounters();
    const r = await run(file, [host]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')} .+ \\d+/\\d+ left$`));
    expect(lines).toContain('not held (the lookup was still spent)');
    expect(lines).toContain(`1 found ${host}`);
    expect(lines).toContain('2 missing nobody-holds-this.example');
    expect(lines).toContain('3 invalid null');
    expect(lines.at(-1)).toBe('spent 2');
    expect(sb.charges().total).toBe(4); // domain + traffic 404 + a batch of 2
  });

  it('has no side effects on import: no output, no files, no open handles', async () => {
    const home = mkdtempSync(join(tmpdir(), 'di-lib-home-'));
    const file = join(dir, 'import.mjs');
    writeFileSync(file, "import * as lib from 'domain-intel';\nconsole.log(Object.keys(lib).sort().join(','));\n");
    const r = await run(file, [], { HOME: home, XDG_CONFIG_HOME: join(home, 'c'), XDG_CACHE_HOME: join(home, 'k') });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const names = r.stdout.trim().split(',');
    for (const name of ['DomainIntelClient', 'enrich', 'runJob', 'RateLimiter', 'openCache', 'NotFoundError', 'QuotaExhaustedError']) {
      expect(names).toContain(name);
    }
    expect(readdirSync(home)).toEqual([]);
  });
  // Its type declarations are checked with the package (test/e2e/pack.test.ts): npm test bundles dist/ but does
  // not emit them.
});
