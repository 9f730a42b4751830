// The input's dialect (issue 15): which delimiter separates its cells, sniffed from the header and the first
// rows (csv-parse still does the parsing), and what the reader has to say about the input after a run (rows
// of another width than the header, an encoding taken for Windows-1252).
//
// Choices, where the issue left them open:
// - Candidates are `,` `;` tab `|`. One the header does not hold (outside quotes) cannot be it. When the header
//   holds one, it is the delimiter; when it holds several, the one that splits the most of the next rows
//   (up to SAMPLE_ROWS) into as many cells as the header wins; then the one splitting the header into more
//   cells; then tab, then the order above (a tab is next to never cell text, where a comma, `;` or `|` is: a
//   TSV header `domain<TAB>Last, First` over rows `a.example<TAB>Smith, Jo` is tab-separated). A header holding
//   none is a one-column CSV when it is a known host header, else the input is a plain list (as before).
// - A file named `.tsv` or `.tab` whose header holds a tab is tab-separated, whatever its rows: its name is the
//   exporter's word, and rows alone cannot always tell (a TSV header `domain<TAB><TAB>,` over a row `,`).
// - `--delimiter` forces it (and a table: a list is never guessed then); `--input-format tsv` means tab and
//   `--input-format csv` a comma, as they did before (a forced format is the user's word, not sniffed over).
import { type LineReader, lineText } from './lines.js';
import { DELIMITERS, type Delimiter } from '../domain/input-forms.js';
import type { InputShape } from '../domain/types.js';

/** Rows after the header looked at when the header holds more than one candidate. */
const SAMPLE_ROWS = 20;

/** The candidates a header line holds outside quotes, in DELIMITERS order. */
function candidatesIn(header: string): Delimiter[] {
  return DELIMITERS.filter((d) => cellCounts(header, d)[0]! > 1);
}

/**
 * The delimiter of a table whose header is `lines[0]` and whose next lines follow, from `candidates` (those
 * the header holds, at least one). The last line may be cut short by the sample's end: it is not counted.
 */
function sniffDelimiter(lines: string[], candidates: readonly Delimiter[]): Delimiter {
  const text = lines.join('\n');
  // Tab first, so that it wins a tie (the first one scoring highest wins).
  const ordered = [...candidates].sort((a, b) => Number(b === '\t') - Number(a === '\t'));
  let best = ordered[0]!;
  let bestScore = [-1, -1];
  for (const d of ordered) {
    const counts = cellCounts(text, d);
    const width = counts[0]!;
    const rows = counts.slice(1, lines.length > SAMPLE_ROWS ? -1 : undefined);
    const score = [rows.filter((n) => n === width).length, width];
    if (score[0]! > bestScore[0]! || (score[0] === bestScore[0] && score[1]! > bestScore[1]!)) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/** A file named as tab-separated (`.tsv`, `.tab`, any case). */
function namedTsv(file: string): boolean {
  return /\.(tsv|tab)$/i.test(file);
}

/**
 * The delimiter of a table whose header is `header`, in the file named `file`: from the name and the header
 * alone, or, when it holds several candidates, from the next rows too (read from `reader` into `more`, for
 * the caller to parse after the header).
 */
export async function sniffTable(reader: LineReader, header: string, more: Buffer[], file: string): Promise<Delimiter> {
  const candidates = candidatesIn(header);
  // None outside quotes (a quote left open in the header): the first one in it, for the parser to refuse there.
  if (candidates.length <= 1) return candidates[0] ?? DELIMITERS.find((d) => header.includes(d)) ?? ',';
  if (candidates.includes('\t') && namedTsv(file)) return '\t';
  const lines = [header];
  let sampled = 0;
  while (lines.length <= SAMPLE_ROWS + 1 && sampled < 64 * 1024) {
    const bytes = await reader.next();
    if (bytes === null) break;
    more.push(bytes);
    lines.push(lineText(bytes));
    sampled += bytes.length;
  }
  return sniffDelimiter(lines, candidates);
}

// The number of cells of each row of `text` under delimiter `d`, following the quoting csv-parse follows (a
// quote opens a field only at its start, `""` inside is a quote). Blank lines are no rows.
function cellCounts(text: string, d: Delimiter): number[] {
  const counts: number[] = [];
  let cells = 1;
  let inQuotes = false;
  let fieldStart = true;
  let blank = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"' && text[i + 1] === '"') i++;
      else if (c === '"') inQuotes = false;
      continue;
    }
    if (c === '\n' || c === '\r') {
      if (!blank) counts.push(cells);
      cells = 1;
      fieldStart = true;
      blank = true;
      continue;
    }
    blank = false;
    if (c === '"' && fieldStart) inQuotes = true;
    fieldStart = c === d;
    if (c === d) cells++;
  }
  if (!blank) counts.push(cells);
  return counts;
}

/** How many line numbers of ragged rows a warning names. */
export const RAGGED_LINES = 5;

/**
 * What a finished read has to tell the user about its input (one line each, for warnings): an encoding taken
 * for Windows-1252, and rows of another width than the header. Empty when there is nothing to say.
 */
export function inputNotes(shape: InputShape, file: string): string[] {
  const notes: string[] = [];
  if (shape.guessedAt !== undefined) {
    notes.push(
      `${file}: not UTF-8 (from line ${shape.guessedAt}): read as Windows-1252, as Excel saves CSV on Windows; if the accented letters are wrong, pass --encoding with the file's encoding. The output is UTF-8: for Excel to read it so, add --bom`,
    );
  }
  const ragged = shape.ragged;
  if (ragged !== undefined && ragged.rows > 0 && shape.headers !== null) {
    const more = ragged.rows > ragged.lines.length ? ', ...' : '';
    notes.push(
      `${file}: ${ragged.rows} rows have another number of cells than the header's ${shape.headers.length} (lines ${ragged.lines.join(', ')}${more}); kept: missing cells read as empty, extra cells are written after our columns`,
    );
  }
  return notes;
}
