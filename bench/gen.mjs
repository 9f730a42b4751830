// Input generator for the throughput and memory benchmarks. Streams a CSV of `rows` rows
// (id,company,website,notes) in which every distinct host appears twice: row 2j introduces host j, row 2j+1
// repeats a host met recently (or, one row in 1000, holds an invalid value). So rows/2 distinct valid hosts,
// a sample of them held by the sandbox (found) and the rest made up (missing). Cells vary in form (bare host,
// URL with a path, upper case, e-mail) the way a CRM export does; all normalise to the same host.
// With `distinct` below rows/2 (the 10M-row memory run), new hosts are spread evenly over the file and the
// other rows repeat recent ones.
// Optionally writes the floor's input: the distinct hosts in order of first appearance, 100 per line, as
// ready-to-send JSON bodies.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** Small deterministic PRNG (mulberry32), so a size always yields the same file. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['acme', 'nova', 'blue', 'peak', 'orbit', 'delta', 'green', 'lumen', 'terra', 'vista', 'quant', 'pixel'];
const TLDS = ['com', 'net', 'io', 'co.uk', 'de', 'org'];

/**
 * The j-th distinct host: every `stride`-th one (while they last) is a host the sandbox holds, the others
 * made-up names it does not hold.
 */
export function hostFor(j, held, stride) {
  if (j % stride === 0 && j / stride < held.length) return held[j / stride];
  return `${WORDS[j % WORDS.length]}-${j.toString(36)}-nohold.${TLDS[j % TLDS.length]}`;
}

function cell(host, r) {
  const x = r();
  if (x < 0.5) return host;
  if (x < 0.7) return `https://${host}/about?ref=crm`;
  if (x < 0.85) return host.toUpperCase();
  return `sales@${host}`;
}

async function write(stream, text) {
  if (!stream.write(text)) await once(stream, 'drain');
}

/**
 * Writes `rows` rows to `csvPath` (and the floor's batches to `batchesPath` when given, up to
 * `batchHostsLimit` distinct hosts). Returns { rows, distinct, invalid, held }.
 * `distinct` is the number of distinct valid hosts (default rows/2), spread evenly over the rows.
 */
export async function generate({ csvPath, batchesPath = null, rows, held, distinct = Math.ceil(rows / 2), seed = 7 }) {
  const r = rng(seed);
  // At least every other distinct host is made up, so both answers (found, missing) are well represented.
  const stride = Math.max(2, Math.floor(distinct / Math.max(1, held.length)));
  const out = createWriteStream(csvPath, { highWaterMark: 1 << 20 });
  const batches = batchesPath ? createWriteStream(batchesPath, { highWaterMark: 1 << 20 }) : null;
  let buf = 'id,company,website,notes\n';
  let batch = [];
  let made = 0;
  let invalid = 0;
  let heldUsed = 0;
  for (let i = 0; i < rows; i++) {
    let value;
    // New hosts are spread evenly over the file (every other row when half the rows are distinct).
    const fresh = made < distinct && Math.floor((i * distinct) / rows) >= made;
    if (fresh) {
      const j = made++;
      const host = hostFor(j, held, stride);
      if (j % stride === 0 && j / stride < held.length) heldUsed++;
      value = cell(host, r);
      if (batches) {
        batch.push(host);
        if (batch.length === 100) {
          await write(batches, `${JSON.stringify({ domains: batch })}\n`);
          batch = [];
        }
      }
    } else if (i % 1000 === 1) {
      value = i % 2000 === 1 ? 'n/a' : 'not a host!';
      invalid++;
    } else {
      // A repeat of a host met within the last 50,000 distinct ones.
      const window = Math.min(made, 50_000);
      const j = made - 1 - Math.floor(r() * window);
      value = cell(hostFor(j, held, stride), r);
    }
    buf += `${i + 1},Company ${i % 9973},${value},"note ${i % 97}, see CRM"\n`;
    if (buf.length > 1 << 16) {
      await write(out, buf);
      buf = '';
    }
  }
  await write(out, buf);
  out.end();
  await once(out, 'finish');
  if (batches) {
    if (batch.length > 0) await write(batches, `${JSON.stringify({ domains: batch })}\n`);
    batches.end();
    await once(batches, 'finish');
  }
  return { rows, distinct: made, invalid, held: heldUsed };
}
