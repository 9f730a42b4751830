// The enriched file a summary reads, whatever this tool wrote it as: CSV/TSV (and a workbook) through the
// pipeline's own opening (openJobInput: dialects, encodings and sheets as batch reads them), NDJSON a line at a
// time, a JSON array an element at a time (json-array.ts). Which one: by the name (.json, .ndjson, .jsonl), else
// by the first byte that is not blank ('[' or '{'); anything else is a table.
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { InputError } from '../api/errors.js';
import { type JobInput, openJobInput } from '../run/job.js';
import type { InputRecord } from '../domain/types.js';
import { jsonArrayElements } from './json-array.js';
import { fieldsRow, objectRow, SUMMARY_COLUMNS, type SummaryRow } from './row.js';
import type { Summary } from './types.js';

export interface SummaryInput {
  stream: NodeJS.ReadableStream;
  /** For messages and the summary's input name. */
  fileName: string;
  /** The --prefix the file's columns were written with ('' by default). */
  prefix?: string;
  /** How a table is read (column, delimiter, encoding, sheet, input format), as batch reads it. */
  table?: Pick<JobInput, 'format' | 'delimiter' | 'encoding' | 'sheet'>;
}

/** An opened enriched file: its format and its rows, in chunks. */
export interface SummarySource {
  format: Summary['input']['format'];
  rows: AsyncIterable<SummaryRow[]>;
  /** Our columns a table lacks (a batch --fields file), whose figures are therefore empty; [] when none. */
  absent?: string[];
}

/** Opens an enriched file. */
export async function openEnriched(input: SummaryInput): Promise<SummarySource> {
  const named = /\.(nd)?jsonl?$/i.exec(input.fileName);
  const { head, stream } = named ? { head: null, stream: input.stream } : await firstByte(input.stream);
  const json = named
    ? named[1] !== undefined || named[0].toLowerCase() === '.jsonl'
      ? 'ndjson'
      : 'json'
    : head === 0x5b
      ? 'json'
      : head === 0x7b
        ? 'ndjson'
        : null;
  if (json === 'json') return { format: 'json', rows: mapChunks(jsonArrayElements(stream as AsyncIterable<Buffer>, input.fileName), input.fileName) };
  if (json === 'ndjson') return { format: 'ndjson', rows: ndjsonRows(stream, input.fileName) };
  return openTable({ ...input, stream });
}

/** A CSV/TSV/xlsx file: our columns found by name (with the prefix), the last of each name (ours come last). */
async function openTable(input: SummaryInput): Promise<SummarySource> {
  const prefix = input.prefix ?? '';
  // Column 1 as the host column: it always exists, and our columns are found by name below, so a file without
  // them is refused by what it lacks rather than by the host column's search.
  const { shape, records } = await openJobInput({ stream: input.stream, fileName: input.fileName, column: '1', ...input.table });
  const headers = shape.headers ?? [];
  const at = (name: string) => headers.lastIndexOf(`${prefix}${name}`);
  if (shape.headers === null) {
    // Read as a list of lines: no header at all. Empty, or a host list (a tryout's was called empty).
    const first = await (records as AsyncIterable<unknown>)[Symbol.asyncIterator]().next();
    if (first.done) throw new InputError(`${input.fileName}: is empty: nothing to summarise`, input.fileName, 1);
    throw new InputError(
      `${input.fileName}: is a plain list, not a file batch wrote (it has no header with a status column); a host list is summarised from the cache with --from-cache`,
      input.fileName,
      1,
    );
  }
  if (at('status') === -1) {
    // A file written with --prefix names it: the prefix both a status and a host column share.
    const guess = headers.map((h) => /^(.+)status$/.exec(h)?.[1]).find((p) => p !== undefined && headers.includes(`${p}host`));
    const hint = guess !== undefined ? ` (written with --prefix ${guess}? give it here too)` : prefix === '' ? ' (its --prefix?)' : '';
    throw new InputError(
      `${input.fileName}: has no ${prefix}status column: not a file batch wrote${hint}; a plain host list is read with --from-cache`,
      input.fileName,
      1,
    );
  }
  // Distinct hosts are what every share is of: without the host column (batch --fields left it out) they cannot
  // be told apart, and the summary would say 0 found hosts of a file full of found rows.
  if (at('host') === -1) {
    throw new InputError(
      `${input.fileName}: has no ${prefix}host column (written with --fields?): summarize counts distinct hosts; write the file with host among the fields`,
      input.fileName,
      1,
    );
  }
  const absent = SUMMARY_COLUMNS.filter((column) => at(column) === -1).map((column) => `${prefix}${column}`);
  const index = new Map<string, number>();
  const rowOf = (record: InputRecord): SummaryRow =>
    fieldsRow((column) => {
      let i = index.get(column);
      if (i === undefined) {
        i = at(column);
        index.set(column, i);
      }
      return i === -1 ? null : record.cells[i];
    });
  async function* rows(): AsyncGenerator<SummaryRow[]> {
    for await (const item of records) {
      if (typeof item === 'string') continue;
      yield Array.isArray(item) ? item.map(rowOf) : [rowOf(item)];
    }
  }
  const format = shape.sheet !== undefined ? 'xlsx' : shape.format === 'tsv' ? 'tsv' : 'csv';
  return { format, rows: rows(), absent };
}

/** One JSON object a line (blank lines skipped), in chunks of 256 rows. */
async function* ndjsonRows(stream: NodeJS.ReadableStream, fileName: string): AsyncGenerator<SummaryRow[]> {
  let line = 0;
  let chunk: SummaryRow[] = [];
  for await (const text of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new InputError(`${fileName}:${line}: not a JSON object; summarize reads the NDJSON batch --format ndjson writes`, fileName, line);
    }
    chunk.push(asRow(value, fileName, line));
    if (chunk.length >= 256) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

async function* mapChunks(elements: AsyncIterable<unknown[]>, fileName: string): AsyncGenerator<SummaryRow[]> {
  for await (const list of elements) yield list.map((value) => asRow(value, fileName, null));
}

function asRow(value: unknown, fileName: string, line: number | null): SummaryRow {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`${fileName}${line === null ? '' : `:${line}`}: a row is not a JSON object`, fileName, line);
  }
  return objectRow(value as Record<string, unknown>);
}

/** The first byte that is not blank (nor a BOM), and a stream that still reads from the very start. */
async function firstByte(source: NodeJS.ReadableStream): Promise<{ head: number | null; stream: NodeJS.ReadableStream }> {
  const it = (source as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const taken: Buffer[] = [];
  let head: number | null = null;
  let offset = 0;
  while (head === null) {
    const next = await it.next();
    if (next.done) break;
    const buf = Buffer.from(next.value);
    taken.push(buf);
    for (const byte of buf) {
      const inBom = offset < 3 && byte === [0xef, 0xbb, 0xbf][offset];
      offset++;
      if (inBom || byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
      head = byte;
      break;
    }
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* taken;
    for (let next = await it.next(); !next.done; next = await it.next()) yield Buffer.from(next.value);
  }
  return { head, stream: Readable.from(all(), { objectMode: false }) };
}
