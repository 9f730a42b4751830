// The warm re-run's floor: the least work any tool must do to read a CSV and write it back, with the two
// libraries a Node user would reach for. Streams FILE through csv-parse (records as arrays of strings) and
// csv-stringify (the same records, unchanged) into OUT. No normalising, no cache, no appended columns: a
// re-run whose every answer is cached still reads and writes the whole file, and this is that part alone.
// Prints one JSON line: rows, ms.
//
//   node bench/floor-csv.mjs FILE OUT
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';

const [file, out] = process.argv.slice(2);
if (!file || !out) {
  console.error('usage: node bench/floor-csv.mjs FILE OUT');
  process.exit(2);
}
const started = performance.now();
let rows = 0;
const parser = parse({ relax_column_count: true });
parser.on('data', () => rows++);
await pipeline(createReadStream(file), parser, stringify(), createWriteStream(out));
process.stdout.write(`${JSON.stringify({ rows, ms: Math.round(performance.now() - started) })}\n`);
