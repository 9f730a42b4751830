// `node bench/xlsx.mjs` (after `npm run build`): peak RSS of spreadsheets in and out (issue 15), for
// XLSX_ROWS (100,000 and 1,000,000) rows side by side, so memory that grew with the input would show. Each
// size is the bench's usual CSV (gen.mjs) with XLSX_DISTINCT (20,000) distinct hosts, the same for every
// size, so the run's own per-host memory (the seen-set, the cache) is the same too; the cache is filled
// first by a CSV run, so the measured runs are cache hits and not network-bound. Measured per size:
// CSV in, CSV out (the baseline); CSV in, xlsx out (the writer); that xlsx in, CSV out (the reader: the file
// carries our columns, which are dropped on reading as an earlier run's). Prints a Markdown table;
// BENCHMARKS.md keeps the figure by hand (its history section).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from './gen.mjs';
import { BIN, envInt, makeTemp, mib, removeDir, timed, unmeteredSandbox } from './lib.mjs';

const SIZES = (process.env.XLSX_ROWS ?? '100000,1000000').split(',').map(Number);
const DISTINCT = envInt('XLSX_DISTINCT', 20_000);
const log = (msg) => process.stderr.write(`[xlsx] ${msg}\n`);

async function main() {
  const tmp = makeTemp();
  const { sb, env } = await unmeteredSandbox(tmp, 20_000);
  const lines = [];
  try {
    const held = await sb.admin('hosts');
    const run = async (what, args) => {
      const r = await timed([BIN, 'batch', ...args, '--rate', '100000/1m', '--quiet'], { env });
      if (r.code !== 0) throw new Error(`${what}: exit ${r.code}: ${r.stderr}`);
      log(`${what}: ${(r.ms / 1000).toFixed(1)} s, ${r.rssMB.toFixed(0)} MB`);
      return r;
    };
    for (const rows of SIZES) {
      const csv = join(tmp, `rows-${rows}.csv`);
      await generate({ csvPath: csv, rows, held, distinct: DISTINCT });
      await run(`${rows}: fill the cache`, [csv, '-o', join(tmp, 'fill.csv')]);
      const base = await run(`${rows}: csv -> csv`, [csv, '-o', join(tmp, 'out.csv')]);
      const book = join(tmp, `out-${rows}.xlsx`);
      const write = await run(`${rows}: csv -> xlsx`, [csv, '-o', book]);
      const read = await run(`${rows}: xlsx -> csv`, [book, '-o', join(tmp, 'back.csv')]);
      const cell = (r) => `${(r.ms / 1000).toFixed(1)} s, ${r.rssMB.toFixed(0)} MB`;
      lines.push(
        `| ${rows.toLocaleString('en')} | ${mib(statSync(csv).size)} | ${mib(statSync(book).size)} | ${cell(base)} | ${cell(write)} | ${cell(read)} |`,
      );
    }
  } finally {
    await sb.stop();
    if (process.env.BENCH_KEEP !== '1') removeDir(tmp);
  }
  process.stdout.write(
    ['| rows | CSV in MiB | xlsx out MiB | CSV -> CSV (wall, peak RSS) | CSV -> xlsx | xlsx -> CSV |', '|---|---|---|---|---|---|', ...lines, ''].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
