// The account state file: per base URL and key fingerprint (never the key), the quota memo and the learned
// rate, shared by every process using the cache directory, and apart from the answers.
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { CacheUnavailableError } from '../../src/store/errors.js';
import { keyFingerprint } from '../../src/store/account.js';
import { openAccountState, stateFile, stateReads } from '../../src/store/sqlite/state.js';
import { NOT_A_DATABASE } from './cache-helpers.js';
import { fakeKey, mode, tempDir } from './helpers.js';

const A = 'https://api.example/api/v1';
const B = 'http://127.0.0.1:8080/api/v1';
const KEY = fakeKey('aaaa');
const OTHER = fakeKey('bbbb');
const RESET = new Date('2026-12-01T00:00:00Z');
const q = (remaining: number | null, seenAt: number, over: { limit?: number; reset?: Date } = {}) => ({
  limit: over.limit ?? 50_000,
  remaining,
  reset: over.reset ?? RESET,
  resetRaw: (over.reset ?? RESET).toISOString(),
  seenAt,
});
const posix = process.platform !== 'win32';
const listQuotaMemos = (where: { dir: string }) => stateReads(where).quotaMemos();
const readLearnedRate = (where: { dir: string }, baseUrl: string, key: string) => stateReads(where).learnedRate(baseUrl, key);

/** Every byte SQLite keeps for the file, journal included. */
const bytes = (file: string): string =>
  [file, `${file}-wal`, `${file}-shm`]
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('');

describe('the account state file', () => {
  it('is state.sqlite in the cache directory, 0600 in a 0700 directory; reading creates nothing', async () => {
    const dir = path.join(tempDir(), 'cache');
    expect(await listQuotaMemos({ dir })).toEqual([]);
    expect(await readLearnedRate({ dir }, A, KEY)).toBeNull();
    expect(fs.existsSync(dir)).toBe(false);
    const state = await openAccountState({ dir }, A, KEY);
    expect(stateFile({ dir })).toBe(path.join(dir, 'state.sqlite'));
    if (posix) {
      expect(mode(dir)).toBe(0o700);
      expect(mode(stateFile({ dir }))).toBe(0o600);
    }
    expect(state.account).toBe(`${A} ${keyFingerprint(KEY)}`);
    expect(await state.quota()).toBeNull();
    await state.close();
  });

  it('keeps the lowest remaining of the current period; a pack or a rollover starts a new one', async () => {
    const dir = tempDir();
    const state = await openAccountState({ dir }, A, KEY);
    await state.noteQuota(q(30_000, 1));
    await state.noteQuota(q(31_500, 2)); // out of order: the higher figure arrived last
    expect(await state.quota()).toMatchObject({
      baseUrl: A,
      keyFingerprint: keyFingerprint(KEY),
      limit: 50_000,
      remaining: 30_000,
      reset: RESET.toISOString(),
      seenAt: 2,
    });
    await state.noteQuota(q(24_900, 3, { limit: 75_000 })); // a pack
    expect(await state.quota()).toMatchObject({ limit: 75_000, remaining: 24_900 });
    await state.noteQuota(q(0, 4)); // a straggler from before the pack
    expect((await state.quota())?.remaining).toBe(24_900);
    const next = new Date('2027-01-01T00:00:00Z');
    await state.noteQuota(q(50_000, 5, { reset: next })); // the month rolled over
    expect(await state.quota()).toMatchObject({ limit: 50_000, remaining: 50_000, reset: next.toISOString() });
    // A 402 that carried no headers: nothing is left in that period.
    await state.noteExhausted(6);
    expect(await state.quota()).toMatchObject({ limit: 50_000, remaining: 0, reset: next.toISOString(), seenAt: 6 });
    await state.close();
  });

  it('is shared: two handles (two processes) of one account keep the lowest either saw', async () => {
    const dir = tempDir();
    const one = await openAccountState({ dir }, A, KEY);
    const two = await openAccountState({ dir }, A, KEY);
    await one.noteQuota(q(100, 1));
    await two.noteQuota(q(200, 2));
    expect((await one.quota())?.remaining).toBe(100);
    expect((await two.quota())?.remaining).toBe(100);
    await one.close();
    await two.close();
  });

  it('keeps accounts apart by base URL and by key, and lists every one', async () => {
    const dir = tempDir();
    const a = await openAccountState({ dir }, A, KEY);
    const b = await openAccountState({ dir }, B, KEY);
    const c = await openAccountState({ dir }, A, OTHER);
    await a.noteQuota(q(0, 1));
    await b.noteQuota(q(700, 2));
    await c.noteQuota(q(900, 3));
    expect([(await a.quota())?.remaining, (await b.quota())?.remaining, (await c.quota())?.remaining]).toEqual([0, 700, 900]);
    expect(new Set([a.account, b.account, c.account]).size).toBe(3);
    await a.saveLearnedRate({ requests: 40, windowMs: 2000 });
    expect(await a.learnedRate()).toEqual({ requests: 40, windowMs: 2000 });
    expect(await b.learnedRate()).toBeNull();
    expect(await c.learnedRate()).toBeNull();
    await a.saveLearnedRate({ requests: 55, windowMs: 60_000 }); // learning may raise it, and names its window
    expect(await readLearnedRate({ dir }, A, KEY)).toEqual({ requests: 55, windowMs: 60_000 });
    expect(await readLearnedRate({ dir }, A, OTHER)).toBeNull();
    const listed = await listQuotaMemos({ dir });
    expect(listed.map((m) => [m.baseUrl, m.keyFingerprint, m.remaining])).toEqual([
      [A, keyFingerprint(OTHER), 900],
      [B, keyFingerprint(KEY), 700],
      [A, keyFingerprint(KEY), 0],
    ]);
    for (const s of [a, b, c]) await s.close();
  });

  it('never stores the key, only a short stable fingerprint of it', async () => {
    const dir = tempDir();
    const state = await openAccountState({ dir }, A, KEY);
    await state.noteQuota(q(5, 1));
    await state.saveLearnedRate({ requests: 10, windowMs: 1000 });
    const secret = KEY.slice(KEY.lastIndexOf('_') + 1);
    expect(bytes(stateFile({ dir }))).not.toContain(secret);
    await state.close();
    expect(bytes(stateFile({ dir }))).not.toContain(secret);
    expect(keyFingerprint(KEY)).toMatch(/^k:[0-9a-f]{12}$/);
    expect(keyFingerprint(KEY)).toBe(keyFingerprint(KEY));
    expect(keyFingerprint(KEY)).not.toBe(keyFingerprint(OTHER));
  });

  it('lives apart from the answers: clearing the cache keeps it, and an old global memo there is ignored', async () => {
    const dir = tempDir();
    const cache = await openCache({ dir });
    const db = new Sqlite(path.join(dir, 'cache.sqlite'));
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(
      'lastQuota',
      JSON.stringify({ limit: 2000, remaining: 0, reset: null, resetRaw: null, seenAt: 1 }),
    );
    db.close();
    expect(await listQuotaMemos({ dir })).toEqual([]);
    const state = await openAccountState({ dir }, A, KEY);
    expect(await state.quota()).toBeNull();
    await state.noteQuota(q(5, 1));
    await cache.clear();
    await cache.close();
    expect((await state.quota())?.remaining).toBe(5);
    await state.close();
  });

  it("an older build's file gains the unconfirmed rates in place: its confirmed rate read as before, nothing else changed", async () => {
    const dir = tempDir();
    await (await openAccountState({ dir }, A, KEY)).close();
    // The state file as an older build wrote it: the same version, without learned_bound.
    const old = new Sqlite(stateFile({ dir }));
    old.exec('DROP TABLE learned_bound');
    old.close();
    const other = await openAccountState({ dir }, A, OTHER);
    await other.saveLearnedRate({ requests: 2, windowMs: 850, unconfirmed: true });
    expect(await readLearnedRate({ dir }, A, OTHER)).toEqual({ requests: 2, windowMs: 850, unconfirmed: true });
    await other.close();
    const db = new Sqlite(stateFile({ dir }));
    // The older build's own write, by position, still fits its table; and the version is the one it knows.
    db.prepare('INSERT OR REPLACE INTO learned_rate VALUES (?, ?, ?, ?)').run(`${A} ${keyFingerprint(KEY)}`, 40, 2000, 1);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
    expect(await readLearnedRate({ dir }, A, KEY)).toEqual({ requests: 40, windowMs: 2000 });
  });

  it('a damaged or newer file is the cache error (exit 9) naming the state file, not a crash', async () => {
    const dir = tempDir();
    fs.writeFileSync(stateFile({ dir }), NOT_A_DATABASE);
    const err = await openAccountState({ dir }, A, KEY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheUnavailableError);
    expect((err as Error).message).toContain(stateFile({ dir }));
    expect((err as Error).message).toMatch(/damaged.*delete it/);
    expect(exitCodeFor(err)).toBe(EXIT.CACHE);
    await expect(listQuotaMemos({ dir })).rejects.toBeInstanceOf(CacheUnavailableError);

    const newer = tempDir();
    const db = new Sqlite(stateFile({ dir: newer }));
    db.pragma('user_version = 9');
    db.close();
    await expect(openAccountState({ dir: newer }, A, KEY)).rejects.toMatchObject({ code: 'cache_version', path: stateFile({ dir: newer }) });
  });
});
