// Plain aligned tables and label/value blocks for records printed to a terminal (`lookup`, `catalog`, ...).
// No box drawing: output stays greppable and pastes cleanly. Widths are measured with displayWidth, which
// counts East Asian wide characters and emoji as two columns (an approximation, not a full wcwidth).
import { PLAIN, type Style, displayWidth, padToWidth, sanitizeForTerminal, truncateToWidth } from './terminal.js';
import { groupedNumber } from './format.js';

export interface Column {
  key: string;
  /** Header text; defaults to the key. */
  header?: string;
  /** Defaults to 'right' when every value in the column is a number, else 'left'. */
  align?: 'left' | 'right';
  /** Most columns a value may take before it is cut with '…'. */
  max?: number;
}

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

/** Shrink the widest columns one step at a time until the row fits `total` columns (or nothing can shrink). */
function fitWidths(widths: number[], total: number): number[] {
  const out = [...widths];
  let used = out.reduce((a, b) => a + b, 0) + GAP.length * Math.max(0, out.length - 1);
  while (used > total) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) {
      if (out[i]! > MIN_COLUMN && (widest < 0 || out[i]! > out[widest]!)) widest = i;
    }
    if (widest < 0) break;
    // Take the whole overflow from the widest column at once, but not below the runner-up or the minimum.
    const runnerUp = Math.max(MIN_COLUMN, ...out.filter((_, i) => i !== widest));
    const cut = Math.max(1, Math.min(used - total, out[widest]! - runnerUp));
    out[widest] = out[widest]! - cut;
    used -= cut;
  }
  return out;
}

/** Render rows as an aligned table: header, dim rule, one line per row; no trailing newline. */
export function renderTable(rows: Record<string, unknown>[], columns: Column[], opts: RenderOptions = {}): string {
  const style = opts.style ?? PLAIN;
  const headers = columns.map((c) => sanitizeForTerminal(c.header ?? c.key));
  const cells = rows.map((row) => columns.map((c) => toCell(row[c.key])));

  const aligns = columns.map((c, i): 'left' | 'right' => {
    if (c.align) return c.align;
    const present = cells.map((r) => r[i]!).filter((cell) => !cell.isNull);
    return present.length > 0 && present.every((cell) => cell.isNumber) ? 'right' : 'left';
  });

  let widths = columns.map((c, i) => {
    // reduce, not Math.max(...spread): a long table would overflow the argument list.
    const natural = cells.reduce((w, r) => Math.max(w, displayWidth(r[i]!.text)), displayWidth(headers[i]!));
    return c.max !== undefined ? Math.max(1, Math.min(natural, c.max)) : natural;
  });
  if (opts.width !== undefined && opts.width > 0) widths = fitWidths(widths, opts.width);

  const line = (texts: string[], shown: (text: string, i: number) => string): string =>
    texts
      .map((text, i) => {
        const cut = truncateToWidth(text, widths[i]!);
        return padToWidth(cut, widths[i]!, aligns[i]!, shown(cut, i));
      })
      .join(GAP)
      .trimEnd();

  const out = [line(headers, (text) => style.bold(text)), style.dim(widths.map((w) => '─'.repeat(w)).join(GAP))];
  for (const row of cells) {
    out.push(
      line(
        row.map((c) => c.text),
        (text, i) => (row[i]!.isNull ? style.dim(text) : text),
      ),
    );
  }
  return out.join('\n');
}

/** Render one record as 'label: value' lines, values aligned; no trailing newline. */
export function renderKeyValue(pairs: [string, unknown][], opts: RenderOptions = {}): string {
  const style = opts.style ?? PLAIN;
  const labels = pairs.map(([label]) => `${sanitizeForTerminal(label)}:`);
  const labelWidth = Math.max(0, ...labels.map(displayWidth));
  return pairs
    .map(([, value], i) => {
      const cell = toCell(value);
      const room = opts.width !== undefined && opts.width > 0 ? opts.width - labelWidth - GAP.length : Infinity;
      const text = Number.isFinite(room) ? truncateToWidth(cell.text, Math.max(MIN_COLUMN, room)) : cell.text;
      const label = padToWidth(labels[i]!, labelWidth, 'left', style.dim(labels[i]!));
      return `${label}${GAP}${showCell({ ...cell, text }, style)}`;
    })
    .join('\n');
}
