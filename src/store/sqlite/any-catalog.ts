// The catalog cached for any service, for `summarize` (issue 29): it spends nothing, so it fetches no catalog,
// and the file it reads was enriched from whichever service was in force then (the sandbox, staging, the real
// one) while the base URL in force now may be another's, or the default, whose cache holds no catalog. A
// catalog only names categories of technologies; any service's is better than none, and the newest is kept.
// Read-only: nothing is claimed, merged or written; a file that cannot be read is passed over.
import fs from 'node:fs';
import path from 'node:path';

export interface FoundCatalog {
  body: unknown[];
  fetchedAt: number;
  /** The base URL the cache file belongs to (null for a file no service claimed). */
  service: string | null;
}

// The default cache file and the files of other services (cache.ts serviceCacheFile).
const CACHE_NAME = /^cache(-[0-9a-f]{12})?\.sqlite$/;

/** The newest catalog any cache file in `dir` holds (its unmerged answers too), or null. */
export async function anyCachedCatalog(dir: string): Promise<FoundCatalog | null> {
  const files = (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((name) => CACHE_NAME.test(name));
  if (files.length === 0) return null;
  const { openSqliteFile } = await import('./driver.js');
  let best: FoundCatalog | null = null;
  for (const name of files) {
    let db: import('better-sqlite3').Database | undefined;
    try {
      db = openSqliteFile(path.join(dir, name), { readonly: true, fileMustExist: true });
      const service = (db.prepare("SELECT value FROM meta WHERE key = 'service'").get() as { value: string } | undefined)?.value ?? null;
      for (const table of ['answers', 'recent']) {
        const rows = db.prepare(`SELECT body, fetched_at AS fetchedAt FROM ${table} WHERE endpoint = 'catalog' AND host = '' AND status = 'found'`).all() as {
          body: string | null;
          fetchedAt: number;
        }[];
        for (const row of rows) {
          const body: unknown = row.body === null ? null : JSON.parse(row.body);
          if (Array.isArray(body) && (best === null || row.fetchedAt > best.fetchedAt)) best = { body, fetchedAt: row.fetchedAt, service };
        }
      }
    } catch {
      // Damaged, locked, or of a build without `recent`: this file offers no catalog (what it held is kept).
    } finally {
      db?.close();
    }
  }
  return best;
}
