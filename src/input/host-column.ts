// Which column holds the host: the one named by --column (a header, case-insensitively, or a 1-based index), or
// the one header among HOST_HEADERS. Anything else is a usage error listing the headers.
import { UsageError } from '../api/errors.js';
import { showValue } from '../domain/safe-text.js';

/** Header names that identify the host column, matched case-insensitively after trimming. */
export const HOST_HEADERS = ['domain', 'host', 'hostname', 'website', 'url', 'site', 'email'] as const;

/** Header cells named in a message about the host column. */
const LISTED = 12;

/** Index of the host column: from --column, else the one header among HOST_HEADERS. */
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
  const known = headers.flatMap((h, i) => ((HOST_HEADERS as readonly string[]).includes(key(h)) ? [i] : []));
  if (known.length === 1) return known[0]!;
  if (known.length > 1) {
    const which = known.map((i) => `${showValue(headers[i]!)} (${i + 1})`).join(', ');
    throw new UsageError(`${file}: more than one column could hold the host: ${which}; ${choose}; ${listed}`);
  }
  throw new UsageError(`${file}: no host column found (looked for ${HOST_HEADERS.join(', ')}); ${choose}; ${listed}`);
}
