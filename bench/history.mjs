// `node bench/history.mjs` (after `npm run build`): what history in the cache (issue 17) costs on disk. The
// first night is a real `batch` run over every host the sandbox holds (HISTORY_HOSTS, 500,000), so the cache
// holds the sandbox's own answer bodies. The sandbox's data does not move yet (issue 17's release knob), so
// each later night refreshes every host through the library's cache (openCache, the same store the CLI
// writes, through its journal, in batches of 100 as the dispatcher stores them) with HISTORY_CHANGE_PCT (5)
// percent of the answers changed the way a release moves them: a technology adopted or dropped, or the
// traffic band moved. Reports the file's size after each night (write-ahead log checkpointed) and the
// history rows it holds. Prints a Markdown table; BENCHMARKS.md keeps the figure by hand.
import { createHash } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { openCache } from '../dist/index.js';
import { BIN, envInt, makeTemp, mib, removeDir, timed, unmeteredSandbox } from './lib.mjs';

const HOSTS = envInt('HISTORY_HOSTS', 500_000);
const NIGHTS = envInt('HISTORY_NIGHTS', 4);
const CHANGE_PCT = envInt('HISTORY_CHANGE_PCT', 5);
const DAY = 86_400_000;
const log = (msg) => process.stderr.write(`[history] ${msg}\n`);

/** Whether `host` changes on `night`: a hash, so each night picks its own CHANGE_PCT percent. */
const changes = (host, night) => createHash('sha1').update(`${night}/${host}`).digest().readUInt32BE(0) % 100 < CHANGE_PCT;

/** A changed body: every other change adopts or drops a technology, the rest move the traffic band. */
function changed(body, night) {
  const b = structuredClone(body);
  if (night % 2 === 1 || !b.traffic) {
    const tech = b.technologies ?? [];
    b.technologies = tech.includes('Shopify') ? tech.filter((t) => t !== 'Shopify') : [...tech, 'Shopify'].sort();
  } else {
    b.traffic.estimated_monthly_visits = Math.round(b.traffic.estimated_monthly_visits * 3.3);
    b.traffic.band = `${b.traffic.band}+`;
  }
  return b;
}

function measure(file) {
  const db = new Sqlite(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const history = db.prepare('SELECT COUNT(*) FROM history').pluck().get();
    const answers = db.prepare('SELECT COUNT(*) FROM answers').pluck().get();
    let historyBytes = null;
    try {
      historyBytes = db.prepare("SELECT SUM(pgsize) FROM dbstat WHERE name IN ('history', 'history_by_host')").pluck().get();
    } catch {
      // dbstat is compiled into some SQLite builds only: the file's growth tells the same.
    }
    const free = db.pragma('freelist_count', { simple: true }) * db.pragma('page_size', { simple: true });
    return { bytes: statSync(file).size, free, answers, history, historyBytes };
  } finally {
    db.close();
  }
}

async function main() {
  const tmp = makeTemp();
  const { sb, env, cacheDir } = await unmeteredSandbox(tmp, HOSTS);
  try {
    const hosts = await sb.admin('hosts');
    const list = join(tmp, 'hosts.txt');
    writeFileSync(list, `${hosts.join('\n')}\n`);
    log(`night 0: batch over ${hosts.length} hosts`);
    const first = await timed([BIN, 'batch', list, '--rate', '100000/1m', '--concurrency', '8', '-o', join(tmp, 'out.csv'), '--quiet'], {
      env,
      measureRss: false,
    });
    if (first.code !== 0) throw new Error(`batch exited ${first.code}: ${first.stderr}`);
    const file = join(cacheDir, 'cache.sqlite');
    const rows = [{ night: 0, ms: first.ms, ...measure(file) }];
    log(JSON.stringify(rows[0]));

    const start = Date.now();
    for (let night = 1; night <= NIGHTS; night++) {
      const began = Date.now();
      const cache = await openCache({ dir: cacheDir, clock: () => start + night * DAY });
      let changedCount = 0;
      for (let at = 0; at < hosts.length; at += 10_000) {
        const chunk = hosts.slice(at, at + 10_000);
        const held = cache.getMany('domain', chunk, Infinity);
        const answers = chunk.map((host) => {
          const e = held.get(host);
          if (e?.status === 'found' && changes(host, night)) {
            changedCount++;
            return { endpoint: 'domain', host, status: 'found', body: changed(e.body, night) };
          }
          return { endpoint: 'domain', host, status: e?.status ?? 'missing', body: e?.body ?? null };
        });
        for (let b = 0; b < answers.length; b += 100) cache.putMany(answers.slice(b, b + 100));
      }
      cache.close();
      rows.push({ night, ms: Date.now() - began, changed: changedCount, ...measure(file) });
      log(JSON.stringify(rows.at(-1)));
    }
    report(rows);
  } finally {
    await sb.stop();
    removeDir(tmp);
  }
}

function report(rows) {
  const out = [
    '| night | answers | changed | past answers | file MiB | growth MiB | history MiB (dbstat) | bytes per past answer |',
    '|---|---|---|---|---|---|---|---|',
  ];
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    const growth = prev ? r.bytes - r.free - (prev.bytes - prev.free) : null;
    const per = prev && r.history > prev.history ? Math.round(growth / (r.history - prev.history)) : null;
    out.push(
      `| ${r.night} | ${r.answers} | ${r.changed ?? '-'} | ${r.history} | ${mib(r.bytes)} | ${growth === null ? '-' : mib(growth)} | ${r.historyBytes === null ? '-' : mib(r.historyBytes)} | ${per ?? '-'} |`,
    );
  });
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
