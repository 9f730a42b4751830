// Which format a command writes: what --format asks, what -o's name says, or by the terminal. Apart from the
// table renderer (render.ts), so a lookup writing JSON into a pipe loads none of it.
import { UsageError } from '../../api/errors.js';
import { formatByName } from './by-name.js';

/** What a single answer or a listing is shown as. */
export type Shown = 'table' | 'json' | 'ndjson' | 'csv';
/** What hosts looked up from the command line are written as: a workbook too, into a file or a pipe. */
export type Format = Shown | 'xlsx';

/** The format in force: --format, else a table on a terminal and JSON in a pipe. */
export function pickFormat(requested: unknown, stdoutIsTTY: boolean | undefined): Shown {
  if (requested === 'table' || requested === 'json' || requested === 'ndjson' || requested === 'csv') return requested;
  return stdoutIsTTY ? 'table' : 'json';
}

/**
 * The format of hosts looked up from the command line: as asked; else, with -o FILE, as its name says (as for
 * batch: .xlsx, .json, .ndjson or .jsonl, else CSV); else a table on a terminal and JSON in a pipe. A table is
 * drawn for a terminal (widths, colour), so it is refused with -o FILE; a workbook is binary, so it is refused
 * on a terminal.
 */
export function argsFormat(requested: unknown, output: string | undefined, stdoutIsTTY: boolean | undefined): Format {
  const toFile = output !== undefined && output !== '-';
  if (toFile && requested === 'table') throw new UsageError('--format table is drawn for the terminal; with -o FILE use csv, json, ndjson or xlsx');
  if (toFile && requested === undefined) return formatByName(output);
  if (requested !== 'xlsx') return pickFormat(requested, !toFile && stdoutIsTTY);
  if (!toFile && stdoutIsTTY === true) throw new UsageError('--format xlsx is binary and stdout is a terminal: write it with -o FILE.xlsx, or into a pipe');
  return 'xlsx';
}
