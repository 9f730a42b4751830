// `node bench/machines.mjs` (after `npm run build`): what a team gets from one shared store, side by side in
// one run. Three machines (each a process with its own HOME, config and cache; as root in its own PID and UTS
// namespace) enrich overlapping lists on one account at once, with the plan known: first each with its own
// local SQLite cache (as before the shared store), then all on one PostgreSQL store. Counted from the
// sandbox's own charge and request log: hosts bought twice, 429s, the share of the account's rate used, wall
// time against the ideal. Then the 1,000,000-row run (BENCH_PG_ROWS) with the PostgreSQL store against the
// default SQLite one, unmetered: wall time and the server's transactions per batch.
//
// Knobs: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_M_HOSTS (hosts per machine,
// 20,000), BENCH_M_RATE (requests per second, 40), BENCH_PG_ROWS (1,000,000; 0 skips that part),
// BENCH_M_SKIP_TEAM=1 (only the big run).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { generate } from './gen.mjs';
import { BIN, NODE, ROOT, cleanEnv, envInt, freshDir, makeTemp, privateDir, removeDir, startSandbox, timed, unmeteredSandbox } from './lib.mjs';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HOSTS = envInt('BENCH_M_HOSTS', 20_000);
const RATE = envInt('BENCH_M_RATE', 40);
const ROWS = envInt('BENCH_PG_ROWS', 1_000_000);
const SKIP_TEAM = process.env.BENCH_M_SKIP_TEAM === '1';
const ROOT_USER = process.getuid?.() === 0;
const tmp = makeTemp();
const began = Date.now();
const log = (msg) => process.stderr.write(`[machines +${((Date.now() - began) / 1000).toFixed(0)}s] ${msg}\n`);
const schemas = [];
const storeUrl = () => {
  const schema = `di_bench_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;
};

function runMachine(name, args, env) {
  const argv = ROOT_USER ? ['-p', '-f', '-u', '--mount-proc', 'sh', '-c', 'hostname "$0" && exec "$@"', name, NODE, BIN, ...args] : [BIN, ...args];
  return new Promise((resolve) => {
    const child = spawn(ROOT_USER ? 'unshare' : NODE, argv, { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function team(sb, store) {
  const lists = [0, 1, 2].map((i) => {
    const file = join(tmp, `team-${i}.csv`);
    const from = (i * HOSTS) / 2;
    writeFileSync(file, `domain\n${Array.from({ length: HOSTS }, (_, k) => `team-${from + k}.example.com`).join('\n')}\n`);
    return file;
  });
  const distinct = 2 * HOSTS;
  await sb.admin('reset-counters', 'POST');
  const started = Date.now();
  const results = await Promise.all(
    lists.map((file, i) => {
      const home = freshDir(tmp, `home-${store ? 'pg' : 'local'}-${i}`);
      const env = cleanEnv({
        HOME: home,
        DOMAIN_INTEL_BASE_URL: sb.baseUrl,
        DOMAIN_INTEL_API_KEY: sb.key,
        DOMAIN_INTEL_CONFIG_DIR: privateDir(join(home, 'config')),
        DOMAIN_INTEL_CACHE_DIR: privateDir(join(home, 'cache')),
        ...(store ? { DOMAIN_INTEL_STORE: store } : {}),
      });
      return runMachine(`m${i}`, ['batch', file, '-o', join(home, 'out.csv'), '--quiet', '--rate', `${RATE}/1s`], env);
    }),
  );
  const wallMs = Date.now() - started;
  for (const r of results) if (r.code !== 0) log(`a machine exited ${r.code}: ${r.stderr.slice(0, 500)}`);
  const charges = await sb.admin('charges');
  const twice = Object.values(charges.byHost).filter((n) => n > 1).length;
  const accepted = charges.requests - charges.rateLimited;
  const idealMs = ((distinct / 100 - RATE) / RATE) * 1000;
  return {
    store: store ? 'one PostgreSQL store' : 'a local SQLite cache each',
    distinct,
    charged: charges.total,
    twice,
    rateLimited: charges.rateLimited,
    requests: charges.requests,
    rateShare: accepted / ((wallMs / 1000) * RATE),
    wallMs,
    idealMs,
    codes: results.map((r) => r.code),
  };
}

async function transactions(db) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    // The statistics collector lags; pg_stat_clear_snapshot and a pause make the figure settle.
    await new Promise((r) => setTimeout(r, 1000));
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [db]);
    return Number(rows[0]?.n ?? Number.NaN);
  } finally {
    await client.end();
  }
}

async function bigRun() {
  const input = join(tmp, 'big.csv');
  const { sb, env } = await unmeteredSandbox(tmp, 20_000);
  const { distinct } = await generate({ csvPath: input, rows: ROWS, held: await sb.admin('hosts') });
  const db = new URL(PG_URL).pathname.slice(1);
  const out = {};
  try {
    for (const kind of ['sqlite', 'postgres']) {
      const cacheDir = freshDir(tmp, `big-cache-${kind}`);
      const store = kind === 'postgres' ? storeUrl() : null;
      const runEnv = { ...env, DOMAIN_INTEL_CACHE_DIR: cacheDir, ...(store ? { DOMAIN_INTEL_STORE: store } : {}) };
      const before = kind === 'postgres' ? await transactions(db) : 0;
      log(`1M rows, ${kind} store`);
      const r = await timed([BIN, 'batch', input, '-o', join(tmp, `big-${kind}.csv`), '--quiet', '--concurrency', '8'], { env: runEnv });
      const after = kind === 'postgres' ? await transactions(db) : 0;
      if (r.code !== 0) log(`${kind}: exit ${r.code}: ${r.stderr.slice(0, 500)}`);
      out[kind] = { ms: r.ms, rssMB: r.rssMB, code: r.code, xactPerBatch: kind === 'postgres' ? (after - before) / Math.ceil(distinct / 100) : null };
    }
  } finally {
    await sb.stop();
  }
  return { rows: ROWS, distinct, ...out };
}

async function main() {
  const sb = await startSandbox(['--rpm', String(RATE), '--window-ms', '1000', '--latency-ms', '20', '--quota', '2000000000'], {
    configDir: freshDir(tmp, 'sandbox-config'),
  });
  const rows = [];
  try {
    if (!SKIP_TEAM) {
      log(`three machines, local caches (${HOSTS} hosts each)`);
      rows.push(await team(sb, null));
      log('three machines, one PostgreSQL store');
      rows.push(await team(sb, storeUrl()));
    }
  } finally {
    await sb.stop();
  }
  const big = ROWS > 0 ? await bigRun() : null;
  const pct = (x) => `${(x * 100).toFixed(0)}%`;
  const lines = SKIP_TEAM
    ? []
    : [
        `Three machines${ROOT_USER ? ' (separate PID and UTS namespaces)' : ''}, lists of ${HOSTS.toLocaleString('en-US')} overlapping by half, the plan known (${RATE} requests a second):`,
        '',
        '| Store | Distinct hosts | Charged | Hosts bought twice | 429s | Share of the rate used | Wall / ideal |',
        '|---|---|---|---|---|---|---|',
        ...rows.map(
          (r) =>
            `| ${r.store} | ${r.distinct.toLocaleString('en-US')} | ${r.charged.toLocaleString('en-US')} | ${r.twice.toLocaleString('en-US')} | ${r.rateLimited} | ${pct(r.rateShare)} | ${(r.wallMs / 1000).toFixed(1)} s / ${(r.idealMs / 1000).toFixed(1)} s = ${(r.wallMs / r.idealMs).toFixed(2)}x |`,
        ),
      ];
  if (big) {
    lines.push(
      '',
      `${big.rows.toLocaleString('en-US')} rows (${big.distinct.toLocaleString('en-US')} distinct hosts), unmetered, the store's cost:`,
      '',
      '| Store | Wall | Peak RSS | Server transactions per 100-host batch |',
      '|---|---|---|---|',
      `| SQLite (default) | ${(big.sqlite.ms / 1000).toFixed(1)} s | ${big.sqlite.rssMB.toFixed(0)} MB | - |`,
      `| PostgreSQL | ${(big.postgres.ms / 1000).toFixed(1)} s | ${big.postgres.rssMB.toFixed(0)} MB | ${big.postgres.xactPerBatch.toFixed(1)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main()
  .catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    removeDir(tmp);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect().catch(() => {});
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`).catch(() => {});
    await client.end().catch(() => {});
  });
