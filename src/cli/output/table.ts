// Plain aligned tables and label/value blocks for records printed to a terminal (`lookup`, `catalog`, ...).
// No box drawing: output stays greppable and pastes cleanly. Widths are measured with displayWidth, which
// counts East Asian wide characters and emoji as two columns (an approximation, not a full wcwidth).
//
// Fitting a width: a column is a key (a host: what a row is about), a number, or free text. A cut host or a
// cut figure (`usi.c…`, `40,600…`) is worse than none: it reads as another value; so is cut free text (`Hotja…`,
// `a plac…`). So free text gives way first, and whole: it wraps at word boundaries within a narrower column
// (the row takes more lines); then headers shorten; then, widest first, it leaves its column for lines of its
// own under the row (`  technologies: ...`, as wide as the terminal). Keys and numbers are never cut; a column
// empty in every row takes no room at all. When keys and numbers alone are wider than the terminal, each row
// is shown as a block of `label  value` lines instead (psql's `\x auto`), free text wrapped beside its label.
import { PLAIN, type Style, displayWidth, padToWidth, sanitizeForTerminal, truncateToWidth } from './terminal.js';
import { groupedNumber } from './format.js';
import { wrapPieces, wrapWords } from './wrap.js';

export interface Column {
  key: string;
  /** Header text; defaults to the key. */
  header?: string;
  /** Defaults to 'right' when every value in the column is a number, else 'left'. */
  align?: 'left' | 'right';
  /** Most columns a value may take before it is cut with '…'. */
  max?: number;
  /**
   * How it fits a narrow terminal: 'key' and 'number' are never cut, 'text' shrinks first and, when given
   * here, may be dropped. Defaults to 'number' when every value is a number, else text that only shrinks.
   */
  kind?: ColumnKind;
  /** A shorter header, used when the table would not fit otherwise (`cc` for `country`). */
  short?: string;
}

type ColumnKind = 'key' | 'number' | 'text';

export interface RenderOptions {
  style?: Style;
  /** Terminal columns to fit in (e.g. process.stdout.columns); omitted means no limit. */
  width?: number;
}

/** A value as one cell: its plain text (for measuring) and whether it is the null placeholder. */
interface Cell {
  text: string;
  isNull: boolean;
  isNumber: boolean;
}

const NULL_MARK = '—';
const GAP = '  ';
// Columns never shrink below this when fitting a width, so every column stays recognisable.
const MIN_COLUMN = 4;
// A column of free text that wraps keeps at least this (or its header's width): narrower, it would hold a
// syllable a line; its text goes under the row instead.
const WRAP_MIN = 10;
// A wrapped column is made wide enough for its longest word up to this; a longer word may still be cut.
const WORD_MAX = 24;
const DETAIL_INDENT = '  ';
// The most lines a wrapped column may make a row take while its text could go under the rows instead.
const TALL = 4;

/** The widest piece wrapWords keeps whole of `text` (its own split: a lone `/` binds its neighbours). */
function longestWord(text: string): number {
  return wrapPieces(text).reduce((w, { piece }) => Math.max(w, displayWidth(piece)), 0);
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return NULL_MARK;
  if (typeof value === 'number') return groupedNumber(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '?' : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  // Nested objects should be flattened by the caller; compact JSON is a readable last resort.
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A cycle or a BigInt inside makes JSON.stringify throw: the cell still shows something.
    return String(value);
  }
}

function toCell(value: unknown): Cell {
  if (value === null || value === undefined) return { text: NULL_MARK, isNull: true, isNumber: false };
  const text = Array.isArray(value) ? value.map(scalarText).join(', ') : scalarText(value);
  return { text: sanitizeForTerminal(text), isNull: false, isNumber: typeof value === 'number' };
}

function showCell(cell: Cell, style: Style): string {
  return cell.isNull ? style.dim(cell.text) : cell.text;
}

/**
 * Widths that fit `total` columns: with `drop`, free-text columns declared so (`droppable`) go first, the widest
 * first (the one that needs the most room to say anything), until the rest could fit; then the widest free-text
 * column shrinks one step at a time down to its floor (`mins`). Keys and numbers keep their width. Each width
 * (0: dropped), and whether the row fits.
 */
function fitWidths(
  widths: number[],
  kinds: ColumnKind[],
  mins: number[],
  droppable: boolean[],
  total: number,
  drop: boolean | 'widest',
): { widths: number[]; fits: boolean } {
  const out = [...widths];
  const used = (w: number[]): number => {
    const shown = w.filter((x) => x > 0);
    return shown.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, shown.length - 1);
  };
  const squeezed = (): number[] => out.map((w, i) => (kinds[i] === 'text' ? Math.min(w, mins[i]!) : w));
  if (drop) {
    const text = out.flatMap((w, i) => (droppable[i] && w > 0 ? [i] : [])).sort((a, b) => out[b]! - out[a]!);
    for (const [n, i] of text.entries()) {
      // 'widest': the widest goes under the rows even where squeezing would make it fit (too tall a row).
      if ((used(squeezed()) <= total && !(drop === 'widest' && n === 0)) || out.filter((w) => w > 0).length <= 1) break;
      out[i] = 0;
    }
  }
  while (used(out) > total) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) {
      if (kinds[i] === 'text' && out[i]! > mins[i]! && (widest < 0 || out[i]! > out[widest]!)) widest = i;
    }
    if (widest < 0) break;
    // Take the whole overflow from the widest text column at once, but not below the runner-up or its floor.
    const runnerUp = Math.max(mins[widest]!, ...out.filter((_w, i) => i !== widest && kinds[i] === 'text'));
    out[widest] = out[widest]! - Math.max(1, Math.min(used(out) - total, out[widest]! - runnerUp));
  }
  return { widths: out, fits: used(out) <= total };
}

/**
 * Render rows as an aligned table: header, dim rule, a line per row; no trailing newline. Free text declared so
 * (`kind: 'text'`) wraps within its column at word boundaries, the row taking more lines, and is never cut;
 * where no column can give it room, it goes under its row, labelled, as wide as the terminal.
 */
export function renderTable(rows: Record<string, unknown>[], allColumns: Column[], opts: RenderOptions = {}): string {
  const style = opts.style ?? PLAIN;
  const allCells = rows.map((row) => allColumns.map((c) => toCell(row[c.key])));
  // A column empty in every row says nothing and takes room: dropped (kept when there are no rows at all).
  const kept = allColumns.flatMap((_c, i) => (rows.length === 0 || allCells.some((r) => !r[i]!.isNull) ? [i] : []));
  const columns = kept.map((i) => allColumns[i]!);
  const cells = allCells.map((r) => kept.map((i) => r[i]!));
  const long = columns.map((c) => sanitizeForTerminal(c.header ?? c.key));
  let headers = long;
  const allNumbers = (i: number): boolean => {
    const present = cells.map((r) => r[i]!).filter((cell) => !cell.isNull);
    return present.length > 0 && present.every((cell) => cell.isNumber);
  };
  const kinds = columns.map((c, i): ColumnKind => c.kind ?? (allNumbers(i) ? 'number' : 'text'));
  const aligns = columns.map((c, i): 'left' | 'right' => c.align ?? (allNumbers(i) ? 'right' : 'left'));
  // Only a column its caller declared free text wraps (and may go under its row); one of unknown worth is cut.
  const wraps = columns.map((c) => c.kind === 'text');

  const naturalWidths = (names: string[]): number[] =>
    columns.map((c, i) => {
      // reduce, not Math.max(...spread): a long table would overflow the argument list.
      const natural = cells.reduce((w, r) => Math.max(w, displayWidth(r[i]!.text)), displayWidth(names[i]!));
      return c.max !== undefined && kinds[i] === 'text' ? Math.max(1, Math.min(natural, c.max)) : natural;
    });
  let widths = naturalWidths(headers);
  if (opts.width !== undefined && opts.width > 0) {
    // What gives way, least loss first: free text wraps narrower; then the short headers; then free text goes
    // under its row. A wrapped column keeps room for its header and a few words (WRAP_MIN).
    const short = columns.map((c, i) => (c.short === undefined ? long[i]! : sanitizeForTerminal(c.short)));
    // And room for its longest word (up to WORD_MAX): narrower, a name was cut mid-word (`WooCommerc` / `e`).
    const words = columns.map((_c, i) => (wraps[i] ? cells.reduce((w, r) => Math.max(w, longestWord(r[i]!.text)), 0) : 0));
    const floors = (names: string[]) => names.map((n, i) => (wraps[i] ? Math.max(WRAP_MIN, displayWidth(n), Math.min(words[i]!, WORD_MAX)) : MIN_COLUMN));
    const tries = [
      { names: long, drop: false },
      { names: short, drop: false },
      { names: short, drop: true },
    ];
    const fitOf = (t: { names: string[]; drop: boolean | 'widest' }) => fitWidths(naturalWidths(t.names), kinds, floors(t.names), wraps, opts.width!, t.drop);
    const first = tries.map((t) => ({ ...t, ...fitOf(t) })).find((t) => t.fits);
    // A column squeezed so narrow that a row takes more than TALL lines reads worse than its text under the
    // rows (a trial's four hosts at 60 columns: technologies 14 wide, 7 to 8 lines a row): then under, if that fits.
    const tall = (w: number[]) => cells.some((r) => w.some((width, i) => wraps[i] && width > 0 && wrapWords(r[i]!.text, width).length > TALL));
    const below =
      first !== undefined && tall(first.widths)
        ? [long, short].map((names) => ({ names, ...fitOf({ names, drop: 'widest' }) })).find((t) => t.fits)
        : undefined;
    const fitted = below ?? first;
    if (fitted === undefined && rows.length > 0) return renderBlocks(long, cells, kinds, style, opts.width);
    if (fitted !== undefined) ({ widths, names: headers } = fitted);
  }
  const on = widths.flatMap((w, i) => (w > 0 ? [i] : []));
  const under = widths.flatMap((w, i) => (w === 0 ? [i] : []));

  // A row's lines: each shown cell cut (a column of unknown worth) or wrapped (free text) to its width.
  const lines = (texts: string[], shown: (text: string, i: number) => string): string[] => {
    const pieces = on.map((i) => (wraps[i] ? wrapWords(texts[i]!, widths[i]!) : [truncateToWidth(texts[i]!, widths[i]!)]));
    const height = Math.max(1, ...pieces.map((p) => p.length));
    return Array.from({ length: height }, (_, n) =>
      on
        .map((i, j) => {
          const piece = pieces[j]![n] ?? '';
          return padToWidth(piece, widths[i]!, aligns[i]!, piece === '' ? '' : shown(piece, i));
        })
        .join(GAP)
        .trimEnd(),
    );
  };
  // A column without a header (a marker such as `keys list`'s `*`) has no rule under it either.
  const rule = on.map((i) => (headers[i]!.trim() === '' ? ' ' : '─').repeat(widths[i]!)).join(GAP);
  const out = [...lines(headers, (text) => style.bold(text)), style.dim(rule.trimEnd())];
  for (const row of cells) {
    out.push(
      ...lines(
        row.map((c) => c.text),
        (text, i) => (row[i]!.isNull ? style.dim(text) : text),
      ),
    );
    // Free text with no column of its own, under its row: `  technologies: ...`, wrapped to the terminal.
    for (const i of under) {
      if (row[i]!.isNull) continue;
      const label = `${DETAIL_INDENT}${long[i]}: `;
      const body = wrapWords(row[i]!.text, Math.max(MIN_COLUMN, (opts.width ?? 0) - displayWidth(label)));
      out.push(...body.map((l, n) => (n === 0 ? `${DETAIL_INDENT}${style.dim(`${long[i]}:`)} ${l}` : `${' '.repeat(displayWidth(label))}${l}`)));
    }
  }
  return out.join('\n');
}

/** Each row as a block of `label  value` lines, blocks apart by a blank line: free text wraps to the width. */
function renderBlocks(headers: string[], rows: Cell[][], kinds: ColumnKind[], style: Style, width: number): string {
  const labelWidth = Math.max(0, ...headers.map(displayWidth));
  const room = Math.max(MIN_COLUMN, width - labelWidth - GAP.length);
  return rows
    .map((row) =>
      row
        .map((cell, i) => {
          const label = padToWidth(headers[i]!, labelWidth, 'left', style.dim(headers[i]!));
          return valueLines(label, labelWidth, cell, kinds[i] === 'text' ? room : Infinity, style);
        })
        .join('\n'),
    )
    .join('\n\n');
}

/** `label  value`, the value wrapped to `room` columns with its continuation lines under its first (Infinity: whole). */
function valueLines(label: string, labelWidth: number, cell: Cell, room: number, style: Style): string {
  const parts = Number.isFinite(room) ? wrapWords(cell.text, room) : [cell.text];
  const indent = ' '.repeat(labelWidth + GAP.length);
  return parts.map((part, n) => `${n === 0 ? `${label}${GAP}` : indent}${showCell({ ...cell, text: part }, style)}`).join('\n');
}

/**
 * Render one record as 'label: value' lines, values aligned; no trailing newline. A pair's third element marks
 * a key (a host) that is never wrapped to the width; figures are never wrapped either. Other values wrap at
 * word boundaries under their first line.
 */
export function renderKeyValue(pairs: [string, unknown, ColumnKind?][], opts: RenderOptions = {}): string {
  const style = opts.style ?? PLAIN;
  const labels = pairs.map(([label]) => `${sanitizeForTerminal(label)}:`);
  const labelWidth = Math.max(0, ...labels.map(displayWidth));
  return pairs
    .map(([, value, kind], i) => {
      const cell = toCell(value);
      const room = opts.width !== undefined && opts.width > 0 ? Math.max(MIN_COLUMN, opts.width - labelWidth - GAP.length) : Infinity;
      const whole = kind === 'key' || kind === 'number' || cell.isNumber;
      const label = padToWidth(labels[i]!, labelWidth, 'left', style.dim(labels[i]!));
      return valueLines(label, labelWidth, cell, whole ? Infinity : room, style);
    })
    .join('\n');
}
