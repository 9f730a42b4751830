// 2. Use of the rate limit: how much of the plan's requests per window the client gets, and how many 429s
// it meets, with the plan known (--rate) and unknown (learned from the first 429). Counted from the
// sandbox's own request log, per fixed sandbox window.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, freshDir, median, startSandbox, timed } from './lib.mjs';

/** Accepted requests per fixed window, for the windows wholly inside (from, to). */
export function windowStats(entries, windowMs, limit, from, to) {
  const api = entries.filter((e) => e.operation !== null).sort((a, b) => a.time - b.time);
  const accepted = api.filter((e) => e.status !== 429);
  const count = (lo, hi) => {
    const counts = [];
    for (let w = lo; w <= hi; w++) counts.push(0);
    for (const e of accepted) {
      const w = Math.floor(e.time / windowMs);
      if (w >= lo && w <= hi) counts[w - lo]++;
    }
    return counts;
  };
  const first = api[0]?.time ?? from;
  const full = count(Math.floor(from / windowMs) + 1, Math.floor(to / windowMs) - 1);
  const all = api.length ? count(Math.floor(first / windowMs), Math.floor((api[api.length - 1]?.time ?? first) / windowMs)) : [];
  return {
    requests: api.length,
    accepted: accepted.length,
    rateLimited: api.length - accepted.length,
    windows: full,
    allWindows: all,
    medianFrac: full.length ? median(full) / limit : NaN,
    meanFrac: full.length ? full.reduce((a, b) => a + b, 0) / full.length / limit : NaN,
    maxWindow: all.length ? Math.max(...all) : NaN,
  };
}

async function oneRun(sb, { hostsFile, args, tmp, timeoutMs, windowMs, limit }) {
  const configDir = freshDir(tmp, 'rl-config');
  const cacheDir = freshDir(tmp, 'rl-cache');
  await sb.admin('reset-counters', 'POST');
  const env = cleanEnv({
    DOMAIN_INTEL_BASE_URL: sb.baseUrl,
    DOMAIN_INTEL_API_KEY: sb.key,
    DOMAIN_INTEL_CONFIG_DIR: configDir,
    DOMAIN_INTEL_CACHE_DIR: cacheDir,
  });
  const started = Date.now();
  // Not --quiet: the learned rate is an info line, read from stderr below.
  const r = await timed([BIN, 'traffic', '--input', hostsFile, ...args, '--format', 'csv', '-o', join(tmp, 'rl-out.csv')], {
    env,
    timeoutMs,
    measureRss: false,
  });
  const ended = Date.now();
  const log = await sb.admin('requests');
  const api = log.filter((e) => e.operation !== null);
  // Settled: from the last 429 on (or from the start when there was none).
  const last429 = api.filter((e) => e.status === 429).reduce((t, e) => Math.max(t, e.time), 0);
  const lastTime = api.reduce((t, e) => Math.max(t, e.time), started);
  const stats = windowStats(log, windowMs, limit, last429 || api[0]?.time || started, timeoutMs ? ended : lastTime);
  const learnedLine = /the service allows about [^\n]*/.exec(r.stderr)?.[0] ?? null;
  const learned = /allows about (\d+) requests per ([^;]+);/.exec(r.stderr);
  return {
    code: r.code,
    signal: r.signal,
    ms: r.ms,
    ...stats,
    learnedLine,
    learned: learned ? `${learned[1]} per ${learned[2].trim()}` : null,
    stderr: r.code ? r.stderr.slice(0, 1000) : undefined,
  };
}

export async function rateLimit(cfg, tmp, log) {
  const { rlRpm: rpm, rlWindowMs: windowMs, rlHosts: hosts } = cfg;
  const result = { rpm, windowMs, hosts, learnBoundMs: cfg.learnBoundMs, minuteHosts: cfg.learnMinuteHosts, known: [], unknown: [], minute: [] };
  const sb = await startSandbox(['--rpm', String(rpm), '--window-ms', String(windowMs), '--quota', '100000000'], { configDir: freshDir(tmp, 'rl-sandbox') });
  try {
    const held = await sb.admin('hosts');
    const hostsFile = join(tmp, 'rl-hosts.txt');
    writeFileSync(hostsFile, `${held.slice(0, hosts).join('\n')}\n`);
    const conc = ['--concurrency', String(cfg.concurrency)];
    // Each run is one client alone on the account: the previous run's last window is let pass first (each
    // has its own cache directory, so nothing tells it of the other's requests, as with two machines).
    const quiet = () => new Promise((resolve) => setTimeout(resolve, windowMs * 1.5));
    for (let i = 0; i < cfg.rlRuns; i++) {
      await quiet();
      const k = await oneRun(sb, { hostsFile, args: ['--rate', `${rpm}/${windowMs}ms`, ...conc], tmp, timeoutMs: 0, windowMs, limit: rpm });
      result.known.push(k);
      log(
        `rate known #${i + 1}: exit ${k.code}, ${k.ms.toFixed(0)} ms, ${k.requests} requests, ${k.rateLimited} 429s, median/limit ${k.medianFrac.toFixed(2)}, windows ${k.windows.join(' ')}`,
      );
      if (cfg.learnBoundMs > 0) {
        await quiet();
        const u = await oneRun(sb, { hostsFile, args: conc, tmp, timeoutMs: cfg.learnBoundMs, windowMs, limit: rpm });
        result.unknown.push(u);
        log(
          `rate unknown #${i + 1}: exit ${u.code}, ${u.requests} requests, ${u.rateLimited} 429s, after settling mean/limit ${u.meanFrac.toFixed(2)}; ${u.learnedLine}; windows ${u.allWindows.join(' ')}`,
        );
      }
    }
  } finally {
    await sb.stop();
  }
  if (cfg.learnMinuteHosts > 0) {
    // The faithful unknown-plan case: the service's window is a real minute, as the client assumes.
    const sb60 = await startSandbox(['--rpm', String(rpm), '--window-ms', '60000', '--quota', '100000000'], { configDir: freshDir(tmp, 'rl-sandbox60') });
    try {
      const held = await sb60.admin('hosts');
      const hostsFile = join(tmp, 'rl-hosts60.txt');
      writeFileSync(hostsFile, `${held.slice(0, cfg.learnMinuteHosts).join('\n')}\n`);
      const m = await oneRun(sb60, { hostsFile, args: ['--concurrency', String(cfg.concurrency)], tmp, timeoutMs: 15 * 60_000, windowMs: 60_000, limit: rpm });
      result.minute.push(m);
      log(
        `rate unknown, 60 s window: exit ${m.code}, ${m.ms.toFixed(0)} ms, ${m.requests} requests, ${m.rateLimited} 429s, after settling median/limit ${m.medianFrac.toFixed(2)}; ${m.learnedLine}; windows ${m.allWindows.join(' ')}`,
      );
    } finally {
      await sb60.stop();
    }
  }
  return result;
}
