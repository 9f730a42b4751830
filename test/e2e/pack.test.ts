// Packaging (issue 7): the tarball `npm pack` makes holds only what a user needs, installs globally into a
// clean prefix and runs there. One install only: better-sqlite3 may compile natively, which takes minutes,
// so this runs in `npm run test:pack` (and .ci/run), not in `npm test`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, cliEnv, ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const INSTALL_MS = 10 * 60_000;

interface PackResult {
  filename: string;
  files: { path: string }[];
}

let dir: string;
let tarball: string;
let files: string[];
let sb: Sandbox;
beforeAll(async () => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'di-pack-'));
  // dist/ is already built (npm run test:pack builds first), so prepack's build is skipped: it would race
  // other test files that run the built bin.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [result] = JSON.parse(packed.stdout) as PackResult[];
  if (!result) throw new Error(`npm pack printed no result: ${packed.stdout}`);
  tarball = join(dir, result.filename);
  files = result.files.map((f) => f.path);
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 50 });
}, 120_000);
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('packs the bin, the bundle, the types, package.json, README and CHANGELOG', () => {
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    expect(files).toContain('CHANGELOG.md');
    expect(files).toContain('bin/domain-intel.js');
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/types/index.d.ts');
  });

  it('ships type declarations for its exports', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: { '.': { types: string } } };
    expect(files).toContain(pkg.exports['.'].types.replace(/^\.\//, ''));
    const types = readFileSync(join(ROOT, pkg.exports['.'].types), 'utf8');
    expect(types).toMatch(/DomainIntelClient/);
    expect(types).toMatch(/enrich/);
  });

  it('packs no sources, tests, benchmarks, fixtures or source maps', () => {
    const unwanted = files.filter((f) => /^(src|test|bench|fixtures|scripts)\//.test(f) || f.endsWith('.map') || f.startsWith('node_modules/'));
    expect(unwanted).toEqual([]);
  });

  it(
    'installs globally into an empty prefix and runs from there',
    async () => {
      const prefix = join(dir, 'prefix');
      // The dependencies are in npm's cache after `npm ci`; the network is used only for what is missing.
      await run('npm', ['install', '--global', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: dir,
        timeout: INSTALL_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
      const installed = join(prefix, 'bin', PKG.name);

      const version = await run(installed, ['--version'], { cwd: dir });
      expect(version.stdout.trim()).toBe(PKG.version);

      // A real lookup through the installed copy: undici, the settings file and the native SQLite cache all load.
      const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
      const host = sb.hostList()[0] as string;
      const lookup = await run(installed, ['lookup', host, '--format', 'json'], { cwd: dir, env });
      expect((JSON.parse(lookup.stdout) as { data: { domain: string } }[])[0]?.data.domain).toBe(host);
      expect(sb.charges().total).toBe(1);
      // Asked again, the installed copy answers from its SQLite cache and spends nothing.
      const again = await run(installed, ['lookup', host, '--format', 'json'], { cwd: dir, env });
      expect(again.stdout).toBe(lookup.stdout);
      expect(sb.charges().total).toBe(1);

      // The HTML report loads Vega, which is not bundled: it must resolve from the installed package.
      const list = join(dir, 'list.csv');
      writeFileSync(list, `website\n${sb.hostList().slice(0, 5).join('\n')}\n`);
      const enriched = join(dir, 'enriched.csv');
      await run(installed, ['batch', list, '-o', enriched, '--quiet'], { cwd: dir, env });
      const report = join(dir, 'report.html');
      await run(installed, ['summarize', enriched, '--html', report], { cwd: dir, env });
      expect(readFileSync(report, 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*aria-roledescription="bar"/);
    },
    INSTALL_MS + 60_000,
  );
});
