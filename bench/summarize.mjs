// `node bench/summarize.mjs` (after `npm run build`): peak RSS and wall time of `summarize` (issue 18) over
// SUMMARIZE_ROWS (100,000 and 1,000,000) enriched rows side by side, so memory that grew with the input would
// show. Each size is the bench's usual CSV (gen.mjs; half the rows distinct hosts, 20,000 of them held by the
// sandbox, the rest answered missing), enriched by `batch` into CSV and into a JSON array (the format a
// reader is most tempted to hold whole); then summarised as JSON, and as the HTML report. Prints a Markdown
// table; BENCHMARKS.md keeps the figure by hand (its history section).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from './gen.mjs';
import { BIN, makeTemp, mib, removeDir, timed, unmeteredSandbox } from './lib.mjs';

const SIZES = (process.env.SUMMARIZE_ROWS ?? '100000,1000000').split(',').map(Number);
const log = (msg) => process.stderr.write(`[summarize] ${msg}\n`);

async function main() {
  const tmp = makeTemp();
  const { sb, env } = await unmeteredSandbox(tmp, 20_000);
  const lines = [];
  try {
    const held = await sb.admin('hosts');
    const run = async (what, args) => {
      const r = await timed([BIN, ...args, '--quiet'], { env, stdoutFile: '/dev/null' });
      if (r.code !== 0) throw new Error(`${what}: exit ${r.code}: ${r.stderr}`);
      log(`${what}: ${(r.ms / 1000).toFixed(1)} s, ${r.rssMB.toFixed(0)} MB`);
      return r;
    };
    const cell = (r) => `${(r.ms / 1000).toFixed(1)} s, ${r.rssMB.toFixed(0)} MB`;
    for (const rows of SIZES) {
      const input = join(tmp, `rows-${rows}.csv`);
      await generate({ csvPath: input, rows, held });
      const csv = join(tmp, `enriched-${rows}.csv`);
      const json = join(tmp, `enriched-${rows}.json`);
      await run(`${rows}: batch -> CSV`, ['batch', input, '-o', csv, '--rate', '100000/1m']);
      await run(`${rows}: batch -> JSON`, ['batch', input, '-o', json, '--rate', '100000/1m']);
      const fromCsv = await run(`${rows}: summarize CSV`, ['summarize', csv, '--format', 'json']);
      const fromJson = await run(`${rows}: summarize JSON`, ['summarize', json, '--format', 'json']);
      const html = await run(`${rows}: summarize CSV --html`, ['summarize', csv, '--html', join(tmp, 'report.html')]);
      lines.push(
        `| ${rows.toLocaleString('en')} | ${mib(statSync(csv).size)} | ${cell(fromCsv)} | ${mib(statSync(json).size)} | ${cell(fromJson)} | ${cell(html)} |`,
      );
    }
  } finally {
    await sb.stop();
    if (process.env.BENCH_KEEP !== '1') removeDir(tmp);
  }
  process.stdout.write(
    ['| rows | CSV MiB | summarize CSV (wall, peak RSS) | JSON MiB | summarize JSON | summarize CSV --html |', '|---|---|---|---|---|---|', ...lines, ''].join(
      '\n',
    ),
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
