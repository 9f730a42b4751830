// Shared helpers of the benchmarks: a sandbox in its own process, timed child processes with their peak
// RSS, medians, and the machine's description.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, totalmem, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'domain-intel.js');
export const NODE = process.execPath;
const GNU_TIME = '/usr/bin/time';
export const HAS_GNU_TIME = existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true']).status === 0;

export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function envInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${raw}`);
  return Math.floor(n);
}

/** A fresh directory under `parent` with mode 0700 (the CLI insists on it for its config). */
export function freshDir(parent, name) {
  const dir = mkdtempSync(join(parent, `${name}-`));
  return dir;
}

export function makeTemp() {
  return mkdtempSync(join(tmpdir(), 'domain-intel-bench-'));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/** The environment a CLI child gets: ours without any DOMAIN_INTEL_* setting or proxy (the sandbox is local), plus `extra`. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DOMAIN_INTEL_') && !/^(https?|no)_proxy$/i.test(k)) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

export function machine() {
  const list = cpus();
  return {
    cores: list.length,
    model: list[0]?.model?.trim() ?? 'unknown',
    memGiB: (totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    os: `${process.platform} ${release()}`,
    hasGnuTime: HAS_GNU_TIME,
  };
}

/**
 * Runs `node args...` to completion. Returns { code, signal, ms, rssMB, stdout, stderr }. Peak RSS comes
 * from GNU time (%M, the child's max resident set) when present, else from polling /proc/<pid>/status
 * VmHWM every 50 ms. `timeoutMs` sends SIGINT (as Ctrl-C would) at that time.
 */
export function timed(args, { env, cwd = ROOT, timeoutMs = 0, measureRss = true, stdoutFile = null } = {}) {
  return new Promise((resolve, reject) => {
    const rssFile = measureRss && HAS_GNU_TIME ? join(tmpdir(), `bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`) : null;
    const [cmd, argv] = rssFile ? [GNU_TIME, ['-f', '%M', '-o', rssFile, NODE, ...args]] : [NODE, args];
    const started = process.hrtime.bigint();
    const child = spawn(cmd, argv, { env, cwd, stdio: ['ignore', stdoutFile ? 'ignore' : 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      if (stdout.length < 1 << 20) stdout += d;
    });
    child.stderr.on('data', (d) => {
      if (stderr.length < 1 << 20) stderr += d;
    });
    let hwmKB = 0;
    const poll =
      measureRss && !rssFile
        ? setInterval(() => {
            try {
              const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
              if (m) hwmKB = Math.max(hwmKB, Number(m[1]));
            } catch {}
          }, 50)
        : null;
    // With GNU time in between, the signal goes to node (time's only child) so it exits as on Ctrl-C.
    const timer = timeoutMs > 0 ? setTimeout(() => interrupt(child, rssFile !== null), timeoutMs) : null;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      let rssMB = hwmKB ? hwmKB / 1024 : NaN;
      if (rssFile) {
        try {
          const text = readFileSync(rssFile, 'utf8').trim().split('\n');
          rssMB = Number(text[text.length - 1]) / 1024;
          rmSync(rssFile, { force: true });
        } catch {}
      }
      resolve({ code, signal, ms, rssMB, stdout, stderr });
    });
  });
}

function interrupt(child, wrapped) {
  if (!wrapped) return child.kill('SIGINT');
  // /usr/bin/time ignores SIGINT itself; find its node child and interrupt that one.
  const kids = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean);
  if (kids.length === 0) return child.kill('SIGINT');
  for (const pid of kids) process.kill(Number(pid), 'SIGINT');
}

/** Starts `domain-intel sandbox` in its own process; resolves to { url, baseUrl, key, admin(), stop() }. */
export function startSandbox(args, { configDir }) {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [BIN, 'sandbox', '--port', '0', ...args], {
      env: cleanEnv({ DOMAIN_INTEL_CONFIG_DIR: configDir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`sandbox exited (${code}): ${err}`)));
    child.stdout.on('data', (d) => {
      out += d;
      // The banner's two lines, as pasted into a shell: `export NAME=value`.
      const baseUrl = /^export DOMAIN_INTEL_BASE_URL=(\S+)$/m.exec(out)?.[1];
      const key = /^export DOMAIN_INTEL_API_KEY=(\S+)$/m.exec(out)?.[1];
      if (!baseUrl || !key) return;
      const url = baseUrl.replace(/\/api\/v1\/?$/, '');
      const admin = async (name, method = 'GET') => {
        const res = await fetch(`${url}/__sandbox/${name}`, { method });
        if (!res.ok) throw new Error(`sandbox admin ${name}: ${res.status}`);
        return res.json();
      };
      const stop = () =>
        new Promise((done) => {
          child.removeAllListeners('exit');
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGINT');
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        });
      resolve({ url, baseUrl, key, pid: child.pid, admin, stop });
    });
  });
}

/**
 * An unmetered sandbox of `hosts` hosts in its own process (no rate limit, a quota no run spends), and a CLI
 * environment pointed at it with a config and a cache of its own under `tmp`: what every bench that measures
 * the client rather than the pacing starts from. Resolves to { sb, env, cacheDir }.
 */
export async function unmeteredSandbox(tmp, hosts) {
  const sb = await startSandbox(['--rpm', '0', '--hosts', String(hosts), '--quota', '2000000000'], { configDir: freshDir(tmp, 'sandbox-config') });
  const cacheDir = freshDir(tmp, 'cache');
  const env = cleanEnv({
    DOMAIN_INTEL_BASE_URL: sb.baseUrl,
    DOMAIN_INTEL_API_KEY: sb.key,
    DOMAIN_INTEL_CONFIG_DIR: privateDir(join(tmp, 'cli-config')),
    DOMAIN_INTEL_CACHE_DIR: cacheDir,
  });
  return { sb, env, cacheDir };
}

/** Bytes in MiB, one decimal, for a table. */
export const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

/** mkdir -p with mode 0700. */
export function privateDir(path) {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  return path;
}

/** Counts newline characters in a file, streaming. */
export async function countLines(path) {
  const { createReadStream } = await import('node:fs');
  let n = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
  }
  return n;
}
