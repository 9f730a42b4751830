// Shared helpers for the pipeline tests: feed bytes in chosen chunk sizes, collect what a reader yields.
import { Readable, Writable } from 'node:stream';
import { openInput } from '../../src/input/read.js';
import type { OpenInputOptions } from '../../src/input/read.js';
import type { DomainProfile, EmployeesResult, TrafficHistory } from '../../src/api/types.js';
import type { EnrichedRow, InputRecord, InputShape, RunKind } from '../../src/domain/types.js';

/** A readable stream of `input` cut into chunks of `chunk` bytes (0: one chunk). */
export function source(input: string | Buffer, chunk = 0): Readable {
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input, 'utf8');
  const parts: Buffer[] = [];
  const size = chunk > 0 ? chunk : Math.max(1, buf.length);
  for (let i = 0; i < buf.length; i += size) parts.push(buf.subarray(i, i + size));
  return Readable.from(parts);
}

export interface ReadResult {
  shape: InputShape;
  records: InputRecord[];
}

/** Opens and drains an input; rejects with whatever openInput or the iteration throws. */
export async function readAll(input: string | Buffer, opts: Partial<OpenInputOptions> = {}, chunk = 0): Promise<ReadResult> {
  const opened = await openInput(source(input, chunk), { fileName: 'in.csv', ...opts });
  const records: InputRecord[] = [];
  for await (const r of opened.records) records.push(r);
  return { shape: opened.shape, records };
}

/** The error readAll fails with (fails the test when it succeeds). */
export async function readError(input: string | Buffer, opts: Partial<OpenInputOptions> = {}, chunk = 0): Promise<any> {
  try {
    await readAll(input, opts, chunk);
  } catch (err) {
    return err;
  }
  throw new Error('expected the input to be refused');
}

/** A Writable that keeps everything written to it as text. */
export function sink(): Writable & { text(): string } {
  const chunks: Buffer[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return Object.assign(w, { text: () => Buffer.concat(chunks).toString('utf8') });
}

/** An enriched row with sensible defaults. */
export function row<K extends RunKind>(kind: K, over: Partial<EnrichedRow<K>> = {}): EnrichedRow<K> {
  return {
    kind,
    line: 2,
    cells: ['example.com'],
    value: 'example.com',
    status: 'missing',
    host: 'example.com',
    reason: null,
    data: null,
    cached: false,
    fetchedAt: null,
    ...over,
  };
}

/** Answers of each kind, as the service gives them, for row fixtures. */
export const profile: DomainProfile = {
  domain: 'example.com',
  resolves: true,
  technologies: ['Nginx', 'WordPress'],
  network: 'Cloudflare',
  platform: null,
  registrar: 'Example Registrar',
  age_days: 9000,
  country_iso: 'US',
  lang_norm: 'en',
  http_status: 200,
  redirect_to: null,
  traffic: { estimated_monthly_visits: 12345, band: '10k-100k', as_of: '2024-05' },
  employees: { apex: 'example.com', low: 11, high: 50, point: null, as_of: '2024-04-01' },
};
export const traffic: TrafficHistory = {
  host: 'example.com',
  estimated_monthly_visits: 300,
  band: 'small',
  as_of: '2024-05',
  history: [
    { month: '2024-04', visits: 200 },
    { month: '2024-05', visits: 300 },
  ],
};
export const employees: EmployeesResult = {
  host: 'www.example.com',
  apex: 'example.com',
  estimated_employees: { low: 1, high: null, point: 7 },
  as_of: '2024-01-31',
};

/**
 * The row ends of CSV text as written by our writer (every cell holding a quote is quoted, so a quote
 * toggles "inside a cell"): each line break outside quotes, as '\n' or '\r\n', and any CR outside quotes
 * that ends no row as '\r' (which a reader would take for a row end or lose).
 */
export function rowEnds(text: string): string[] {
  const ends: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === '\n') ends.push('\n');
    else if (c === '\r') {
      if (text[i + 1] === '\n') {
        ends.push('\r\n');
        i++;
      } else ends.push('\r');
    }
  }
  return ends;
}
