// The library's entry: rows in (from an enriched file or from the cache), one Summary out. Never prints,
// never exits; the CLI (cli/commands/summarize.ts) draws the result.
import type { CatalogCategory } from '../api/types.js';
import { createAggregator } from './aggregate.js';
import type { SummaryRow } from './row.js';
import type { Summary } from './types.js';

export interface SummarizeOptions {
  /** The input's name and format, as the summary states them. */
  input: Omit<Summary['input'], 'rows'>;
  /** The catalog (cached), for the categories section; without one it is empty. */
  catalog?: CatalogCategory[] | null;
  /** When the summary was made (default now). */
  now?: Date;
  /** Stops reading: the summary is of the rows read so far. */
  signal?: AbortSignal;
}

/** Summarises `rows` (chunks of them, as the readers give). */
export async function summarize(rows: AsyncIterable<SummaryRow[]>, options: SummarizeOptions): Promise<Summary> {
  const aggregator = createAggregator({ categories: options.catalog ? categoryOf(options.catalog) : null });
  try {
    for await (const chunk of rows) {
      aggregator.add(chunk);
      if (options.signal?.aborted) break;
    }
  } catch (err) {
    // The seen-sets are closed (a temporary database past 2,000,000 hosts) before the failure goes up.
    aggregator.finish(options.input, new Date());
    throw err;
  }
  return aggregator.finish(options.input, options.now ?? new Date());
}

/** Technology name to its category's slug. */
function categoryOf(catalog: CatalogCategory[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const c of catalog) for (const t of c.technologies ?? []) map.set(String(t.tech), c.category);
  return map;
}
