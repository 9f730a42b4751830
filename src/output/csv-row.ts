// CSV rows rendered straight from the answer (issue 27): the write end of a 1,000,000-row run spent a fifth of
// its CPU building a 21-key object per row (domain/fields.ts), checking every cell for formulas and quotes and
// formatting its fetched_at again. Here the chosen columns are compiled once into a template of segments:
// - the row's own cells (status, host, reason, fetched_at), rendered per row: cheap, few;
// - runs of columns that come from the answer alone, rendered once per answer (the text remembered by the
//   answer object: a host's rows share it) and once for rows without one (all empty);
// - runs of --changes columns, rendered once per change (rows of a key share one RowChange).
// Values still come from the one place that defines them (KINDS[kind].values, changeValues), so the columns
// cannot drift from the JSON output or the header. The formula rule runs on text cells only: a number or a
// boolean renders as a plain number or a word, which the rule leaves alone anyway. Byte for byte what the
// general path (csvLine over every cell, write.ts) writes: a property test in write.test.ts holds the two equal.
import { fetchedAtText } from '../domain/fields.js';
import { renderList } from '../domain/flatten.js';
import { KINDS } from '../domain/kinds.js';
import { CHANGE_COLUMNS, changeValues } from '../domain/row-change.js';
import type { EnrichedRow, FieldValue, RunKind } from '../domain/types.js';

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Prefixes `'` to a cell a spreadsheet would evaluate (= + - @ TAB CR first), except plain numbers. */
export function neutraliseCell(s: string): string {
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

type CsvDelimiter = ',' | ';' | '\t' | '|';

/** What makes a cell need quotes under `delimiter`: the delimiter, a quote, LF or CR. */
function specialFor(delimiter: CsvDelimiter): RegExp {
  return delimiter === ',' ? /[",\r\n]/ : delimiter === '\t' ? /["\t\r\n]/ : delimiter === ';' ? /[";\r\n]/ : /["|\r\n]/;
}

/**
 * Renders one record as a CSV line, byte for byte what csv-stringify writes with `{ delimiter,
 * record_delimiter: eol, quoted_match: /[\r\n]/ }` (a property test in write.test.ts holds the two equal, with
 * csv-stringify as the reference). Written out here for the row writer only, on measurement: csv-stringify
 * builds a cast context and arrays for every cell, 44% of all the memory a batch run allocated and 4 s of a
 * 1,000,000-row run's CPU; this is one test per cell and one join per row. Tables (cli/output/rows.ts) still use it.
 * A cell is quoted when it holds the delimiter, a quote, LF or CR (a cell ending in CR would lose it on
 * reading back, CRLF being a row end); quotes inside are doubled.
 */
export function csvLine(delimiter: CsvDelimiter, eol: '\n' | '\r\n' | '\r' = '\n'): (record: string[]) => string {
  const special = specialFor(delimiter);
  const quote = (c: string): string => (special.test(c) ? `"${c.replaceAll('"', '""')}"` : c);
  // Cells joined once (one string, not one per cell); a row with a cell to quote takes the longer way.
  return (record) => {
    for (const c of record) if (special.test(c)) return `${record.map(quote).join(delimiter)}${eol}`;
    return `${record.join(delimiter)}${eol}`;
  };
}

interface LineOptions {
  kind: RunKind;
  names: readonly string[];
  delimiter: CsvDelimiter;
  eol: string;
  /** The input header's width: cells beyond it go after our columns. */
  width: number;
  /** The delimiter the input was read with (a row's `text` holds it); absent: not a delimited input. */
  inputDelimiter?: string;
  raw?: boolean;
  neutraliseInput?: boolean;
}

/**
 * A row's whole CSV line (`line`: the input's cells quoted as needed, our columns' template, the extra cells, the
 * row end), and for a row whose input line stands for its cells, what follows that line (`tail`).
 */
export interface RowParts {
  line(row: EnrichedRow): string;
  /** What the row's line is after its `text` (input/table-rows.ts) when the text stands for its cells; else null. */
  tail(row: EnrichedRow): string | null;
}

/**
 * The line in two parts: a row read whole from a line that re-quoting its cells gives back is written as that
 * line (a sliced string, no copy) and its tail, so the writer takes the two apart and no string of the whole
 * line is built (issue 27: the row's text, then a flat copy of it for the byte buffer, was a fifth of what a
 * re-run allocated).
 */
export function csvRowParts(o: LineOptions): RowParts {
  const { delimiter, eol, width } = o;
  const special = specialFor(delimiter);
  const exact = o.raw === true || o.neutraliseInput !== true;
  const input = (c: string): string => {
    const s = exact ? c : neutraliseCell(c);
    return special.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const ours = oursRenderer({ kind: o.kind, names: o.names, delimiter, neutralise: o.raw !== true });
  // A line read whole, whose cells this writes back as its very characters (input/table-rows.ts): the line itself.
  const sameDelimiter = delimiter === o.inputDelimiter;
  const tail = (row: EnrichedRow): string | null =>
    exact && sameDelimiter && row.text !== undefined && row.cells.length === width ? `${delimiter}${ours(row)}${eol}` : null;
  return {
    tail,
    line: (row) => {
      const after = tail(row);
      if (after !== null) return (row.text as string) + after;
      const cells = row.cells;
      let s = '';
      for (let i = 0; i < width; i++) s += (i === 0 ? '' : delimiter) + input(cells[i] ?? '');
      s += (width === 0 ? '' : delimiter) + ours(row);
      for (let i = width; i < cells.length; i++) s += delimiter + input(cells[i] as string);
      return s + eol;
    },
  };
}

/** The row's own columns: everything else a kind appends comes from its answer alone (a test holds it so). */
const ROW_COLUMNS = new Set(['status', 'host', 'reason', 'fetched_at']);
const CHANGE_SET = new Set<string>(CHANGE_COLUMNS);

interface RenderOptions {
  kind: RunKind;
  /** Our columns, chosen and ordered (names before any prefix). */
  names: readonly string[];
  delimiter: CsvDelimiter;
  /** Apply the formula rule to our text cells (not under raw). */
  neutralise: boolean;
}

/** Renders our cells of a row, joined by the delimiter (no leading or trailing one). */
function oursRenderer(o: RenderOptions): (row: EnrichedRow) => string {
  const special = specialFor(o.delimiter);
  const quote = (c: string): string => (special.test(c) ? `"${c.replaceAll('"', '""')}"` : c);
  const text = o.neutralise ? (s: string) => quote(neutraliseCell(s)) : quote;
  const cell = (value: FieldValue): string => {
    const flat = renderList(value);
    if (flat === null) return '';
    return typeof flat === 'string' ? text(flat) : String(flat);
  };
  const values = KINDS[o.kind].values;
  const segments: ((row: EnrichedRow) => string)[] = [];
  for (let i = 0; i < o.names.length; ) {
    const name = o.names[i] as string;
    if (ROW_COLUMNS.has(name)) {
      segments.push(rowCell(name, text));
      i++;
      continue;
    }
    // A run of columns of one source, rendered together and remembered by that source.
    const fromChange = CHANGE_SET.has(name);
    const run: string[] = [];
    for (; i < o.names.length; i++) {
      const next = o.names[i] as string;
      if (ROW_COLUMNS.has(next) || CHANGE_SET.has(next) !== fromChange) break;
      run.push(next);
    }
    const render = (v: Record<string, FieldValue>): string => run.map((n) => cell(v[n] ?? null)).join(o.delimiter);
    segments.push(
      fromChange
        ? remembered(
            (row) => (row.status === 'found' || row.status === 'missing' ? row.change : undefined),
            (row) => render(changeValues(row)),
          )
        : remembered(
            (row) => row.data ?? undefined,
            (row) => render(values(row)),
          ),
    );
  }
  if (segments.length === 1) return segments[0] as (row: EnrichedRow) => string;
  return (row) => {
    let s = (segments[0] as (row: EnrichedRow) => string)(row);
    for (let i = 1; i < segments.length; i++) s += o.delimiter + (segments[i] as (row: EnrichedRow) => string)(row);
    return s;
  };
}

function rowCell(name: string, text: (s: string) => string): (row: EnrichedRow) => string {
  switch (name) {
    case 'status':
      return (row) => row.status; // one of four words
    case 'fetched_at':
      return (row) => fetchedAtText(row.fetchedAt) ?? ''; // digits, '-', ':', 'T', 'Z'
    case 'host':
      return (row) => (row.host === null ? '' : text(row.host));
    default:
      return (row) => (row.reason === null ? '' : text(row.reason));
  }
}

/**
 * A segment rendered once per source object (`sourceOf`) and remembered with it; rows without one share
 * one text, rendered from the first such row (every value of a missing source is null: empty cells).
 */
function remembered(sourceOf: (row: EnrichedRow) => unknown, render: (row: EnrichedRow) => string): (row: EnrichedRow) => string {
  const seen = new WeakMap<object, string>();
  let none: string | undefined;
  return (row) => {
    const source = sourceOf(row);
    if (source === undefined || source === null) {
      none ??= render(row);
      return none;
    }
    if (typeof source !== 'object') return render(row);
    let s = seen.get(source);
    if (s === undefined) {
      s = render(row);
      seen.set(source, s);
    }
    return s;
  };
}
