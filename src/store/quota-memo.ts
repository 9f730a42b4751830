// The quota the service last reported, kept so `domain-intel quota` and a batch's "enough quota left?" check
// can show it without spending a lookup. Every metered call reports one, so it lives in the cache file's meta
// table rather than the settings file: one small SQLite write instead of rewriting the user's settings (and
// loading conf) on every lookup. Each call opens its own connection and closes it at once, so it works under
// --no-cache too and whatever the order in which a command closes its other resources.
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import type { QuotaInfo } from '../api/types.js';
import { checkedForDamage } from './errors.js';
import { type CacheLocation, cacheFile, openDatabase } from './schema.js';

/** Quota as last reported by the service. */
export interface LastQuota {
  limit: number | null;
  remaining: number | null;
  /** ISO instant, when the reset header could be parsed. */
  reset: string | null;
  /** The reset header exactly as received. */
  resetRaw: string | null;
  /** Epoch ms when it was observed. */
  seenAt: number;
}

const LAST_QUOTA = 'lastQuota';

/** Remembers the quota the service last reported, in the cache file at `where`. */
export async function recordLastQuota(where: CacheLocation, quota: QuotaInfo): Promise<void> {
  await withDatabase(where, (db) => {
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(LAST_QUOTA, JSON.stringify(toLastQuota(quota)));
  });
}

/** The quota last recorded by recordLastQuota; null when there is none (no cache file is created to say so). */
export async function readLastQuota(where: CacheLocation): Promise<LastQuota | null> {
  if (!fs.existsSync(cacheFile(where))) return null;
  return withDatabase(where, (db) => {
    const row = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(LAST_QUOTA);
    return row ? checkLastQuota(row.value) : null;
  });
}

function toLastQuota(q: QuotaInfo): LastQuota {
  const reset = q.reset !== null && !Number.isNaN(q.reset.getTime()) ? q.reset.toISOString() : null;
  return { limit: q.limit, remaining: q.remaining, reset, resetRaw: q.resetRaw, seenAt: q.seenAt };
}

const isCount = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0);
const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';

// A stored memo that does not read back as one is no memo: the next metered call replaces it.
function checkLastQuota(text: string): LastQuota | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    if (err instanceof SyntaxError) return null; // not even JSON: no memo either
    throw err;
  }
  if (typeof v !== 'object' || v === null) return null;
  const q = v as Record<string, unknown>;
  if (!isCount(q.limit) || !isCount(q.remaining) || !isStringOrNull(q.reset) || !isStringOrNull(q.resetRaw)) return null;
  if (typeof q.seenAt !== 'number' || !Number.isFinite(q.seenAt)) return null;
  return { limit: q.limit, remaining: q.remaining, reset: q.reset, resetRaw: q.resetRaw, seenAt: q.seenAt };
}

async function withDatabase<T>(where: CacheLocation, fn: (db: Database.Database) => T): Promise<T> {
  const { db, file } = await openDatabase(where);
  try {
    return checkedForDamage(file, () => fn(db));
  } finally {
    db.close();
  }
}
