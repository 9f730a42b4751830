// Reads an input file as a stream of records: one per data row, each knowing the line it starts on.
//
// Bad input, decided case by case (every failure is an InputError "<file>:<line>: <what>" carrying
// `file` and `line`, or a UsageError for a caller choice; never a raw exception):
// - empty file, or only blank / '#' lines: no error; zero records, shape `lines` (the caller decides).
// - a header and nothing else: zero records, the header's shape.
// - NUL bytes in the first 8 KiB, or undecodable bytes in a file full of control characters:
//   InputError code `binary_input` ("looks like a binary file"); a ZIP/XLSX signature says so.
// - encodings (encoding.ts, decode.ts): UTF-16 by its BOM, or --encoding; bytes that are not UTF-8 read as
//   Windows-1252 when nothing before them was other than ASCII and they look like it (the run says so once),
//   else InputError `bad_encoding` on the first bad line naming the --encoding to pass. Cells become UTF-8.
// - delimiter (dialect.ts): `,` `;` tab `|` sniffed from the header and the first rows (a `.tsv` name: tab), or --delimiter.
// - line ends: LF, CRLF, or CR alone (lines.ts), by the first line break; line numbers count them.
// - a line (or CSV row) over 1 MiB: InputError `line_too_long`, raised once 1 MiB is buffered, so a
//   5 MB line neither hangs nor fills memory. If the row holds a quote, an open quote is suggested.
// - unclosed quote: InputError `bad_quote` on the line where the quoted field starts; so is a quote left
//   open mid-file that a later quote closes mid-cell (it would swallow the rows between: lines.ts RowStarts).
// - stray quotes inside an unquoted field (`ab"c`, `"a"b`): kept as data (relax_quotes), because a
//   broken cell becomes one invalid row instead of failing the whole file.
// - ragged rows: never an error. A short row without the host column gets value '' (the pipeline marks
//   it invalid); longer rows keep their extra cells. Counted in the shape (`ragged`, with the first lines)
//   for one warning at the end of the run (dialect.ts inputNotes).
// - CSV/TSV: blank lines and, before the header only, '#' lines are skipped; a row whose only cell is
//   whitespace is skipped too (it carries nothing). Inside the data '#' has no meaning in CSV.
// - host column not found, or more than one candidate: UsageError listing the headers.
// - a UTF-8 BOM is not data: dropped, and noted in the shape (`bom`) with how the first row ends (`eol`,
//   CRLF, LF or CR; a file mixing them is taken by its first row), so the output can be written the same way.
import type { Readable } from 'node:stream';
import { UsageError } from '../api/errors.js';
import type { InputRecord, InputShape } from '../domain/types.js';
import { LineRecord } from '../domain/line-text.js';
import { cutOurs, type OwnColumnsOptions } from './own-columns.js';
import { type ByteFacts, utf8Chunks } from './decode.js';
import type { Delimiter, Encoding } from '../domain/input-forms.js';
import { RAGGED_LINES, sniffTable } from './dialect.js';
import { findHostColumn, HOST_HEADERS, markElsewhere, otherHostColumns } from './host-column.js';
import { normaliseHost } from '../domain/normalise.js';
import { LineReader, lineText } from './lines.js';
import { tableRows } from './table-rows.js';

export type InputFormat = 'auto' | 'csv' | 'tsv' | 'lines';

/** How to read an input; our own columns of an earlier run: input/own-columns.ts. */
export interface OpenInputOptions extends OwnColumnsOptions {
  /** Name used in messages ('-' or 'stdin' for standard input). */
  fileName: string;
  /** Host column: a header name (case-insensitive) or a 1-based index. */
  column?: string;
  format?: InputFormat;
  /** The delimiter, forced (a table then); else sniffed (dialect.ts). */
  delimiter?: Delimiter;
  /** The input's encoding, forced; else a BOM decides and UTF-8 is expected (encoding.ts). */
  encoding?: Encoding;
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

export { HOST_HEADERS } from './host-column.js';

/** Opens a CSV, TSV or newline-list input as a stream of records; its shape is known on return. */
export async function openInput(source: NodeJS.ReadableStream | Readable, opts: OpenInputOptions): Promise<OpenedInput> {
  const file = opts.fileName;
  const facts: ByteFacts = { bom: false };
  const reader = new LineReader(utf8Chunks(source as AsyncIterable<Buffer>, file, facts, opts.encoding), file);
  const first = await firstSignificantLine(reader);
  // The BOM is known once the first bytes are through: before any line came back, or at the end of input.
  const bom = facts.bom;
  const encoding = facts.encoding !== undefined && facts.encoding !== 'utf-8' ? { encoding: facts.encoding } : {};
  if (first === null) {
    return { shape: { format: 'lines', headers: null, hostColumn: 0, bom, eol: '\n', ...encoding }, records: empty() };
  }
  const asked = opts.format ?? 'auto';
  if (asked === 'lines' && opts.delimiter !== undefined) {
    await reader.close();
    throw new UsageError(`${file}: --delimiter applies to CSV or TSV input, not --input-format lines`);
  }
  const format = asked === 'auto' ? (opts.delimiter === undefined ? detect(first.text) : 'csv') : asked;
  if (format === 'lines') {
    if (opts.column !== undefined && opts.column.trim() !== '1') {
      await reader.close();
      throw new UsageError(`${file}: --column applies to CSV or TSV input; this file is a plain list of names`);
    }
    // A list's first line decides its line ends (its LF, and the CR before it if any; or CR alone).
    const eol = reader.crOnly ? '\r' : first.bytes.at(-1) === 0x0d ? '\r\n' : '\n';
    const shape: InputShape = { format, headers: null, hostColumn: 0, bom, eol, ...encoding };
    return { shape, records: listRecords(reader, first, () => noteFacts(shape, facts)) };
  }
  const delimiter =
    opts.delimiter ?? (format === 'tsv' ? '\t' : format === 'csv' && asked === 'csv' ? ',' : await sniffTable(reader, first.text, first.more, file));
  const opened = await openTable(reader, first, delimiter, opts, facts);
  opened.shape.bom = bom;
  Object.assign(opened.shape, encoding);
  return opened;
}

// What the byte layer learnt while reading on (a guess of Windows-1252 mid-file), put in the shape at the end.
function noteFacts(shape: InputShape, facts: ByteFacts): void {
  if (facts.guessedAt === undefined) return;
  shape.encoding = 'windows-1252';
  shape.guessedAt = facts.guessedAt;
}

interface FirstLine {
  bytes: Buffer;
  text: string;
  line: number;
  /** Lines after it read to sniff the delimiter, to be parsed after it. */
  more: Buffer[];
}

async function firstSignificantLine(reader: LineReader): Promise<FirstLine | null> {
  for (let bytes = await reader.next(); bytes !== null; bytes = await reader.next()) {
    const text = lineText(bytes);
    if (!skippable(text)) return { bytes, text, line: reader.line, more: [] };
  }
  return null;
}

function skippable(text: string): boolean {
  const t = text.trim();
  return t === '' || t.startsWith('#');
}

// A table when the first line holds a delimiter or is a known host header alone; else a plain list. A `;`
// or `|` in a line with a `/` is taken for part of a URL in a list (`https://a.example/x;y`), as before. A tab at
// an end of a host name is whitespace (issue 29): `a.example<TAB>` starts a list (a `split -l` part), no header.
function detect(line: string): 'csv' | 'lines' {
  if (line.trim() !== line && !/[,\t;|]/.test(line.trim()) && normaliseHost(line.trim()).ok) return 'lines';
  if (line.includes(',') || line.includes('\t')) return 'csv';
  if ((line.includes(';') || line.includes('|')) && !line.includes('/')) return 'csv';
  const name = line.trim().toLowerCase();
  return (HOST_HEADERS as readonly string[]).includes(name) ? 'csv' : 'lines';
}

async function* empty(): AsyncGenerator<InputRecord> {}

async function* listRecords(reader: LineReader, first: FirstLine, done: () => void): AsyncGenerator<InputRecord> {
  try {
    yield { line: first.line, cells: [first.text], value: first.text.trim() };
    for (let bytes = await reader.next(); bytes !== null; bytes = await reader.next()) {
      const text = lineText(bytes);
      if (!skippable(text)) yield { line: reader.line, cells: [text], value: text.trim() };
    }
    done();
  } finally {
    await reader.close();
  }
}

async function openTable(reader: LineReader, first: FirstLine, delimiter: Delimiter, opts: OpenInputOptions, facts: ByteFacts): Promise<OpenedInput> {
  const file = opts.fileName;
  const format = delimiter === '\t' ? 'tsv' : 'csv';
  const crOnly = reader.crOnly;
  const nl = Buffer.from(crOnly ? '\r' : '\n');
  async function* bytes(): AsyncGenerator<Buffer> {
    // The lines consumed by format detection and sniffing go first, their line ends put back (harmless at the
    // end of input).
    for (const line of [first.bytes, ...first.more]) {
      yield line;
      yield nl;
    }
    yield* reader.rest();
  }
  const rows = tableRows(bytes(), first.line, delimiter, file, crOnly);
  const pull = rows.pull;
  const close = rows.close;

  let opening: InputRecord[] | null;
  let hostColumn: number;
  let ours: ReturnType<typeof cutOurs> = { cut: -1, earlier: [], own: -1 };
  try {
    opening = await pull();
    const header = opening?.[0]?.cells ?? [];
    ours = cutOurs(header, opts);
    const { cut, own } = ours;
    // Our host column when asked for (own-columns.ts); a plain list comes back from our CSV output as its one `input` column.
    hostColumn = own !== -1 ? -1 : cut !== -1 && header.length === 1 && header[0] === 'input' ? 0 : findHostColumn(header, opts.column, file);
  } catch (err) {
    close();
    throw err;
  }
  const headers = opening?.[0]?.cells ?? [];
  // Other columns that could hold the host, named in the reason of a row whose host cell is empty.
  const others = opening === null ? [] : otherHostColumns(headers, hostColumn);
  const ragged = { rows: 0, lines: [] as number[] };
  const withValues = (batch: InputRecord[]): InputRecord[] => {
    for (const r of batch) {
      // Cells past the header (a ragged row's) were written after our columns: they stay, ours go. A row too
      // short for the host cell is marked (quote-span.ts: over several lines, a quote left open took in rows).
      const own = ours.own === -1 ? undefined : (r.cells[ours.own] ?? '');
      if (ours.cut !== -1) {
        r.cells.splice(ours.cut, ours.earlier.length);
        LineRecord.forget(r);
      }
      r.value = own ?? r.cells[hostColumn] ?? '';
      if (r.cells.length <= hostColumn) r.short = true;
      markElsewhere(r, headers, others);
      if (r.cells.length !== headers.length && ragged.rows++ < RAGGED_LINES) ragged.lines.push(r.line);
    }
    return batch;
  };
  async function* chunks(): AsyncGenerator<InputRecord[]> {
    try {
      const rest = opening?.slice(1) ?? [];
      opening = null;
      if (rest.length > 0) yield withValues(rest);
      for (let batch = await pull(); batch !== null; batch = await pull()) yield withValues(batch);
      noteFacts(shape, facts);
    } finally {
      close();
    }
  }
  async function* records(): AsyncGenerator<InputRecord> {
    for await (const batch of chunks()) yield* batch;
  }
  // The header has been scanned to its end by now (the parser emitted it), so its line end is known; a file
  // that is a header without a line break ends in the LF put back above, after a CR if it had one.
  const eol = rows.eol() ?? '\n';
  const shape: InputShape = { format, headers, hostColumn, delimiter, eol, ragged, ...(ours.cut === -1 ? {} : { earlier: ours.earlier }) };
  return { shape, records: records(), chunks: chunks() };
}
