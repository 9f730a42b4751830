// The last quota seen: kept in the cache file's meta table, beside the answers but apart from them.
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openCache } from '../../src/store/cache.js';
import { CacheCorruptError } from '../../src/store/errors.js';
import { readLastQuota, recordLastQuota } from '../../src/store/quota-memo.js';
import { clockedCache, DAY, NOT_A_DATABASE, profile, putOne } from './cache-helpers.js';
import { mode, tempDir } from './helpers.js';

describe('the last quota seen', () => {
  const quota = { limit: 2000, remaining: 5, reset: new Date('2026-12-01T00:00:00Z'), resetRaw: '2026-12-01', seenAt: 7 };

  it('is recorded beside the answers and read back, the newest replacing the last', async () => {
    const dir = tempDir();
    expect(await readLastQuota({ dir })).toBeNull();
    expect(fs.existsSync(path.join(dir, 'cache.sqlite'))).toBe(false); // reading never creates the file
    await recordLastQuota({ dir }, quota);
    expect(await readLastQuota({ dir })).toEqual({ limit: 2000, remaining: 5, reset: '2026-12-01T00:00:00.000Z', resetRaw: '2026-12-01', seenAt: 7 });
    await recordLastQuota({ dir }, { ...quota, remaining: 4, reset: null, resetRaw: 'soon', seenAt: 8 });
    expect(await readLastQuota({ dir })).toEqual({ limit: 2000, remaining: 4, reset: null, resetRaw: 'soon', seenAt: 8 });
    expect(mode(path.join(dir, 'cache.sqlite'))).toBe(process.platform === 'win32' ? mode(path.join(dir, 'cache.sqlite')) : 0o600);
  });

  it('works while the cache is open elsewhere, and clearing answers keeps it', async () => {
    const { cache, dir } = await clockedCache();
    putOne(cache, 'domain', 'example.com', 'found', profile('example.com'));
    await recordLastQuota({ dir }, quota);
    expect(cache.clear()).toBe(1);
    expect((await readLastQuota({ dir }))?.remaining).toBe(5);
    cache.close();
  });

  it('upgrades a version 1 cache, keeping its answers', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cache.sqlite');
    const old = new Sqlite(file);
    old.exec(`CREATE TABLE answers (endpoint TEXT NOT NULL, host TEXT NOT NULL, status TEXT NOT NULL, body TEXT,
      fetched_at INTEGER NOT NULL, PRIMARY KEY (endpoint, host)) WITHOUT ROWID; PRAGMA user_version = 1;`);
    old.prepare('INSERT INTO answers VALUES (?, ?, ?, ?, ?)').run('domain', 'old.example', 'missing', null, Date.now());
    old.close();
    await recordLastQuota({ dir }, quota);
    expect((await readLastQuota({ dir }))?.limit).toBe(2000);
    const cache = await openCache({ dir });
    expect(cache.get('domain', 'old.example', DAY)?.status).toBe('missing');
    cache.close();
  });

  it('reads a memo that does not parse as none, and a damaged file as the cache error', async () => {
    const dir = tempDir();
    await recordLastQuota({ dir }, quota);
    const db = new Sqlite(path.join(dir, 'cache.sqlite'));
    db.prepare('UPDATE meta SET value = \'{"limit": "lots"}\'').run();
    db.close();
    expect(await readLastQuota({ dir })).toBeNull();

    const bad = tempDir();
    fs.writeFileSync(path.join(bad, 'cache.sqlite'), NOT_A_DATABASE);
    await expect(readLastQuota({ dir: bad })).rejects.toBeInstanceOf(CacheCorruptError);
    await expect(recordLastQuota({ dir: bad }, quota)).rejects.toBeInstanceOf(CacheCorruptError);
  });
});
