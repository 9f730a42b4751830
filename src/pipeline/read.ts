// Reads an input file as a stream of records: one per data row, each knowing the line it starts on.
//
// Bad input, decided case by case (every failure is an InputError "<file>:<line>: <what>" carrying
// `file` and `line`, or a UsageError for a caller choice; never a raw exception):
// - empty file, or only blank / '#' lines: no error; zero records, shape `lines` (the caller decides).
// - a header and nothing else: zero records, the header's shape.
// - NUL bytes in the first 8 KiB, or undecodable bytes in a file full of control characters:
//   InputError code `binary_input` ("looks like a binary file"); a ZIP/XLSX signature says so.
// - UTF-16 (BOM): InputError `bad_encoding` with the iconv command.
// - invalid UTF-8 in text (typically Latin-1): InputError `bad_encoding` on the first bad line, with the
//   iconv command. No silent Latin-1 fallback: guessing an encoding would change host names unseen.
// - a line (or CSV row) over 1 MiB: InputError `line_too_long`, raised once 1 MiB is buffered, so a
//   5 MB line neither hangs nor fills memory. If the row holds a quote, an open quote is suggested.
// - unclosed quote: InputError `bad_quote` on the line where the quoted field starts.
// - stray quotes inside an unquoted field (`ab"c`, `"a"b`): kept as data (relax_quotes), because a
//   broken cell becomes one invalid row instead of failing the whole file.
// - ragged rows: never an error. A short row without the host column gets value '' (the pipeline marks
//   it invalid); longer rows keep their extra cells.
// - CSV/TSV: blank lines and, before the header only, '#' lines are skipped; a row whose only cell is
//   whitespace is skipped too (it carries nothing). Inside the data '#' has no meaning in CSV.
// - host column not found, or more than one candidate: UsageError listing the headers.
// - a UTF-8 BOM is not data: dropped, and noted in the shape (`bom`) with how the first row ends (`eol`,
//   CRLF or LF; a file mixing both is taken by its first row), so the output can be written the same way.
import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { UsageError } from '../api/errors.js';
import type { InputRecord, InputShape } from './types.js';
import { earlierColumns } from './earlier.js';
import { type ByteFacts, inputError, MAX_LINE_BYTES, utf8Chunks } from './decode.js';
import { LineReader, lineText, RowStarts, tooLong } from './lines.js';
import { showValue } from './show.js';

export type InputFormat = 'auto' | 'csv' | 'tsv' | 'lines';

export interface OpenInputOptions {
  /** Name used in messages ('-' or 'stdin' for standard input). */
  fileName: string;
  /** Host column: a header name (case-insensitive) or a 1-based index. */
  column?: string;
  format?: InputFormat;
  /**
   * Column lists an earlier run of ours may have appended (earlier.ts ourColumnLists): when the header ends
   * with one, those columns are dropped from the header and every row, and named in the shape (`earlier`).
   */
  earlier?: readonly (readonly string[])[];
}

export interface OpenedInput {
  shape: InputShape;
  records: AsyncIterable<InputRecord>;
  /**
   * CSV/TSV only: the same records in arrays of as many as the parser has ready, for a consumer that takes
   * them in bulk (one await per array instead of per record). Iterate either this or `records`, once.
   */
  chunks?: AsyncIterable<InputRecord[]>;
}

/** Header names that identify the host column, matched case-insensitively after trimming. */
export const HOST_HEADERS = ['domain', 'host', 'hostname', 'website', 'url', 'site', 'email'] as const;

/** Opens a CSV, TSV or newline-list input as a stream of records; its shape is known on return. */
export async function openInput(source: NodeJS.ReadableStream | Readable, opts: OpenInputOptions): Promise<OpenedInput> {
  const file = opts.fileName;
  const facts: ByteFacts = { bom: false };
  const reader = new LineReader(utf8Chunks(source as AsyncIterable<Buffer>, file, facts), file);
  const first = await firstSignificantLine(reader);
  // The BOM is known once the first bytes are through: before any line came back, or at the end of input.
  const bom = facts.bom;
  if (first === null) {
    return { shape: { format: 'lines', headers: null, hostColumn: 0, bom, eol: '\n' }, records: empty() };
  }
  const format = opts.format === undefined || opts.format === 'auto' ? detect(first.text) : opts.format;
  if (format === 'lines') {
    if (opts.column !== undefined && opts.column.trim() !== '1') {
      await reader.close();
      throw new UsageError(`${file}: --column applies to CSV or TSV input; this file is a plain list of names`);
    }
    // A list's first line decides its line ends (its LF, and the CR before it if any).
    const eol = first.bytes.at(-1) === 0x0d ? '\r\n' : '\n';
    return { shape: { format, headers: null, hostColumn: 0, bom, eol }, records: listRecords(reader, first) };
  }
  const opened = await openTable(reader, first, format, opts);
  opened.shape.bom = bom;
  return opened;
}

interface FirstLine {
  bytes: Buffer;
  text: string;
  line: number;
}

async function firstSignificantLine(reader: LineReader): Promise<FirstLine | null> {
  for (let bytes = await reader.next(); bytes !== null; bytes = await reader.next()) {
    const text = lineText(bytes);
    if (!skippable(text)) return { bytes, text, line: reader.line };
  }
  return null;
}

function skippable(text: string): boolean {
  const t = text.trim();
  return t === '' || t.startsWith('#');
}

function detect(line: string): 'csv' | 'tsv' | 'lines' {
  if (line.includes('\t')) return 'tsv';
  if (line.includes(',')) return 'csv';
  const name = line.trim().toLowerCase();
  return (HOST_HEADERS as readonly string[]).includes(name) ? 'csv' : 'lines';
}

async function* empty(): AsyncGenerator<InputRecord> {}

async function* listRecords(reader: LineReader, first: FirstLine): AsyncGenerator<InputRecord> {
  try {
    yield { line: first.line, cells: [first.text], value: first.text.trim() };
    for (let bytes = await reader.next(); bytes !== null; bytes = await reader.next()) {
      const text = lineText(bytes);
      if (!skippable(text)) yield { line: reader.line, cells: [text], value: text.trim() };
    }
  } finally {
    await reader.close();
  }
}

async function openTable(reader: LineReader, first: FirstLine, format: 'csv' | 'tsv', opts: OpenInputOptions): Promise<OpenedInput> {
  const file = opts.fileName;
  const starts = new RowStarts(first.line, format === 'tsv' ? 0x09 : 0x2c);
  async function* bytes(): AsyncGenerator<Buffer> {
    // The first line was consumed by format detection; its LF is put back (harmless at end of input).
    for (const b of [first.bytes, Buffer.from('\n')]) {
      starts.push(b);
      yield b;
    }
    for await (const b of reader.rest()) {
      starts.push(b);
      yield b;
    }
  }
  const parser = parse({
    delimiter: format === 'tsv' ? '\t' : ',',
    record_delimiter: ['\r\n', '\n'],
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_LINE_BYTES,
  });
  // An error can overtake rows still buffered in the parser: the parser's count of rows emitted tells which
  // row failed, whatever the consumer has got to. (Not an on_record hook counting them: csv-parse builds an
  // info object for every record it hands such a hook, 3.4 s of a 1,000,000-row run, measured.)
  const emitted = (): number => parser.info.records;
  const src = ReadableStream.from(bytes());
  src.on('error', (err) => parser.destroy(err));
  src.pipe(parser);

  // Records are taken from the parser with read() as far as it has them, not through its async iterator:
  // one await per parsed buffer-full rather than per record (an async step per record was ~1.6 KB of
  // garbage a row, measured with an allocation profile).
  let failure: unknown = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const rouse = (): void => wake?.();
  parser.on('readable', rouse);
  parser.on('end', () => {
    ended = true;
    rouse();
  });
  parser.on('error', (err) => {
    failure ??= err;
    rouse();
  });
  const pull = async (): Promise<InputRecord[] | null> => {
    for (;;) {
      const batch: InputRecord[] = [];
      for (let cells = parser.read() as string[] | null; cells !== null; cells = parser.read() as string[] | null) {
        const line = starts.take();
        if (cells.length === 1 && cells[0]!.trim() === '') continue;
        batch.push({ line, cells, value: '' });
      }
      if (batch.length > 0) return batch;
      if (failure !== null) throw translate(failure, file, starts.peek(emitted() - starts.count), starts.inQuotes);
      if (ended) return null;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  };
  const close = (): void => {
    parser.destroy();
    src.destroy();
  };

  let opening: InputRecord[] | null;
  let hostColumn: number;
  let cut = -1;
  let ours = 0;
  let earlier: string[] = [];
  try {
    opening = await pull();
    const header = opening?.[0]?.cells ?? [];
    cut = earlierColumns(header, opts.earlier ?? []);
    if (cut !== -1) {
      earlier = header.splice(cut);
      ours = earlier.length;
    }
    // A plain list comes back from our CSV output as its one `input` column.
    hostColumn = cut !== -1 && header.length === 1 && header[0] === 'input' ? 0 : findHostColumn(header, opts.column, file);
  } catch (err) {
    close();
    throw err;
  }
  const headers = opening?.[0]?.cells ?? [];
  const withValues = (batch: InputRecord[]): InputRecord[] => {
    for (const r of batch) {
      // Cells past the header (a ragged row's) were written after our columns: they stay, ours go.
      if (cut !== -1) r.cells.splice(cut, ours);
      r.value = r.cells[hostColumn] ?? '';
    }
    return batch;
  };
  async function* chunks(): AsyncGenerator<InputRecord[]> {
    try {
      const rest = opening?.slice(1) ?? [];
      opening = null;
      if (rest.length > 0) yield withValues(rest);
      for (let batch = await pull(); batch !== null; batch = await pull()) yield withValues(batch);
    } finally {
      close();
    }
  }
  async function* records(): AsyncGenerator<InputRecord> {
    for await (const batch of chunks()) yield* batch;
  }
  // The header has been scanned to its end by now (the parser emitted it), so its line end is known; a file
  // that is a header without a line break ends in the LF put back above, after a CR if it had one.
  const eol = starts.eol ?? '\n';
  return { shape: { format, headers, hostColumn, eol, ...(cut === -1 ? {} : { earlier }) }, records: records(), chunks: chunks() };
}

// csv-parse's messages name its own (miscounted) line; ours name the line where the row starts.
function translate(err: unknown, file: string, line: number, inQuotes: boolean): unknown {
  if (!(err instanceof CsvError)) return err;
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return inputError(file, line, 'unclosed quote: the quoted field starting on this line never ends', 'bad_quote');
    case 'CSV_MAX_RECORD_SIZE':
      return tooLong(file, line, inQuotes ? ' (or a quote left open)' : '');
    default:
      return inputError(file, line, `malformed row (${err.code})`, 'bad_row');
  }
}

/** Index of the host column: from --column, else the one header among HOST_HEADERS. */
function findHostColumn(headers: string[], column: string | undefined, file: string): number {
  const key = (h: string): string => h.trim().toLowerCase();
  const listed = `headers are: ${headers.map((h) => showValue(h)).join(', ') || '(none)'}`;
  const choose = 'choose one with --column NAME or --column NUMBER (1-based)';
  if (column !== undefined) {
    const wanted = key(column);
    const named = headers.flatMap((h, i) => (key(h) === wanted ? [i] : []));
    if (named.length === 1) return named[0]!;
    if (named.length > 1) {
      throw new UsageError(`${file}: more than one column is named ${showValue(column)}; use its number instead; ${listed}`);
    }
    if (/^\d+$/.test(wanted)) {
      const index = Number(wanted);
      if (index >= 1 && index <= headers.length) return index - 1;
      throw new UsageError(`${file}: --column ${index} is out of range (1 to ${headers.length}); ${listed}`);
    }
    throw new UsageError(`${file}: no column named ${showValue(column)}; ${listed}`);
  }
  const known = headers.flatMap((h, i) => ((HOST_HEADERS as readonly string[]).includes(key(h)) ? [i] : []));
  if (known.length === 1) return known[0]!;
  if (known.length > 1) {
    const which = known.map((i) => `${showValue(headers[i]!)} (${i + 1})`).join(', ');
    throw new UsageError(`${file}: more than one column could hold the host: ${which}; ${choose}; ${listed}`);
  }
  throw new UsageError(`${file}: no host column found (looked for ${HOST_HEADERS.join(', ')}); ${choose}; ${listed}`);
}
