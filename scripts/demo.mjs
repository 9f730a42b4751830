// `npm run demo`, the README's first command: what a new user meets at a terminal, against the built-in sandbox.
// No key, no network, nothing spent; the user's own settings and cache are left alone (a throwaway directory is
// used). Three commands: a CRM export enriched into a file (the summary on stderr says what it cost), the
// picture of that file (`summarize`), and three of its hosts as a table, answered from the cache (free). The
// enriched file is kept, and its path said at the end. Arguments go to the batch command
// (`npm run demo -- --format json`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'domain-intel.js');
const home = mkdtempSync(join(tmpdir(), 'domain-intel-demo-home-'));
// Kept after the demo: the enriched file is what a user came for.
const kept = mkdtempSync(join(tmpdir(), 'di-demo-'));
const extra = process.argv.slice(2);
const formatOf = (args) => {
  const i = args.findIndex((a) => a === '--format' || a === '-f');
  return i >= 0 ? args[i + 1] : (args.find((a) => a.startsWith('--format='))?.slice('--format='.length) ?? 'csv');
};
const enriched = join(kept, `sample-enriched.${formatOf(extra)}`);

const env = { ...process.env, DOMAIN_INTEL_CONFIG_DIR: join(home, 'config'), DOMAIN_INTEL_CACHE_DIR: join(home, 'cache') };
delete env.DOMAIN_INTEL_API_KEY;
delete env.DOMAIN_INTEL_BASE_URL;

const tty = process.stderr.isTTY === true && !('NO_COLOR' in process.env);
const bold = (text) => (tty ? `\u001b[1m${text}\u001b[22m` : text);
const dim = (text) => (tty ? `\u001b[2m${text}\u001b[22m` : text);
const shown = (a) => (a.startsWith(root) ? a.slice(root.length) : a);
const width = Math.max(40, process.stderr.columns || 80);
/**
 * Words laid out to the terminal's width, `brk` between lines: our own lines are wrapped here, where a terminal
 * would cut them mid-word. A command line breaks as a shell continues one (` \` and an indent).
 */
function wrap(words, brk) {
  const lines = [''];
  for (const word of words) {
    const last = lines.length - 1;
    if (lines[last] !== '' && lines[last].length + 1 + word.length > width - 2) lines.push(word);
    else lines[last] = lines[last] === '' ? word : `${lines[last]} ${word}`;
  }
  return lines.join(brk);
}
const say = (text, style) => process.stderr.write(`${style(wrap(text.split(' '), '\n'))}\n`);

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

/** Runs one command as a user would type it, after a heading saying what it shows; resolves to its exit code. */
async function step(heading, args) {
  process.stderr.write('\n');
  say(heading, bold);
  process.stderr.write(`${dim(wrap(['$ domain-intel', ...args.map(shown)], ' \\\n    '))}\n\n`);
  const run = spawn(process.execPath, [bin, ...args], { env: { ...env, ...settings }, stdio: ['ignore', 'inherit', 'inherit'] });
  return new Promise((resolve) => run.on('exit', (c) => resolve(c ?? 1)));
}

let code = 0;
try {
  say('The built-in sandbox plays the service here: no key, no network, nothing spent.', dim);
  code = await step('1. A CRM export of 41 rows, enriched into a file:', [
    'batch',
    join(root, 'fixtures', 'sample.csv'),
    '--plan',
    'business',
    '-o',
    enriched,
    ...extra,
  ]);
  if (code === 0 || code === 3) {
    // The catalog (free) lets the summary group technologies by category; fetched quietly, as a user would once.
    await new Promise((resolve) => spawn(process.execPath, [bin, 'catalog'], { env: { ...env, ...settings }, stdio: 'ignore' }).on('exit', resolve));
    await step('2. The picture of the enriched file (reads the file, spends nothing):', ['summarize', enriched, '--top', '3']);
    await step('3. Three of its hosts, answered from the cache (nothing is bought twice):', ['lookup', 'alzota-cloud.com', 'zema.com', 'paro.com']);
    process.stderr.write('\n');
    say(`The enriched file: ${enriched}`, bold);
    say('Every row and cell of fixtures/sample.csv as it was, then our columns: status, host, technologies, traffic...', dim);
    say('Next: the recipes in README.md, the details in docs/.', dim);
  } else rmSync(kept, { recursive: true, force: true });
} finally {
  sandbox.kill('SIGINT');
  rmSync(home, { recursive: true, force: true });
}
process.exit(code);
