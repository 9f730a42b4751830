// Writes enriched rows as CSV (input columns then ours), a JSON array or NDJSON, one row at a time, in
// the order they are handed over. Nothing is held back: memory stays flat however long the input is.
//
// Choices:
// - CSV keeps the input's delimiter (TSV in, TSV out) and its header and cells as they were read;
//   a newline list becomes a single `input` column holding the line as read.
// - Ragged rows: a short row is padded with empty cells up to the header width so our columns stay
//   under their headers; cells beyond the header width are kept, after our columns, for the same reason.
// - Input cells (and the input header) pass through byte for byte: they were in the user's file already,
//   and a `'` added to `+1 555 0100` or `@channel` damages their data. Only our appended columns (values
//   from the service, scraped from sites anyone controls) and our column names are neutralised against
//   formula injection (OWASP "CSV injection"); `neutraliseInput` extends it to input cells and the input
//   header, and `raw` turns all of it off (raw wins over neutraliseInput: "leave every cell exact").
//   JSON is never altered.
// - JSON and NDJSON write one row envelope whatever the input: {line, input, status, host, reason, data,
//   fetched_at}, `input` an object keyed by the CSV output's names for the input's columns (InputKeys).
// - CSV rows end as the input's did (shape.eol: CRLF in, CRLF out); a BOM starts the CSV when the input had
//   one or `bom` asks for it (Excel reads UTF-8 only with one). JSON and NDJSON get neither: their line
//   ends are not the user's data, and RFC 8259 forbids a BOM in JSON, so `bom` does nothing there.
// - `prefix` renames our CSV columns only (to avoid clashing with input headers); JSON keys never change.
// - `changes` (batch --changes) appends the change columns after ours in CSV and --fields objects, and a
//   `changes` object after fetched_at in whole JSON rows (null for invalid and error rows, whose CSV cells
//   are empty). Without it nothing is written differently, byte for byte.
// - The writer never ends `out`: stdout must stay open, and a file is closed by OutputTarget.commit().
import type { Writable } from 'node:stream';
import type { EnrichedRow, InputShape, RunKind } from '../domain/types.js';
import { chooseColumns, fetchedAtText, fieldValues, renderList } from '../domain/flatten.js';
import type { FieldValue, FlatValue } from '../domain/flatten.js';
import { changesObject } from '../domain/row-change.js';
import { csvLine, csvRowParts, neutraliseCell } from './csv-row.js';
import { SENT, Sink } from './sink.js';
// write.ts is the output end's one entry point; the pieces live in their own files.
export { columnsFor, flatten } from '../domain/flatten.js';
export { openOutput } from './file.js';
export { csvLine, neutraliseCell } from './csv-row.js';

export interface RowWriterOptions {
  format: 'csv' | 'json' | 'ndjson';
  kind: RunKind;
  shape: InputShape;
  /** Prepended to our CSV column names. */
  prefix?: string;
  /** Selects and orders our columns (names from columnsFor(kind, changes)). */
  fields?: string[];
  /** Append the --changes columns (row-change.ts) from each row's `change`. */
  changes?: boolean;
  /** Leave formula-like CSV cells exactly as they are, ours too (wins over neutraliseInput). */
  raw?: boolean;
  /** Neutralise formula-like input cells and input header cells too (by default only ours are). */
  neutraliseInput?: boolean;
  /** Start CSV output with a UTF-8 BOM even when the input had none. No effect on JSON or NDJSON. */
  bom?: boolean;
  /**
   * Applied to every CSV cell last: the CLI passes a terminal sanitiser when stdout is a terminal, so
   * escapes scraped from a website cannot drive the user's terminal. JSON escapes control characters itself.
   */
  cleanCell?: (cell: string) => string;
}

export interface RowWriter {
  /** Writes one row; resolves when `out` can take more (back-pressure). */
  write(row: EnrichedRow): Promise<void>;
  /**
   * Writes rows in order, as write() each would; resolves when `out` can take more. Waits only where the output
   * pushes back: no await per row (a warm re-run writes 1,000,000 rows in batches of those ready).
   */
  writeBatch?(rows: readonly EnrichedRow[]): Promise<void>;
  /** Writes what closes the document (header of an empty CSV, `]` of JSON); does not end `out`. */
  end(): Promise<void>;
}

/** Creates a streaming writer of rows to `out` in the chosen format. */
export function createRowWriter(out: Writable, opts: RowWriterOptions): RowWriter {
  const fields = chooseColumns(opts.kind, opts.fields, opts.changes === true);
  const write = opts.format === 'csv' ? csvWriter(out, opts, fields) : jsonWriter(out, opts, fields);
  let ended = false;
  return {
    // Not async: a row costs no promise of its own unless the output pushes back.
    write(row) {
      if (ended) return Promise.reject(new Error('row writer already ended'));
      return write.row(row);
    },
    async writeBatch(rows) {
      for (const row of rows) {
        if (ended) throw new Error('row writer already ended');
        const sent = write.row(row);
        if (sent !== SENT) await sent;
      }
    },
    async end() {
      if (ended) return;
      ended = true;
      await write.end();
    },
  };
}

interface FormatWriter {
  row(row: EnrichedRow): Promise<void>;
  end(): Promise<void>;
}

function csvWriter(out: Writable, opts: RowWriterOptions, fields: { names: string[] }): FormatWriter {
  const { shape } = opts;
  const inputHeader = shape.format === 'lines' || shape.headers === null ? ['input'] : shape.headers;
  // A newline list gets our one `input` column (its header is ours); a table keeps the user's header row.
  const listInput = inputHeader !== shape.headers;
  const width = inputHeader.length;
  const prefix = opts.prefix ?? '';
  const same = (s: string): string => s;
  const clean = opts.cleanCell;
  const ours = withClean(opts.raw ? same : neutraliseCell, clean);
  const theirs = withClean(opts.raw || !opts.neutraliseInput ? same : neutraliseCell, clean);
  const delimiter = shape.delimiter ?? (shape.format === 'tsv' ? '\t' : ',');
  const eol = shape.eol ?? '\n';
  const render = csvLine(delimiter, eol);
  const changes = opts.changes === true;
  const sink = new Sink(out);
  let started = false;
  const header = (): Promise<void> => {
    started = true;
    const names = inputHeader.map(listInput ? ours : theirs);
    const bom = shape.bom === true || opts.bom === true ? '\ufeff' : '';
    return sink.send(bom + render([...names, ...fields.names.map((f) => ours(prefix + f))]));
  };
  // Every cell through one rule and csvLine: under a terminal cleaner (it runs over every cell last).
  const general = (row: EnrichedRow): string => {
    const values = fieldValues(row, changes);
    const record: string[] = [];
    for (let i = 0; i < width; i++) record.push(theirs(row.cells[i] ?? ''));
    for (const f of fields.names) record.push(ours(csvCell(renderList(values[f] ?? null))));
    for (let i = width; i < row.cells.length; i++) record.push(theirs(row.cells[i] as string));
    return render(record);
  };
  const parts = clean === undefined ? csvRowParts({ ...opts, names: fields.names, delimiter, eol, width, inputDelimiter: shape.delimiter }) : null;
  const format: FormatWriter['row'] = (row) => {
    if (!started) return header().then(() => format(row));
    if (parts === null) return sink.send(general(row));
    const tail = parts.tail(row);
    if (tail === null) return sink.send(parts.line(row));
    // The input's line and the rest apart: the line is never copied into a string of the whole row.
    sink.put(row.text as string);
    return sink.send(tail);
  };
  return {
    row: format,
    async end() {
      if (!started) await header();
      await sink.flush();
    },
  };
}

// The terminal sanitiser goes last, over whatever the formula rule made of the cell.
function withClean(rule: (s: string) => string, clean: ((s: string) => string) | undefined): (s: string) => string {
  if (clean === undefined) return rule;
  return (s) => clean(rule(s));
}

function csvCell(value: FlatValue): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

function jsonWriter(out: Writable, opts: RowWriterOptions, fields: { names: string[]; chosen: boolean }): FormatWriter {
  const keys = new InputKeys(opts.shape);
  const changes = opts.changes === true;
  const objectFor = (row: EnrichedRow): Record<string, unknown> => {
    if (fields.chosen) {
      const values = fieldValues(row, changes);
      const flat: Record<string, FieldValue> = { line: row.line };
      for (const f of fields.names) flat[f] = values[f] ?? null;
      return flat;
    }
    const input = keys.object(row.cells);
    const whole: Record<string, unknown> = {
      line: row.line,
      input,
      status: row.status,
      host: row.host,
      reason: row.reason,
      data: row.data,
      fetched_at: fetchedAtText(row.fetchedAt),
    };
    if (changes) whole.changes = changesObject(row);
    return whole;
  };
  const sink = new Sink(out);
  let count = 0;
  if (opts.format === 'ndjson') {
    return {
      row: (row) => sink.send(`${JSON.stringify(objectFor(row))}\n`),
      end: () => sink.flush(),
    };
  }
  return {
    row: (row) => sink.send(`${count++ === 0 ? '[\n' : ',\n'}${JSON.stringify(objectFor(row))}`),
    async end() {
      await sink.send(count === 0 ? '[]\n' : '\n]\n');
      await sink.flush();
    },
  };
}

// JSON keys for input cells, named as the CSV output names their columns: the header's names made unique
// (`_2`, `_3`...: an object cannot hold a name twice), `column_N` for blank or extra ones, and `input` for a
// newline list's one cell (the one column CSV writes for it). So `input` is an object whatever the input.
class InputKeys {
  private readonly keys: string[] = [];
  private readonly taken = new Set<string>();

  constructor(shape: InputShape) {
    for (const h of shape.format === 'lines' || shape.headers === null ? ['input'] : shape.headers) this.add(h);
  }

  object(cells: string[]): Record<string, string | null> {
    while (this.keys.length < cells.length) this.add('');
    const obj: Record<string, string | null> = {};
    // A short row's missing cells are null: present-but-empty ("") and absent stay distinguishable.
    for (const [i, k] of this.keys.entries()) obj[k] = cells[i] ?? null;
    return obj;
  }

  private add(header: string): void {
    const base = header === '' ? `column_${this.keys.length + 1}` : header;
    let key = base;
    for (let n = 2; this.taken.has(key); n++) key = `${base}_${n}`;
    this.taken.add(key);
    this.keys.push(key);
  }
}
