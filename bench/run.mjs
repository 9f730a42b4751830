// `npm run bench`: every benchmark side by side in one run, on this machine, with ratios to a baseline
// measured in the same run (the machine is shared and noisy; absolute figures drift, ratios much less).
// Writes BENCHMARKS.md (or BENCH_OUT). See bench/README.md for what each part measures and the knobs.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from './gen.mjs';
import { BIN, ROOT, cleanEnv, countLines, envInt, freshDir, machine, makeTemp, median, privateDir, removeDir, startSandbox, timed } from './lib.mjs';
import { rateLimit } from './rate.mjs';
import { startup } from './startup.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const cfg = {
  quick: QUICK,
  rows: envInt('BENCH_ROWS', QUICK ? 20_000 : 1_000_000),
  runs: envInt('BENCH_RUNS', QUICK ? 1 : 3),
  noCacheRuns: envInt('BENCH_NOCACHE_RUNS', 1),
  bigRows: envInt('BENCH_BIG_ROWS', QUICK ? 0 : 10_000_000),
  bigDistinct: envInt('BENCH_BIG_DISTINCT', 500_000),
  sandboxHosts: envInt('BENCH_SANDBOX_HOSTS', 20_000),
  concurrency: envInt('BENCH_CONCURRENCY', 8),
  rlRpm: envInt('BENCH_RL_RPM', 20),
  rlWindowMs: envInt('BENCH_RL_WINDOW_MS', 1000),
  rlHosts: envInt('BENCH_RL_HOSTS', QUICK ? 100 : 240),
  rlRuns: envInt('BENCH_RL_RUNS', QUICK ? 1 : 3),
  learnBoundMs: envInt('BENCH_LEARN_BOUND_MS', QUICK ? 4000 : 15_000),
  learnMinuteHosts: envInt('BENCH_LEARN_MINUTE_HOSTS', QUICK ? 0 : 100),
  startupRuns: envInt('BENCH_STARTUP_RUNS', QUICK ? 5 : 20),
  only: (process.env.BENCH_ONLY ?? 'throughput,rate,startup').split(',').map((s) => s.trim()),
};
const OUT = process.env.BENCH_OUT ?? (QUICK ? join(makeTemp(), 'BENCHMARKS.quick.md') : join(ROOT, 'BENCHMARKS.md'));
// BENCHMARKS.md ends with a hand-kept history of past measurements (the figures behind design choices),
// below this marker; a new report replaces everything above it and keeps that history.
const HISTORY_MARK = '<!-- history: kept by bench/run.mjs; write below this line -->';
function writeReport(md) {
  const old = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  const at = old.indexOf(HISTORY_MARK);
  writeFileSync(OUT, at >= 0 ? `${md}\n${old.slice(at)}` : md);
}
const began = Date.now();
const log = (msg) => process.stderr.write(`[bench +${((Date.now() - began) / 1000).toFixed(0)}s] ${msg}\n`);

const tmp = makeTemp();
const results = { cfg, machine: machine(), startedAt: new Date(began).toISOString() };

async function main() {
  log(`temp dir ${tmp}; ${JSON.stringify(cfg)}`);
  try {
    if (cfg.only.includes('throughput')) results.throughput = await throughput();
    if (cfg.only.includes('rate')) results.rate = await rateLimit(cfg, tmp, log);
    if (cfg.only.includes('startup')) results.startup = await startup(cfg, tmp, log);
  } finally {
    if (process.env.BENCH_KEEP !== '1') removeDir(tmp);
  }
  results.elapsedMs = Date.now() - began;
  const md = render(results);
  writeReport(md);
  process.stdout.write(`${md}\n`);
  log(`wrote ${OUT}`);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, `${JSON.stringify(results, null, 2)}\n`);
}

// ---- 1. throughput and memory -----------------------------------------------------------------------------

const RATE = '100000/1m';

function batchArgs(csv, out, extra = []) {
  return [BIN, 'batch', csv, '--rate', RATE, '--concurrency', String(cfg.concurrency), '-o', out, '--quiet', ...extra];
}

async function charges(sb) {
  const c = await sb.admin('charges');
  const counts = Object.values(c.byHost);
  return { total: c.total, requests: c.requests, rateLimited: c.rateLimited, paidTwice: counts.filter((n) => n > 1).length };
}

async function throughput() {
  const sbConfig = freshDir(tmp, 'sandbox-config');
  const sb = await startSandbox(['--rpm', '0', '--hosts', String(cfg.sandboxHosts), '--quota', '2000000000'], { configDir: sbConfig });
  try {
    const held = await sb.admin('hosts');
    const csv = join(tmp, 'rows.csv');
    const batches = join(tmp, 'batches.jsonl');
    log(`generating ${cfg.rows} rows`);
    const input = await generate({ csvPath: csv, batchesPath: batches, rows: cfg.rows, held });
    log(`input: ${JSON.stringify(input)}`);
    const runs = { floor: [], fresh: [], again: [], csvFloor: [], noCache: [] };
    const configDir = privateDir(join(tmp, 'cli-config'));
    const env = (cacheDir) =>
      cleanEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CONFIG_DIR: configDir, DOMAIN_INTEL_CACHE_DIR: cacheDir });
    const out = join(tmp, 'out.csv');

    for (let i = 0; i < cfg.runs; i++) {
      await sb.admin('reset-counters', 'POST');
      const f = await timed([join(ROOT, 'bench', 'floor.mjs'), batches, String(cfg.concurrency)], { env: env(tmp) });
      const fc = await charges(sb);
      runs.floor.push({ ...pick(f), ...fc, hosts: JSON.parse(f.stdout || '{}').hosts });
      log(`floor #${i + 1}: ${f.ms.toFixed(0)} ms, ${fc.requests} requests, rss ${f.rssMB.toFixed(0)} MB`);

      const cacheDir = freshDir(tmp, 'cache');
      await sb.admin('reset-counters', 'POST');
      const r = await timed(batchArgs(csv, out), { env: env(cacheDir) });
      const rc = await charges(sb);
      const lines = i === 0 ? await countLines(out).catch(() => NaN) : undefined;
      runs.fresh.push({ ...pick(r), ...rc, outLines: lines });
      log(
        `batch fresh cache #${i + 1}: exit ${r.code}, ${r.ms.toFixed(0)} ms, ${rc.total} lookups, ${rc.requests} requests, rss ${r.rssMB.toFixed(0)} MB${r.code ? `\n${r.stderr}` : ''}`,
      );

      await sb.admin('reset-counters', 'POST');
      const a = await timed(batchArgs(csv, out), { env: env(cacheDir) });
      const ac = await charges(sb);
      runs.again.push({ ...pick(a), ...ac });
      log(`batch same cache #${i + 1}: exit ${a.code}, ${a.ms.toFixed(0)} ms, ${ac.total} lookups, rss ${a.rssMB.toFixed(0)} MB`);
      removeDir(cacheDir);

      // The warm re-run's floor, right after it: the same file read with csv-parse and written with csv-stringify.
      const c = await timed([join(ROOT, 'bench', 'floor-csv.mjs'), csv, out], { env: env(tmp) });
      runs.csvFloor.push(pick(c));
      log(`csv floor #${i + 1}: exit ${c.code}, ${c.ms.toFixed(0)} ms, rss ${c.rssMB.toFixed(0)} MB`);

      if (i < cfg.noCacheRuns) {
        await sb.admin('reset-counters', 'POST');
        const n = await timed(batchArgs(csv, out, ['--no-cache']), { env: env(freshDir(tmp, 'unused-cache')) });
        const nc = await charges(sb);
        runs.noCache.push({ ...pick(n), ...nc });
        log(`batch --no-cache #${i + 1}: exit ${n.code}, ${n.ms.toFixed(0)} ms, ${nc.total} lookups, rss ${n.rssMB.toFixed(0)} MB`);
      }
    }
    removeDir(csv);

    let big = null;
    if (cfg.bigRows > 0) {
      const bigCsv = join(tmp, 'big.csv');
      const distinct = Math.min(cfg.bigDistinct || Math.ceil(cfg.bigRows / 2), Math.ceil(cfg.bigRows / 2));
      log(`generating ${cfg.bigRows} rows, ${distinct} distinct hosts`);
      const bigInput = await generate({ csvPath: bigCsv, rows: cfg.bigRows, held, distinct });
      log(`big input: ${JSON.stringify(bigInput)}`);
      const cacheDir = freshDir(tmp, 'cache-big');
      await sb.admin('reset-counters', 'POST');
      const r = await timed(batchArgs(bigCsv, out), { env: env(cacheDir) });
      const rc = await charges(sb);
      big = { input: bigInput, run: { ...pick(r), ...rc } };
      log(`batch big: exit ${r.code}, ${r.ms.toFixed(0)} ms, ${rc.total} lookups, rss ${r.rssMB.toFixed(0)} MB${r.code ? `\n${r.stderr}` : ''}`);
      removeDir(cacheDir);
      removeDir(bigCsv);
    }
    return { input, runs, big };
  } finally {
    await sb.stop();
  }
}

function pick(r) {
  return { code: r.code, ms: r.ms, rssMB: r.rssMB, ...(r.code ? { stderr: r.stderr.slice(0, 2000) } : {}) };
}

// ---- report -------------------------------------------------------------------------------------------------

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const verdict = (ok, miss) => (ok ? 'met' : `**missed**${miss ? ` (${miss})` : ''}`);

function render(r) {
  const m = r.machine;
  const L = [];
  L.push('# Benchmarks', '');
  L.push(
    `Generated by \`${r.cfg.quick ? 'BENCH_QUICK=1 ' : ''}npm run bench\` (bench/run.mjs) on ${r.startedAt.replace('T', ' ').slice(0, 16)} UTC, in ${f0(r.elapsedMs / 60000)} min.`,
  );
  L.push(
    `Machine: ${m.cores} cores (${m.model}), ${m.memGiB} GiB RAM, Node ${m.node}, ${m.os}. Shared and noisy: read the ratios, measured side by side in this run, rather than the absolute times.`,
  );
  L.push(
    `Peak RSS from ${m.hasGnuTime ? '`/usr/bin/time -f %M` (max resident set of the node process)' : 'VmHWM in /proc/<pid>/status, polled every 50 ms'}. Every figure is the median of the runs shown.`,
  );
  L.push(
    '',
    `Settings: ${Object.entries(r.cfg)
      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
      .join(', ')}`,
    '',
  );

  const summary = [];
  const sections = [];
  if (r.throughput) sections.push(renderThroughput(r.throughput, summary));
  if (r.rate) sections.push(renderRate(r.rate, summary));
  if (r.startup) sections.push(renderStartup(r.startup, summary));
  L.push('## Targets', '', '| target | measured | verdict |', '|---|---|---|');
  for (const s of summary) L.push(`| ${s[0]} | ${s[1]} | ${s[2]} |`);
  L.push('');
  for (const s of sections) L.push(...s, '');
  return L.join('\n');
}

function renderThroughput(t, summary) {
  const { input, runs, big } = t;
  const valid = input.distinct;
  const med = (list, k) => median(list.map((x) => x[k]));
  const floorMs = med(runs.floor, 'ms');
  const row = (name, list, lookupsPer) => {
    if (list.length === 0) return null;
    const ms = med(list, 'ms');
    const lookups = med(list, 'total');
    const requests = med(list, 'requests');
    const codes = [...new Set(list.map((x) => x.code))].join(',');
    const failed = list.some((x) => x.code !== 0) ? ' (failed, see below)' : '';
    return `| ${name}${failed} | ${list.length} | ${f2(ms / 1000)} | ${f2(ms / floorMs)}x | ${f0(input.rows / (ms / 1000))} | ${f0(lookups / (ms / 1000))} | ${f0(lookups)} | ${f0(requests)} | ${lookupsPer ? f2(lookups / valid) : '-'} | ${f0(med(list, 'paidTwice'))} | ${f0(med(list, 'rssMB'))} | ${codes} |`;
  };
  const L = [];
  L.push('## 1. Throughput, memory and lookups per result', '');
  L.push(
    `Input: ${f0(input.rows)} rows (id,company,website,notes), ${f0(valid)} distinct valid hosts (${f0(input.held)} held by the sandbox, the rest made up and answered \`missing\`), ${f0(input.invalid)} invalid cells; every host appears twice, as a bare name, a URL, upper case or an e-mail address. Sandbox in its own process: \`--rpm 0 --hosts ${cfg.sandboxHosts}\`; client rate \`--rate ${RATE}\` (no limit in practice), concurrency ${cfg.concurrency}.`,
  );
  L.push(
    '',
    '| run | runs | wall s | vs floor | rows/s | lookups/s | lookups | requests | lookups per distinct host | hosts paid twice | peak RSS MB | exit |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  // The warm re-run's own floor: its wall in "vs floor" is against the network floor like the rest; the
  // warm run's ratio to this one is in the targets.
  const csvFloorRow = () =>
    (runs.csvFloor ?? []).length
      ? `| floor of a re-run (bench/floor-csv.mjs: csv-parse into csv-stringify, the same file, no other work) | ${runs.csvFloor.length} | ${f2(med(runs.csvFloor, 'ms') / 1000)} | ${f2(med(runs.csvFloor, 'ms') / floorMs)}x | ${f0(input.rows / (med(runs.csvFloor, 'ms') / 1000))} | - | - | - | - | - | ${f0(med(runs.csvFloor, 'rssMB'))} | ${[...new Set(runs.csvFloor.map((x) => x.code))].join(',')} |`
      : null;
  const floorRow = runs.floor.length
    ? `| floor (bench/floor.mjs: pre-built 100-host batches, undici, answers discarded) | ${runs.floor.length} | ${f2(floorMs / 1000)} | 1.00x | ${f0(input.rows / (floorMs / 1000))} | ${f0(med(runs.floor, 'total') / (floorMs / 1000))} | ${f0(med(runs.floor, 'total'))} | ${f0(med(runs.floor, 'requests'))} | ${f2(med(runs.floor, 'total') / valid)} | ${f0(med(runs.floor, 'paidTwice'))} | ${f0(med(runs.floor, 'rssMB'))} | ${[...new Set(runs.floor.map((x) => x.code))].join(',')} |`
    : null;
  for (const line of [
    floorRow,
    row('`batch`, fresh cache', runs.fresh, true),
    row('`batch`, same file again, same cache', runs.again, true),
    csvFloorRow(),
    row('`batch --no-cache`', runs.noCache, true),
  ])
    if (line) L.push(line);
  if (big) {
    const b = big.run;
    L.push(
      `| \`batch\`, ${f0(big.input.rows)} rows, ${f0(big.input.distinct)} distinct hosts, fresh cache | 1 | ${f2(b.ms / 1000)} | - | ${f0(big.input.rows / (b.ms / 1000))} | ${f0(b.total / (b.ms / 1000))} | ${f0(b.total)} | ${f0(b.requests)} | ${f2(b.total / big.input.distinct)} | ${f0(b.paidTwice)} | ${f0(b.rssMB)} | ${b.code} |`,
    );
  }
  L.push('');
  const per = runs.fresh.map((x, i) => (runs.floor[i] ? x.ms / runs.floor[i].ms : NaN));
  L.push(
    `Per-run wall ratios batch/floor (same iteration): ${per.map(f2).join(', ')}. Raw wall ms: floor ${runs.floor.map((x) => f0(x.ms)).join(', ')}; batch ${runs.fresh.map((x) => f0(x.ms)).join(', ')}; again ${runs.again.map((x) => f0(x.ms)).join(', ')}; csv floor ${(runs.csvFloor ?? []).map((x) => f0(x.ms)).join(', ')}; no-cache ${runs.noCache.map((x) => f0(x.ms)).join(', ')}.`,
  );
  if (runs.fresh[0]?.outLines !== undefined)
    L.push(`Output check: the first fresh run wrote ${f0(runs.fresh[0].outLines)} lines (header + ${f0(input.rows)} rows expected).`);
  const minRequests = Math.ceil(valid / 100);
  L.push(`A perfect client needs ${f0(minRequests)} requests (${f0(valid)} hosts / 100 per batch); the floor sends exactly that.`);
  if (big && big.input.distinct < Math.ceil(big.input.rows / 2)) {
    L.push(
      '',
      `The ${f0(big.input.rows)}-row run uses ${f0(big.input.distinct)} distinct hosts, not ${f0(big.input.rows / 2)}: with half the rows distinct it would take well over 10 minutes on this machine (at the 1M-row rate), so most of its rows are duplicates of recent hosts (the new hosts are spread evenly over the file, one every ${f0(big.input.rows / big.input.distinct)} rows). It is there for memory: it streams ${f0(big.input.rows)} rows through the whole pipeline.`,
    );
  }
  const failed = [
    ...runs.floor.map((x) => ['floor', x]),
    ...runs.fresh.map((x) => ['batch, fresh cache', x]),
    ...runs.again.map((x) => ['batch, same cache', x]),
    ...runs.noCache.map((x) => ['batch --no-cache', x]),
    ...(big ? [['batch, big', big.run]] : []),
  ].filter(([, x]) => x.code !== 0);
  if (failed.length) {
    L.push('', '**Runs that did not exit 0** (their wall times are not comparable):', '');
    for (const [name, x] of failed)
      L.push(
        `- ${name}: exit ${x.code}${x.code === 13 ? " (Node's exit code for a top-level await that never settled: the run stopped making progress and the process ran out of work)" : ''}, after ${f0(x.ms)} ms${x.stderr?.trim() ? `; stderr: \`${x.stderr.trim().slice(0, 300).replace(/`/g, "'")}\`` : '; nothing on stderr'}`,
      );
  }
  L.push('', 'Commands (paths shortened):', '', '```sh');
  L.push(`domain-intel sandbox --port 0 --rpm 0 --hosts ${cfg.sandboxHosts} --quota 2000000000   # own process; admin routes give charges`);
  L.push(`node bench/floor.mjs batches.jsonl ${cfg.concurrency}`);
  L.push(
    `DOMAIN_INTEL_CACHE_DIR=<fresh> /usr/bin/time -f %M domain-intel batch rows.csv --rate ${RATE} --concurrency ${cfg.concurrency} -o out.csv --quiet   # then again, same cache`,
  );
  L.push(`domain-intel batch rows.csv --rate ${RATE} --concurrency ${cfg.concurrency} -o out.csv --quiet --no-cache`);
  L.push('```');

  const ratio = med(runs.fresh, 'ms') / floorMs;
  if (runs.fresh.length && runs.floor.length)
    summary.push([
      `\`batch\` ${f0(input.rows)} rows, fresh cache: wall within 4.0x of the floor`,
      `${f2(ratio)}x`,
      verdict(ratio <= 4, `by ${f2(ratio / 4)}x`),
    ]);
  const warm = med(runs.again, 'ms') / med(runs.csvFloor ?? [], 'ms');
  if (runs.again.length && runs.csvFloor?.length)
    summary.push([
      `\`batch\` ${f0(input.rows)} rows, same file again (0 requests): wall within 1.6x of csv-parse + csv-stringify over the same file`,
      `${f2(warm)}x`,
      verdict(warm <= 1.6, `by ${f2(warm / 1.6)}x`),
    ]);
  const rss = med(runs.fresh, 'rssMB');
  if (runs.fresh.length) summary.push([`peak RSS, ${f0(input.rows)} rows, at most 150 MB`, `${f0(rss)} MB`, verdict(rss <= 150, `by ${f0(rss - 150)} MB`)]);
  if (big)
    summary.push([
      `peak RSS, ${f0(big.input.rows)} rows, at most 150 MB`,
      `${f0(big.run.rssMB)} MB`,
      verdict(big.run.rssMB <= 150, `by ${f0(big.run.rssMB - 150)} MB`),
    ]);
  const lpr = med(runs.fresh, 'total') / valid;
  if (runs.fresh.length)
    summary.push(['lookups per distinct valid host, fresh cache: 1.00', f2(lpr), verdict(Math.abs(lpr - 1) < 0.005 && med(runs.fresh, 'paidTwice') === 0)]);
  const again = med(runs.again, 'total');
  const againExits = [...new Set(runs.again.map((x) => x.code))];
  const againNote = againExits.some((c) => c !== 0) ? `; but the run exited ${againExits.join(',')} without writing its output (see §1)` : '';
  if (runs.again.length)
    summary.push([
      'lookups on a second run, same cache: 0.00 per host',
      `${f2(again / valid)} (${f0(again)} lookups)${againNote}`,
      againNote ? `${verdict(again === 0)} for lookups; **the run itself failed**` : verdict(again === 0),
    ]);
  const req = med(runs.fresh, 'requests');
  if (runs.fresh.length)
    summary.push([
      '(no target) requests sent vs the minimum',
      `${f0(req)} vs ${f0(minRequests)} (${f2(req / minRequests)}x)`,
      req <= minRequests * 1.01 ? 'ok' : 'more requests than needed: costs rate limit',
    ]);
  return L;
}

function renderRate(r, summary) {
  const L = ['## 2. Use of the rate limit', ''];
  const k = r.known;
  L.push(
    `Sandbox \`--rpm ${r.rpm} --window-ms ${r.windowMs}\` (${r.rpm} requests per ${r.windowMs} ms "minute", fixed windows); \`traffic --input hosts.txt\` over ${r.hosts} distinct held hosts (1 request each), concurrency ${cfg.concurrency}, fresh config and cache dirs per run. Achieved = requests accepted per full sandbox window (windows wholly inside the run, from the sandbox's request log) / limit.`,
    '',
  );
  L.push(
    '| case | runs | wall s | ideal wall s | requests | 429s | median per full window / limit | mean per full window / limit | max in one window | learned |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  const line = (name, list, ideal) => {
    const med = (key) => median(list.map((x) => x[key]));
    L.push(
      `| ${name} | ${list.length} | ${f2(med('ms') / 1000)} | ${ideal === null ? '-' : f2(ideal / 1000)} | ${f0(med('requests'))} | ${f0(med('rateLimited'))} | ${f2(med('medianFrac'))} | ${f2(med('meanFrac'))} | ${f0(med('maxWindow'))} | ${list.map((x) => x.learned ?? '-').join('; ')} |`,
    );
  };
  const ideal = (Math.ceil(r.hosts / r.rpm) - 1) * r.windowMs;
  line(`plan known: \`--rate ${r.rpm}/${r.windowMs}ms\``, k, ideal);
  if (r.unknown?.length)
    line(
      `plan unknown, sandbox window ${r.windowMs} ms, interrupted after ${f0(r.learnBoundMs / 1000)} s (windows counted after the last 429)`,
      r.unknown,
      null,
    );
  if (r.minute?.length)
    line(
      `plan unknown, sandbox window 60 s (\`--rpm ${r.rpm} --window-ms 60000\`), ${r.minuteHosts} hosts (windows counted after the last 429)`,
      r.minute,
      (Math.ceil(r.minuteHosts / r.rpm) - 1) * 60_000,
    );
  L.push('');
  L.push(
    `Accepted requests per full window, plan known: ${k.map((x, i) => `run ${i + 1}: ${x.windows.join(' ')} (mean ${f2(x.meanFrac)})`).join('; ')}. A window below ${r.rpm} inside a run means requests started later than the pacing allowed (cause not isolated; on this shared machine most likely the client process stalled); the client's sliding window (${r.windowMs} ms plus a 1% margin) never sends more than ${r.rpm} in any window, so time lost is not caught up, by design. 429s per run: ${k.map((x) => x.rateLimited).join(', ')}.`,
  );
  if (r.unknown?.[0])
    L.push(
      `Plan unknown (${r.windowMs} ms windows), first run: 429s ${r.unknown[0].rateLimited}, accepted per window from the first request: ${r.unknown[0].allWindows.join(' ')}; stderr: ${JSON.stringify(r.unknown[0].learnedLine ?? '')}.`,
    );
  if (r.unknown?.[0])
    L.push(
      '',
      `With the plan unknown the client has no window length either: the minute it starts from is only a default (cli/run/batch-run.ts tells the RateLimiter so: \`windowGuessed\`). At the first 429 it resumes at the reset the service announced, and paces at what the service accepted in the window ending there, over a window no longer than that reset's distance from the first request it may have counted; the second 429's reset measures the window (the gap between resets), and only then is the rate stored for the account (state.sqlite) as confirmed and announced (before that, what each 429 taught is kept unconfirmed, for a run stopped early to resume from). After four whole windows at the cap with no 429 it tries a quarter more (a probe, never stored), which the next 429 corrects.`,
      '',
    );
  if (r.minute?.[0])
    L.push(
      `Plan unknown (60 s windows), first run: 429s ${r.minute[0].rateLimited}, accepted per window from the first request: ${r.minute[0].allWindows.join(' ')}; stderr: ${JSON.stringify(r.minute[0].learnedLine ?? '')}.`,
    );
  L.push(
    '',
    '```sh',
    `domain-intel sandbox --port 0 --rpm ${r.rpm} --window-ms ${r.windowMs}`,
    `domain-intel traffic --input hosts.txt --rate ${r.rpm}/${r.windowMs}ms --concurrency ${cfg.concurrency} --format csv -o out.csv --quiet`,
    `domain-intel traffic --input hosts.txt --concurrency ${cfg.concurrency} --format csv -o out.csv --quiet   # fresh DOMAIN_INTEL_CONFIG_DIR: plan unknown`,
    '```',
  );
  const frac = median(k.map((x) => x.medianFrac));
  const n429 = median(k.map((x) => x.rateLimited));
  const meanFrac = median(k.map((x) => x.meanFrac));
  const wall = median(k.map((x) => x.ms));
  summary.push([
    `rate limit, plan known: ≥ 95% of the limit per window`,
    `${f0(frac * 100)}% (median window); mean of full windows ${f0(meanFrac * 100)}%; wall ${f2(wall / 1000)} s vs ${f2(ideal / 1000)} s ideal`,
    verdict(frac >= 0.95, `by ${f0((0.95 - frac) * 100)} points`),
  ]);
  summary.push(['rate limit, plan known: zero 429s', f0(n429), verdict(n429 === 0)]);
  if (r.unknown?.length) {
    const u = r.unknown;
    summary.push([
      `(no target) plan unknown, ${r.windowMs} ms windows: 429s before settling; share of the limit after`,
      `${f0(median(u.map((x) => x.rateLimited)))} 429s; ${f0(median(u.map((x) => x.meanFrac)) * 100)}% (mean of full windows after the last 429)`,
      'see §2',
    ]);
  }
  if (r.minute?.length) {
    const u = r.minute;
    summary.push([
      '(no target) plan unknown, 60 s windows: 429s before settling; share of the limit after',
      `${f0(median(u.map((x) => x.rateLimited)))} 429s; ${f0(median(u.map((x) => x.medianFrac)) * 100)}% (median of full windows after the last 429)`,
      'see §2',
    ]);
  }
  return L;
}

function renderStartup(s, summary) {
  const L = ['## 3. Start-up', ''];
  L.push(
    `${s.runs} runs of each command, interleaved (order rotated every round, one unmeasured warm-up round), wall time around \`spawnSync\` (${s.hyperfine ? 'hyperfine present but not used' : 'hyperfine is not installed'}). \`lookup\` is against a local sandbox in its own process, a different held host every run, with an existing cache (so: open cache, miss, one request, store, print JSON); \`lookup\` (cached) asks for one host every run, answered from the cache (the warm-up round stored it: no request).`,
    '',
  );
  L.push('| command | median ms | min ms | max ms | vs `node -e 0` | target |', '|---|---|---|---|---|---|');
  const bare = median(s.times.bare);
  const targets = { help: 1.5, cached: 2.0 };
  for (const [name, label] of [
    ['bare', '`node -e 0`'],
    ['version', '`domain-intel --version`'],
    ['help', '`domain-intel --help`'],
    ['lookup', '`domain-intel lookup <host>`'],
    ['cached', '`domain-intel lookup <host>` (cached)'],
  ]) {
    const t = s.times[name];
    if (!t) continue;
    const med = median(t);
    const ratio = med / bare;
    const target = targets[name];
    L.push(
      `| ${label} | ${f1(med)} | ${f1(Math.min(...t))} | ${f1(Math.max(...t))} | ${f2(ratio)}x | ${target ? `≤ ${target}x: ${verdict(ratio <= target, `by ${f2(ratio / target)}x`)}` : '-'} |`,
    );
    if (target)
      summary.push([
        `start-up: \`${name === 'help' ? '--help' : 'lookup <host>'}\`${name === 'cached' ? ' (cached)' : ''} within ${target}x of \`node -e 0\``,
        `${f2(ratio)}x (${f1(med)} ms vs ${f1(bare)} ms)`,
        verdict(ratio <= target, `by ${f2(ratio / target)}x`),
      ]);
  }
  if (s.failures.length) L.push('', `Failures: ${s.failures.join('; ')}`);
  return L;
}

// BENCH_RENDER=results.json (saved with BENCH_JSON) rewrites the report from a finished run, without running.
const entry = process.env.BENCH_RENDER
  ? async () => {
      const saved = JSON.parse(readFileSync(process.env.BENCH_RENDER, 'utf8'));
      Object.assign(cfg, saved.cfg);
      const md = render(saved);
      writeReport(md);
      process.stdout.write(`${md}\n`);
      log(`wrote ${OUT} from ${process.env.BENCH_RENDER}`);
    }
  : main;

entry().catch((err) => {
  log(`failed: ${err.stack ?? err}`);
  process.exitCode = 1;
});
