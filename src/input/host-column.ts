// Which column holds the host: the one named by --column (a header, case-insensitively, or a 1-based index), or
// the header HOST_HEADERS ranks first among those the file has: a CRM export with both `Website` and `Email`
// is read by its website (issue 29), and the run says which it took and over what (columnChoice), so
// `--column` can choose otherwise. Two headers of the same rank (`Website` twice), or none, are a usage error
// listing the headers.
import { UsageError } from '../api/errors.js';
import { normaliseHost } from '../domain/normalise.js';
import { showValue } from '../domain/safe-text.js';
import type { InputRecord } from '../domain/types.js';

/** Header names that identify the host column, matched case-insensitively after trimming; the first one a file has wins. */
export const HOST_HEADERS = ['domain', 'host', 'hostname', 'website', 'url', 'site', 'email'] as const;

/** Header cells named in a message about the host column. */
const LISTED = 12;

/** Index of the host column: from --column, else the header HOST_HEADERS ranks first (one of that rank). */
export function findHostColumn(headers: string[], column: string | undefined, file: string): number {
  const key = (h: string): string => h.trim().toLowerCase();
  // A file that is no table (a JSON list, a log) has a "header" of thousands of cells: the first few say enough.
  const shown = headers.slice(0, LISTED).map((h) => showValue(h));
  if (headers.length > LISTED) shown.push(`... and ${headers.length - LISTED} more`);
  const listed = `headers are: ${shown.join(', ') || '(none)'}`;
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
  const known = candidates(headers);
  const top = known.length === 0 ? -1 : rank(headers[known[0]!]!);
  const best = known.filter((i) => rank(headers[i]!) === top);
  if (best.length === 1) return best[0]!;
  if (best.length > 1) {
    const which = best.map((i) => `${showValue(headers[i]!)} (${i + 1})`).join(', ');
    throw new UsageError(`${file}: more than one column could hold the host: ${which}; ${choose}; ${listed}`);
  }
  // A part `split -l` cut from a file keeps no header: its first row is read as one, and says so.
  const row = headers.find((h) => h.includes('.') && normaliseHost(h).ok);
  const data = row === undefined ? '' : `; its first line looks like a row, not a header (${showValue(row)} is a host name): put the header line back`;
  throw new UsageError(`${file}: no host column found (looked for ${HOST_HEADERS.join(', ')})${data}; ${choose}; ${listed}`);
}

/** A header's place in HOST_HEADERS (-1: none). */
function rank(header: string): number {
  return (HOST_HEADERS as readonly string[]).indexOf(header.trim().toLowerCase());
}

/**
 * The record's `elsewhere` when its host cell is empty and another of `others` (columns that could hold a
 * host) holds something; `others` from otherHostColumns.
 */
export function markElsewhere(record: InputRecord, headers: readonly string[], others: readonly number[]): void {
  if (others.length === 0 || record.value.trim() !== '') return;
  for (const i of others) {
    const value = record.cells[i]?.trim() ?? '';
    if (value !== '') {
      record.elsewhere = { column: headers[i] ?? '', value };
      return;
    }
  }
}

/**
 * The columns other than `hostColumn` that could hold the host (see candidates), for markElsewhere. The user's
 * own only: `headers` come with our columns of an earlier run cut off (own-columns.ts cutOurs), and `hostColumn`
 * is -1, giving none, when the host is read from our column.
 */
export function otherHostColumns(headers: readonly string[] | null, hostColumn: number): number[] {
  return headers === null || hostColumn < 0 ? [] : candidates(headers).filter((i) => i !== hostColumn);
}

/** Indexes of the headers that could hold the host, best ranked first (in file order within a rank). */
function candidates(headers: readonly string[]): number[] {
  return headers.flatMap((h, i) => (rank(h) === -1 ? [] : [i])).sort((a, b) => rank(headers[a]!) - rank(headers[b]!) || a - b);
}

/**
 * What the run says when it took the host column by rank over other candidates (no --column given):
 * `crm.csv: the host is read from "Website" (column 2), not "Email" (column 3); --column chooses another`. Null
 * when there was no choice to make.
 */
export function columnChoice(headers: readonly string[] | null, hostColumn: number, file: string): string | null {
  if (headers === null) return null;
  const others = candidates(headers).filter((i) => i !== hostColumn);
  if (others.length === 0 || rank(headers[hostColumn] ?? '') === -1) return null;
  const named = (i: number) => `${showValue(headers[i]!)} (column ${i + 1})`;
  return `${file}: the host is read from ${named(hostColumn)}, not ${others.map(named).join(' or ')}; --column chooses another`;
}
