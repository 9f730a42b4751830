// The cache file itself: where it lives, how it is opened (0600 in a 0700 directory, WAL), its tables, and
// bringing a file written by an older build up to date.
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLAIMS_SCHEMA } from './claims.js';
import { HISTORY_SCHEMA } from './history.js';
import { CacheUnavailableError, checkedForDamage, sqliteCode, storageTrouble } from '../errors.js';
import { makeDirs } from '../../config/paths.js';
import { openSqliteFile } from './driver.js';

/** Where a cache file lives: its directory, and a file name other than the default (tests). */
export interface CacheLocation {
  dir: string;
  file?: string;
  /** How long a statement waits for another connection's write lock (default 5 s; a test of the wait gives less). */
  busyTimeoutMs?: number;
  /** A file only this process opens and no one keeps (--no-cache's throwaway cache): see openOnce. */
  throwaway?: boolean;
}

const CACHE_FILE = 'cache.sqlite';
// 1: answers. 2: + meta. Tables are created when absent, so an older file simply gains those it lacks.
// `recent` needs no new version: a build that does not know it ignores it, and so only misses the answers a
// killed run left there, which it buys again. Nor does `history` (issue 17): its trigger lives in the file, so
// an older build's journal merges keep history too (only its lone answers, written with INSERT OR REPLACE,
// skip it). A new version would make every older build refuse the file ("written by a newer domain-intel"),
// locking a user who goes back a version out of their cache, for nothing the file needs.
export const SCHEMA_VERSION = 2;

/** The full path of the cache file. */
const cacheFile = (where: CacheLocation): string => path.join(where.dir, where.file ?? CACHE_FILE);

/** The cache file and the journal files SQLite keeps beside it. */
export const cacheFiles = (file: string): string[] => [file, `${file}-wal`, `${file}-shm`];

/** Opens the cache file (creating it 0600 in a 0700 directory) with its schema in place. */
export function openDatabase(where: CacheLocation): Promise<{ db: Database.Database; file: string }> {
  return openSqlite(where.dir, cacheFile(where), prepareSchema, 'cache file', where.busyTimeoutMs, where.throwaway);
}

/**
 * Opens the SQLite file `file` in `dir` (creating it 0600 in a 0700 directory) for a run that shares it with
 * other processes, then lets `prepare` put its tables in place. `what` names the file in messages. Shared by
 * the cache and the account state file (state.ts).
 */
export async function openSqlite(
  dir: string,
  file: string,
  prepare: (db: Database.Database, file: string) => void,
  what: string,
  busyTimeoutMs = BUSY_TIMEOUT_MS,
  throwaway = false,
): Promise<{ db: Database.Database; file: string }> {
  try {
    makeDirs(dir, 0o700);
    // Created 0600 before SQLite sees it; SQLite gives its -wal and -shm files the same mode.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  } catch (err) {
    const verb = fs.existsSync(file) ? 'cannot open' : 'cannot create';
    const start = unusableDir(dir, err, verb) ?? verb;
    throw new CacheUnavailableError(file, `${start} the ${what} ${file}: ${(err as Error).message}`, { cause: err });
  }
  // Two runs that start together on a new directory both set up the same new file: SQLite may answer one of
  // them "busy" at once rather than through the busy timeout (switching a new file to WAL). It is let try
  // again for a few seconds before it counts as unusable.
  const until = Date.now() + OPEN_PATIENCE_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await openOnce(file, prepare, what, busyTimeoutMs, throwaway);
    } catch (err) {
      const busy = /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode((err as { cause?: unknown }).cause));
      // At least once more: a first try that waited out SQLite's own timeout has used the patience already.
      if (!busy || (attempt > 1 && Date.now() >= until)) throw err;
      await sleep(Math.min(500, 50 * attempt));
    }
  }
}

/**
 * The opening words of the message when the directory itself is the trouble ("the cache directory D is
 * read-only: cannot create"), so the way out (--no-cache, DOMAIN_INTEL_CACHE_DIR) reads as the answer to it.
 * `verb` is what could not be done to the file ('cannot create', 'cannot open').
 */
function unusableDir(dir: string, err: unknown, verb: string): string | null {
  const trouble = storageTrouble(err);
  if (trouble === 'read-only') return `the cache directory ${dir} is read-only: ${verb}`;
  if (trouble === 'permission denied') return `the cache directory ${dir} is not writable (permission denied): ${verb}`;
  if (trouble === 'disk full' || trouble === 'disk quota exceeded') return `the cache directory ${dir} has no space left (${trouble}): ${verb}`;
  return null;
}

/** Why SQLite could not open a file in `dir` when the directory is the trouble (it needs to create -wal and -shm there). */
function dirNotWritable(dir: string, verb: string): string | null {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return null;
  } catch (err) {
    return unusableDir(dir, err, verb);
  }
}

/** How long a busy file is tried again at open (a file held busy past its own 5-s timeout is not retried). */
const OPEN_PATIENCE_MS = 5000;
/** Page cache per connection, in KiB when negative (SQLite's default, which better-sqlite3's build raises to 16 MB). */
const PAGE_CACHE_KIB = -2000;
/** SQLite's own wait for another connection's write lock. */
const BUSY_TIMEOUT_MS = 5000;

async function openOnce(
  file: string,
  prepare: (db: Database.Database, file: string) => void,
  what: string,
  busyTimeoutMs: number,
  throwaway: boolean,
): Promise<{ db: Database.Database; file: string }> {
  let db: Database.Database | undefined;
  try {
    return checkedForDamage(file, () => {
      // Native module, needed only by commands that touch the cache: loaded on first use (driver.ts).
      db = openSqliteFile(file);
      // A second process (a parallel run) waits for the write lock instead of failing at once.
      db.pragma(`busy_timeout = ${Math.max(0, Math.round(busyTimeoutMs))}`);
      // WAL + synchronous=NORMAL: a commit is in the -wal file (so in the OS) before it returns, so it survives
      // the process being killed; only an OS crash or power cut can lose the last commits, never corrupting the
      // file. FULL would fsync every batch for little more.
      // A throwaway file (--no-cache) is read and written by this process alone and deleted when it closes,
      // and a run killed meanwhile kept nothing by design: it needs neither the log that lets other processes
      // read while it writes, nor a commit that outlives the process. Its journal in memory and no syncs: a
      // fresh 1,000,000-row --no-cache run 16.1-16.2 s against 19.2-21.1 s.
      db.pragma(throwaway ? 'journal_mode = MEMORY' : 'journal_mode = WAL');
      db.pragma(throwaway ? 'synchronous = OFF' : 'synchronous = NORMAL');
      // SQLite's own default page cache (2 MB), not better-sqlite3's 16 MB: a fresh 1,000,000-row run filled it
      // with pages of `answers` its merges touched, for a peak RSS 15-20 MB higher and no measurable speed (the
      // pages are in the OS's cache anyway): 147-153 MB against 167-169 MB, the warm re-run 116-119 MB against
      // 131-133 MB, both at the same wall time (BENCHMARKS.md).
      db.pragma(`cache_size = ${PAGE_CACHE_KIB}`);
      prepare(db, file);
      return { db, file };
    });
  } catch (err) {
    db?.close();
    // The file exists but SQLite cannot use it here (read-only, locked past the busy timeout, disk full).
    if (sqliteCode(err) !== '') {
      // A full disk is the directory's trouble too; a read-only file in a writable directory is the file's.
      const dir = path.dirname(file);
      const verb = 'cannot open';
      const start = dirNotWritable(dir, verb) ?? (/^(disk|quota)/.test(storageTrouble(err) ?? '') ? unusableDir(dir, err, verb) : null) ?? verb;
      throw new CacheUnavailableError(file, `${start} the ${what} ${file}: ${(err as Error).message}`, { cause: err });
    }
    throw err;
  }
}

function prepareSchema(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new CacheUnavailableError(file, `the cache file ${file} was written by a newer domain-intel; upgrade to use it`, { code: 'cache_version' });
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS answers (
      endpoint   TEXT    NOT NULL,
      host       TEXT    NOT NULL,
      status     TEXT    NOT NULL CHECK (status IN ('found', 'missing')),
      body       TEXT,
      fetched_at INTEGER NOT NULL,
      prev_fetched_at INTEGER,
      PRIMARY KEY (endpoint, host)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS meta (
      key   TEXT NOT NULL PRIMARY KEY,
      value TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS recent (
      endpoint   TEXT    NOT NULL,
      host       TEXT    NOT NULL,
      status     TEXT    NOT NULL,
      body       TEXT,
      fetched_at INTEGER NOT NULL
    );
    ${CLAIMS_SCHEMA}
    ${HISTORY_SCHEMA}
    PRAGMA user_version = ${SCHEMA_VERSION};
  `);
  // When each host was fetched before its current answer (batch --changes tells `new` from `same` by it).
  // Added to a file of an older build in place, with no new version: an older build reads and writes the
  // file as before (its statements name their columns); a lone answer it replaces leaves the column empty,
  // which reads as a host never fetched before (`new`), the one thing it costs.
  const columns = db.pragma('table_info(answers)') as { name: string }[];
  if (!columns.some((c) => c.name === 'prev_fetched_at')) db.exec('ALTER TABLE answers ADD COLUMN prev_fetched_at INTEGER');
}

/** Deletes the cache file and its journal files without opening them: the way out of a damaged cache. */
export function removeCacheFiles(where: CacheLocation): string[] {
  const removed: string[] = [];
  for (const f of cacheFiles(cacheFile(where))) {
    try {
      fs.unlinkSync(f);
      removed.push(f);
    } catch (err) {
      // Journal files exist only while SQLite needs them; one that is absent needs no removing.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}
