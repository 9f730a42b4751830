// The README's first command: enrich fixtures/sample.csv against the built-in sandbox. No key, no network,
// nothing spent; the user's own settings and cache are left alone (a throwaway directory is used).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'domain-intel.js');
const home = mkdtempSync(join(tmpdir(), 'domain-intel-demo-'));
const env = { ...process.env, DOMAIN_INTEL_CONFIG_DIR: join(home, 'config'), DOMAIN_INTEL_CACHE_DIR: join(home, 'cache') };
delete env.DOMAIN_INTEL_API_KEY;
delete env.DOMAIN_INTEL_BASE_URL;

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--quiet'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const settings = await new Promise((resolve, reject) => {
  let text = '';
  sandbox.stdout.on('data', (d) => {
    text += d;
    // The banner's two lines, as pasted into a shell: `export NAME=value`.
    const base = /^export DOMAIN_INTEL_BASE_URL=(\S+)$/m.exec(text);
    const key = /^export DOMAIN_INTEL_API_KEY=(\S+)$/m.exec(text);
    if (base && key) resolve({ DOMAIN_INTEL_BASE_URL: base[1], DOMAIN_INTEL_API_KEY: key[1] });
  });
  sandbox.on('exit', (code) => reject(new Error(`the sandbox exited early (${code})`)));
});

const args = ['batch', join(root, 'fixtures', 'sample.csv'), '--plan', 'business', ...process.argv.slice(2)];
process.stderr.write(
  `$ domain-intel ${args.map((a) => (a.startsWith(root) ? a.slice(root.length) : a)).join(' ')}   (against the sandbox at ${settings.DOMAIN_INTEL_BASE_URL})\n`,
);
const run = spawn(process.execPath, [bin, ...args], { env: { ...env, ...settings }, stdio: ['ignore', 'inherit', 'inherit'] });
const code = await new Promise((resolve) => run.on('exit', (c) => resolve(c ?? 1)));
sandbox.kill('SIGINT');
rmSync(home, { recursive: true, force: true });
process.exit(code);
