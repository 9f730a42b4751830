// The rows of a CSV/TSV table from its bytes, scanned once where the bytes allow (issue 27). A stretch of whole
// lines without a quote byte is split directly: a row is a line (its CR kept off under CRLF ends, as csv-parse's
// record delimiters do), its cells the text between delimiters or a quoted cell closed within the line, an empty
// line no row. From the first line that holds any other quote (a quoted line break, a quote mid-cell or after a
// closing one) or is too long to take, everything goes through csv-parse as before, RowStarts finding the line
// each row starts on: quotes across lines, open quotes and every error keep the one implementation they had.
// Every row was scanned twice (RowStarts byte by byte, then csv-parse), a fifth of a re-run's CPU.
// Property-tested equal to the csv-parse path alone (test/input/table-rows.test.ts).
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { LineRecord } from '../domain/line-text.js';
import type { InputRecord } from '../domain/types.js';
import { inputError, MAX_LINE_BYTES } from './decode.js';
import { RowStarts, tooLong } from './lines.js';

const QUOTE = 0x22;
const LF = 10;
const CR = 13;

export interface TableRows {
  /** The next rows as far as they are ready (at least one), or null at the end of input. */
  pull(): Promise<InputRecord[] | null>;
  /** How the first row ended, once it has been pulled. */
  eol(): '\n' | '\r\n' | '\r' | null;
  close(): void;
}

/**
 * Rows of the table whose bytes `source` yields, its first byte on line `firstLine`. Rows whose only cell is
 * whitespace are left out. `plain: false` sends every row through csv-parse (the tests' reference).
 */
export function tableRows(source: AsyncIterator<Buffer>, firstLine: number, delimiter: string, file: string, crOnly: boolean, plain = true): TableRows {
  const nl = crOnly ? CR : LF;
  const nlText = String.fromCharCode(nl);
  let line = firstLine;
  let carry: Buffer | null = null;
  let eol: '\n' | '\r\n' | '\r' | null = crOnly ? '\r' : null;
  let parsed: TableRows | null = plain ? null : parsedRows(source, null, firstLine, delimiter, file, crOnly, null);

  // Splits the whole lines data[0, end) into rows; `ended`: the last one ran to the end of input, no line end.
  // Stops at a line it cannot take (quotes other than whole quoted cells within the line): returns the number of
  // lines taken before it, or -1 when all were.
  const split = (data: Buffer, end: number, ended: boolean, batch: InputRecord[]): number => {
    const pieces = data.toString('utf8', 0, end).split(nlText);
    if (!ended) pieces.pop();
    for (let i = 0; i < pieces.length; i++) {
      let text = pieces[i]!;
      if (!crOnly && text.charCodeAt(text.length - 1) === CR && (i < pieces.length - 1 || !ended)) text = text.slice(0, -1);
      if (text === '') {
        line++;
        continue;
      }
      const plainText = text.indexOf('"') === -1;
      const cells = plainText ? text.split(delimiter) : quotedCells(text, delimiter);
      if (cells === null) return i;
      // The first row taken is the header, from the first byte: a line of its own, the first LF its end.
      if (eol === null) eol = data[data.indexOf(LF) - 1] === CR ? '\r\n' : '\n';
      const at = line++;
      if (cells.length === 1 && cells[0]!.trim() === '') continue;
      batch.push(new LineRecord(at, cells, (plainText || minimallyQuoted) && !hasLineBreak(text) ? text : undefined));
    }
    return -1;
  };

  // The first byte past whole lines of data[0, end) short enough to take (csv-parse refuses a longer one).
  const plainEnd = (data: Buffer, end: number): number => {
    if (end <= MAX_LINE_BYTES) return end;
    for (let from = 0; from < end; ) {
      const at = data.indexOf(nl, from);
      const stop = at === -1 || at >= end ? end : at;
      if (stop - from > MAX_LINE_BYTES) return from;
      from = stop + 1;
    }
    return end;
  };

  // The byte where line `n` (0-based) of data starts.
  const lineStart = (data: Buffer, n: number): number => {
    let at = 0;
    for (let k = 0; k < n; k++) at = data.indexOf(nl, at) + 1;
    return at;
  };

  const pull = async (): Promise<InputRecord[] | null> => {
    for (;;) {
      if (parsed !== null) return parsed.pull();
      const step = await source.next();
      const ended = step.done === true;
      if (ended && carry === null) return null;
      const data: Buffer = ended ? carry! : carry === null ? step.value : Buffer.concat([carry, step.value]);
      carry = null;
      const end = ended ? data.length : data.lastIndexOf(nl) + 1;
      const cut = plainEnd(data, end);
      const batch: InputRecord[] = [];
      const stop = cut > 0 ? split(data, cut, ended && cut === data.length, batch) : -1;
      if (stop !== -1) {
        parsed = parsedRows(source, data.subarray(lineStart(data, stop)), line, delimiter, file, crOnly, eol);
      } else if (cut < end || data.length - end > MAX_LINE_BYTES) {
        parsed = parsedRows(source, data.subarray(cut), line, delimiter, file, crOnly, eol);
      } else if (end < data.length) {
        carry = data.subarray(end);
      }
      if (batch.length > 0) return batch;
      if (ended && parsed === null) return null;
    }
  };
  return {
    pull,
    eol: () => eol ?? parsed?.eol() ?? null,
    close: () => {
      if (parsed !== null) parsed.close();
      else void source.return?.(undefined);
    },
  };
}

/** A CR or LF within a line (a CR-only file's LF, a lone CR in an LF file): CSV output quotes such a cell. */
function hasLineBreak(text: string): boolean {
  return text.indexOf('\r') !== -1 || text.indexOf('\n') !== -1;
}

/**
 * Whether the line quotedCells read last is what CSV output writes for its cells (output/csv-row.ts): a cell is
 * quoted there when it holds the delimiter, a quote or a line break, and only then. A quoted cell holding neither
 * (`"abc"`) is written back without its quotes, so such a line cannot stand for its cells. (Line breaks are
 * checked on the line; an unquoted cell quotedCells takes holds no quote and no delimiter.)
 */
let minimallyQuoted = false;

/**
 * The cells of a line holding a quote, when every quote in it belongs to a quoted cell that closes within the
 * line, right before a delimiter or the line's end (`""` inside for a quote); else null, for csv-parse to read.
 */
function quotedCells(text: string, delimiter: string): string[] | null {
  const cells: string[] = [];
  let at = 0;
  minimallyQuoted = true;
  for (;;) {
    if (text.charCodeAt(at) === QUOTE) {
      let cell = '';
      let from = at + 1;
      let doubled = false;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q === -1) return null;
        if (text.charCodeAt(q + 1) === QUOTE) {
          cell += text.slice(from, q + 1);
          from = q + 2;
          doubled = true;
          continue;
        }
        cell += text.slice(from, q);
        at = q + 1;
        break;
      }
      if (!doubled && cell.indexOf(delimiter) === -1) minimallyQuoted = false;
      cells.push(cell);
      if (at === text.length) return cells;
      if (!text.startsWith(delimiter, at)) return null;
      at += delimiter.length;
      continue;
    }
    const next = text.indexOf(delimiter, at);
    const cell = next === -1 ? text.slice(at) : text.slice(at, next);
    if (cell.indexOf('"') !== -1) return null;
    cells.push(cell);
    if (next === -1) return cells;
    at = next + delimiter.length;
  }
}

// csv-parse over `first` then the rest of `source`, RowStarts finding each row's line from `firstLine` on.
function parsedRows(
  source: AsyncIterator<Buffer>,
  first: Buffer | null,
  firstLine: number,
  delimiter: string,
  file: string,
  crOnly: boolean,
  eol: '\n' | '\r\n' | '\r' | null,
): TableRows {
  const starts = new RowStarts(firstLine, delimiter.charCodeAt(0), file, crOnly);
  if (eol !== null) starts.eol = eol;
  async function* bytes(): AsyncGenerator<Buffer> {
    if (first !== null && first.length > 0) {
      starts.push(first);
      yield first;
    }
    for (let step = await source.next(); !step.done; step = await source.next()) {
      starts.push(step.value);
      yield step.value;
    }
  }
  const parser = parse({
    delimiter,
    record_delimiter: crOnly ? ['\r'] : ['\r\n', '\n'],
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_LINE_BYTES,
  });
  // An error can overtake rows still buffered in the parser: the parser's count of rows emitted tells which
  // row failed, whatever the consumer has got to. (Not an on_record hook counting them: csv-parse builds an
  // info object for every record it hands such a hook, 3.4 s of a 1,000,000-row run, measured.)
  const emitted = (): number => parser.info.records;
  const src = Readable.from(bytes());
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
  return {
    pull,
    eol: () => starts.eol,
    close: () => {
      parser.destroy();
      src.destroy();
    },
  };
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
