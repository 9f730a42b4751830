// The cache file: its modes, the schema an older file is brought up to, and the errors of a file that
// cannot be used (damaged, in the way, newer).
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { CacheCorruptError, CacheUnavailableError } from '../../src/store/errors.js';
import { removeCacheFiles } from '../../src/store/sqlite/schema.js';
import { openAccountState } from '../../src/store/sqlite/state.js';
import { DAY, get, NOT_A_DATABASE } from './cache-helpers.js';
import { mode, tempDir } from './helpers.js';

const tables = (file: string): string[] => {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  } finally {
    db.close();
  }
};
const userVersion = (file: string): number => {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('the cache file', () => {
  it.runIf(process.platform !== 'win32')('creates its directory 0700 and its file 0600', async () => {
    const dir = path.join(tempDir(), 'a', 'cache');
    const cache = await openCache({ dir, file: 'x.sqlite' });
    expect(mode(dir)).toBe(0o700);
    expect((await cache.stats()).path).toBe(path.join(dir, 'x.sqlite'));
    expect(mode((await cache.stats()).path)).toBe(0o600);
    await cache.close();
  });

  it('refuses a damaged file with a clear error, and removeCacheFiles clears the way', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cache.sqlite');
    fs.writeFileSync(file, NOT_A_DATABASE);
    const err = await openCache({ dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheCorruptError);
    expect(err).not.toBeInstanceOf(UsageError); // the command was right, the file is not
    expect(err).toMatchObject({ code: 'cache_corrupt', path: file });
    expect(exitCodeFor(err)).toBe(EXIT.CACHE);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('domain-intel cache clear');
    expect(removeCacheFiles({ dir })).toEqual([file]);
    const cache = await openCache({ dir });
    expect((await cache.stats()).entries).toBe(0);
    await cache.close();
  });

  // Version 1 held answers only; version 2 added meta; the journal (`recent`) came later without a new version.
  const older = {
    'version 1': `CREATE TABLE answers (endpoint TEXT NOT NULL, host TEXT NOT NULL, status TEXT NOT NULL, body TEXT,
      fetched_at INTEGER NOT NULL, PRIMARY KEY (endpoint, host)) WITHOUT ROWID; PRAGMA user_version = 1;`,
    'version 2 before the journal': `CREATE TABLE answers (endpoint TEXT NOT NULL, host TEXT NOT NULL, status TEXT NOT NULL
      CHECK (status IN ('found', 'missing')), body TEXT, fetched_at INTEGER NOT NULL, PRIMARY KEY (endpoint, host)) WITHOUT ROWID;
      CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID; PRAGMA user_version = 2;`,
  };
  for (const [name, ddl] of Object.entries(older)) {
    it(`opens a file written by ${name}: it gains the new tables and keeps its answers`, async () => {
      const dir = tempDir();
      const file = path.join(dir, 'cache.sqlite');
      const old = new Sqlite(file);
      old.exec(ddl);
      old.prepare('INSERT INTO answers VALUES (?, ?, ?, ?, ?)').run('domain', 'old.example', 'found', '{"domain":"old.example"}', Date.now());
      old.close();
      const cache = await openCache({ dir });
      expect(await get(cache, 'domain', 'old.example', DAY)).toMatchObject({ status: 'found', body: { domain: 'old.example' } });
      // A batch goes through the journal, which needs the new table.
      await cache.putMany(['a.example', 'b.example'].map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
      expect((await cache.getMany('domain', ['a.example', 'b.example', 'old.example'], DAY)).size).toBe(3);
      await cache.close();
      expect(tables(file)).toEqual(['answers', 'claims', 'history', 'meta', 'recent']);
      expect(userVersion(file)).toBe(2);
    });
  }

  it('refuses a file written by a newer build, leaving it as it was', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cache.sqlite');
    const newer = new Sqlite(file);
    newer.exec('CREATE TABLE future (x); PRAGMA user_version = 3;');
    newer.close();
    const err = await openCache({ dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheUnavailableError);
    expect(err).toMatchObject({ code: 'cache_version', path: file });
    expect((err as Error).message).toContain('newer domain-intel');
    expect(exitCodeFor(err)).toBe(EXIT.CACHE);
    expect(userVersion(file)).toBe(3);
    expect(tables(file)).toEqual(['future']);
  });

  it('cannot create its file where a regular file stands in the way of its directory', async () => {
    // ENOTDIR holds for root too, unlike permissions.
    const blocker = path.join(tempDir(), 'not-a-dir');
    fs.writeFileSync(blocker, '');
    const dir = path.join(blocker, 'sub');
    const err = await openCache({ dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheUnavailableError);
    expect(err).not.toBeInstanceOf(UsageError);
    expect(err).toMatchObject({ code: 'cache_unavailable', path: path.join(dir, 'cache.sqlite') });
    expect((err as Error).message).toContain(`cannot create the cache file ${path.join(dir, 'cache.sqlite')}`);
    expect((err as Error).message).toContain('--no-cache');
    expect((err as Error).message).toContain('DOMAIN_INTEL_CACHE_DIR');
    expect(exitCodeFor(err)).toBe(EXIT.CACHE);
    // The account state file beside it fails the same way (exit 9), naming its own file.
    await expect(openAccountState({ dir }, 'http://127.0.0.1:1/api/v1', 'di_live_x')).rejects.toBeInstanceOf(CacheUnavailableError);
  });

  // Root ignores permission bits, and Windows has none of these: the test above covers both.
  it.runIf(process.platform !== 'win32' && process.getuid?.() !== 0)('cannot create its file in a directory it may not write', async () => {
    const dir = path.join(tempDir(), 'locked');
    fs.mkdirSync(dir, { mode: 0o500 });
    try {
      const err = await openCache({ dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CacheUnavailableError);
      expect((err as Error).message).toMatch(/EACCES/);
      expect(exitCodeFor(err)).toBe(EXIT.CACHE);
    } finally {
      fs.chmodSync(dir, 0o700); // so the temp dir can be removed
    }
  });
});

describe('a file busy at open', () => {
  it('is tried again while another connection holds it, not reported unusable at the first "busy"', async () => {
    const dir = tempDir();
    (await openCache({ dir })).close();
    // Another connection holds the write lock; opening needs it (the schema check writes). SQLite's own
    // timeout blocks this thread, so the holder lets go from a timer that runs while the opener waits again.
    const holder = new Sqlite(path.join(dir, 'cache.sqlite'));
    holder.exec('BEGIN IMMEDIATE');
    setTimeout(() => holder.exec('COMMIT'), 50);
    // SQLite's wait shortened from 5 s: the opener is still refused "busy" at first (the holder's timer cannot
    // run while SQLite waits), and succeeds on a later try.
    const cache = await openCache({ dir, busyTimeoutMs: 200 });
    await cache.putMany([{ endpoint: 'domain', host: 'a.example', status: 'missing', body: null }]);
    expect((await get(cache, 'domain', 'a.example', DAY))?.status).toBe('missing');
    await cache.close();
    holder.close();
  }, 20_000);
});
