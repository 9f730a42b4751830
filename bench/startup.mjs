// 3. Start-up: `--version`, `--help`, one `lookup` (a miss) and one cached `lookup` against `node -e 0`, interleaved, wall time around
// spawnSync (hyperfine is not assumed). The lookup goes to a local sandbox in its own process.
import { spawnSync } from 'node:child_process';
import { BIN, NODE, cleanEnv, freshDir, startSandbox } from './lib.mjs';

function time(args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(NODE, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status, stderr: r.stderr };
}

export async function startup(cfg, tmp, log) {
  const sb = await startSandbox(['--rpm', '0', '--quota', '100000000'], { configDir: freshDir(tmp, 'su-sandbox') });
  try {
    const held = await sb.admin('hosts');
    const env = cleanEnv({
      DOMAIN_INTEL_BASE_URL: sb.baseUrl,
      DOMAIN_INTEL_API_KEY: sb.key,
      DOMAIN_INTEL_CONFIG_DIR: freshDir(tmp, 'su-config'),
      DOMAIN_INTEL_CACHE_DIR: freshDir(tmp, 'su-cache'),
    });
    let next = 0;
    const commands = {
      bare: () => ['-e', '0'],
      version: () => [BIN, '--version'],
      help: () => [BIN, '--help'],
      lookup: () => [BIN, 'lookup', held[1 + (next++ % (held.length - 1))]],
      // held[0] only: the warm-up round stores it, every measured run is answered from the cache.
      cached: () => [BIN, 'lookup', held[0]],
    };
    const names = Object.keys(commands);
    const times = Object.fromEntries(names.map((n) => [n, []]));
    const failures = [];
    for (let round = -1; round < cfg.startupRuns; round++) {
      const order = names.map((_, i) => names[(i + Math.max(0, round)) % names.length]);
      for (const name of order) {
        const r = time(commands[name](), env);
        if (r.status !== 0) failures.push(`${name} exit ${r.status}: ${r.stderr.trim().slice(0, 200)}`);
        if (round >= 0) times[name].push(r.ms);
      }
    }
    const hyperfine = spawnSync('hyperfine', ['--version']).status === 0;
    log(`startup: ${names.map((n) => `${n} ${times[n].sort((a, b) => a - b)[times[n].length >> 1]?.toFixed(0)} ms`).join(', ')}`);
    return { runs: cfg.startupRuns, times, failures, hyperfine };
  } finally {
    await sb.stop();
  }
}
