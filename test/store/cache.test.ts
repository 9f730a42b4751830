import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import { CacheCorruptError, MERGE_EVERY, openCache, readLastQuota, recordLastQuota, removeCacheFiles, type AnswerCache } from '../../src/store/cache.js';
import { mode, tempDir } from './helpers.js';

const DAY = 86_400_000;
const profile = (domain: string) => ({ domain, resolves: true, technologies: ['Nginx'], traffic: null, employees: null });

/** A cache whose clock the test moves by hand. */
async function clockedCache(dir = tempDir()): Promise<{ cache: AnswerCache; clock: { now: number }; dir: string }> {
  const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
  const cache = await openCache({ dir, clock: () => clock.now });
  return { cache, clock, dir };
}

describe('openCache', () => {
  it('stores and reads answers, found and missing, honouring max age', async () => {
    const { cache, clock } = await clockedCache();
    cache.put('domain', 'example.com', 'found', profile('example.com'));
    cache.put('domain', 'gone.example', 'missing', null);
    const t0 = clock.now;
    expect(cache.get('domain', 'example.com', DAY)).toEqual({ status: 'found', body: profile('example.com'), fetchedAt: t0 });
    expect(cache.get('domain', 'gone.example', DAY)).toEqual({ status: 'missing', body: null, fetchedAt: t0 });
    expect(cache.get('traffic', 'example.com', DAY)).toBeNull(); // endpoints are separate
    expect(cache.get('domain', 'other.example', DAY)).toBeNull();
    clock.now += DAY;
    expect(cache.get('domain', 'example.com', DAY)).not.toBeNull(); // exactly max age: still fresh
    clock.now += 1;
    expect(cache.get('domain', 'example.com', DAY)).toBeNull();
    expect(cache.get('domain', 'example.com', Infinity)?.status).toBe('found');
    cache.put('domain', 'example.com', 'found', { ...profile('example.com'), resolves: false });
    expect(cache.get('domain', 'example.com', 0)).toMatchObject({ body: { resolves: false }, fetchedAt: clock.now });
    cache.close();
    cache.close(); // twice is harmless
  });

  it('getMany reads large host lists in chunks and skips stale or absent hosts', async () => {
    const { cache, clock } = await clockedCache();
    const hosts = Array.from({ length: 1234 }, (_, i) => `h${i}.example`);
    cache.putMany(hosts.filter((_, i) => i % 2 === 0).map((host) => ({ endpoint: 'domain', host, status: 'found' as const, body: profile(host) })));
    clock.now += 10 * DAY;
    cache.putMany([{ endpoint: 'domain', host: 'h1.example', status: 'missing', body: null }]);
    const fresh = cache.getMany('domain', [...hosts, 'h0.example'], 5 * DAY);
    expect([...fresh.keys()]).toEqual(['h1.example']);
    const all = cache.getMany('domain', hosts, 30 * DAY);
    expect(all.size).toBe(618);
    expect(all.get('h1232.example')).toEqual({ status: 'found', body: profile('h1232.example'), fetchedAt: clock.now - 10 * DAY });
    expect(all.has('h3.example')).toBe(false);
    expect(cache.getMany('domain', [], DAY).size).toBe(0);
    cache.putMany([]);
    cache.close();
  });

  it('keeps the catalog under host "" and employees by apex', async () => {
    const { cache } = await clockedCache();
    cache.put('catalog', '', 'found', [{ category: 'cms', technologies: [] }]);
    cache.put('employees', 'example.com', 'found', { apex: 'example.com' });
    expect(cache.get('catalog', '', DAY)?.body).toEqual([{ category: 'cms', technologies: [] }]);
    expect(cache.stats().byEndpoint).toEqual({ catalog: 1, employees: 1 });
    cache.close();
  });

  it('prunes, clears and reports stats', async () => {
    const { cache, clock, dir } = await clockedCache();
    expect(cache.stats()).toMatchObject({ entries: 0, found: 0, missing: 0, oldest: null, newest: null, byEndpoint: {} });
    const t0 = clock.now;
    cache.put('domain', 'a.example', 'found', profile('a.example'));
    cache.put('traffic', 'a.example', 'found', { host: 'a.example', history: [] });
    clock.now += 20 * DAY;
    cache.put('domain', 'b.example', 'missing', null);
    const s = cache.stats();
    expect(s).toMatchObject({
      path: path.join(dir, 'cache.sqlite'),
      entries: 3,
      found: 2,
      missing: 1,
      oldest: t0,
      newest: clock.now,
      byEndpoint: { domain: 2, traffic: 1 },
    });
    expect(s.bytes).toBeGreaterThan(0);
    expect(cache.prune(10 * DAY)).toBe(2);
    expect(cache.stats().entries).toBe(1);
    expect(cache.prune(10 * DAY)).toBe(0);
    expect(cache.clear()).toBe(1);
    expect(cache.stats().entries).toBe(0);
    cache.close();
  });

  it('persists across reopen, and survives an instance that was never closed', async () => {
    const dir = tempDir();
    const first = await openCache({ dir });
    first.put('domain', 'kept.example', 'found', profile('kept.example'));
    // No close(): the next instance must still see the committed answer.
    const second = await openCache({ dir });
    expect(second.get('domain', 'kept.example', DAY)?.body).toEqual(profile('kept.example'));
    second.close();
    first.close();
    const third = await openCache({ dir });
    expect(third.stats().entries).toBe(1);
    third.close();
  });

  it.runIf(process.platform !== 'win32')('creates its directory 0700 and its file 0600', async () => {
    const dir = path.join(tempDir(), 'a', 'cache');
    const cache = await openCache({ dir, file: 'x.sqlite' });
    expect(mode(dir)).toBe(0o700);
    expect(mode(cache.path)).toBe(0o600);
    expect(cache.path).toBe(path.join(dir, 'x.sqlite'));
    cache.close();
  });

  it('refuses a damaged file with a clear error, and removeCacheFiles clears the way', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'cache.sqlite');
    fs.writeFileSync(file, 'this is not a database, just text that is long enough to hold a header '.repeat(20));
    const err = await openCache({ dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CacheCorruptError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('domain-intel cache clear');
    expect(removeCacheFiles({ dir })).toEqual([file]);
    const cache = await openCache({ dir });
    expect(cache.stats().entries).toBe(0);
    cache.close();
  });

  it('finds every answer across merges, the later answer for a host winning, here and in a second connection', async () => {
    const { cache, clock, dir } = await clockedCache();
    const n = MERGE_EVERY + 2_500;
    const hosts = Array.from({ length: n }, (_, i) => `h${i}.example`);
    for (let i = 0; i < n; i += 100) {
      cache.putMany(hosts.slice(i, i + 100).map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
    }
    // The first MERGE_EVERY are in `answers` by now, the rest still only appended: a reader must see both.
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'), { readonly: true });
    const counts = () => raw.prepare('SELECT (SELECT COUNT(*) FROM answers) AS answers, (SELECT COUNT(*) FROM recent) AS recent').get();
    expect(counts()).toEqual({ answers: MERGE_EVERY, recent: 2_500 });
    expect(cache.getMany('domain', hosts, DAY).size).toBe(n);

    clock.now += 1000;
    cache.put('domain', 'h3.example', 'found', profile('h3.example')); // merged earlier as missing
    cache.put('domain', `h${n - 1}.example`, 'found', profile(`h${n - 1}.example`)); // appended twice
    expect(cache.get('domain', 'h3.example', DAY)).toMatchObject({ status: 'found', fetchedAt: clock.now });
    expect(cache.getMany('domain', ['h3.example', `h${n - 1}.example`, 'h4.example'], DAY)).toEqual(
      new Map([
        ['h3.example', { status: 'found', body: profile('h3.example'), fetchedAt: clock.now }],
        [`h${n - 1}.example`, { status: 'found', body: profile(`h${n - 1}.example`), fetchedAt: clock.now }],
        ['h4.example', { status: 'missing', body: null, fetchedAt: clock.now - 1000 }],
      ]),
    );
    expect(cache.holdsAny('domain')).toBe(true);
    expect(cache.holdsAny('traffic')).toBe(false);
    // One call with more answers than one statement appends.
    const traffic = hosts.slice(0, 250).map((host) => ({ endpoint: 'traffic', host, status: 'found' as const, body: { host } }));
    cache.putMany(traffic);
    expect(cache.holdsAny('traffic')).toBe(true);
    const back = cache.getMany('traffic', hosts.slice(0, 260), DAY);
    expect([...back.keys()]).toEqual(hosts.slice(0, 250));
    expect(back.get('h249.example')?.body).toEqual({ host: 'h249.example' });
    expect(cache.stats().entries).toBe(n + 250); // stats merges first: one row per endpoint and host
    expect(counts()).toEqual({ answers: n + 250, recent: 0 });

    // Appended but not merged when a second connection opens: it merges them on open.
    cache.put('domain', 'late.example', 'found', profile('late.example'));
    const second = await openCache({ dir, clock: () => clock.now });
    expect(counts()).toEqual({ answers: n + 251, recent: 0 });
    expect(second.get('domain', 'late.example', DAY)).toMatchObject({ status: 'found' });
    expect(second.get('domain', `h${n - 1}.example`, DAY)).toMatchObject({ status: 'found' });
    second.close();
    cache.close();
    raw.close();
  });

  it('keeps the later answer when another connection stored one while this one had answers unmerged', async () => {
    const dir = tempDir();
    const t = Date.parse('2026-01-01T00:00:00Z');
    const a = await openCache({ dir, clock: () => t });
    const b = await openCache({ dir, clock: () => t + 1000 });
    a.putMany(['x.example', 'y.example'].map((host) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null })));
    b.put('domain', 'x.example', 'found', profile('x.example')); // later, straight into answers
    b.close();
    a.close(); // merges its earlier answer for x.example: it must not replace b's later one
    const c = await openCache({ dir, clock: () => t + 2000 });
    expect(c.get('domain', 'x.example', DAY)).toMatchObject({ status: 'found', fetchedAt: t + 1000 });
    expect(c.get('domain', 'y.example', DAY)).toMatchObject({ status: 'missing', fetchedAt: t });
    c.close();
  });

  it('keeps committed answers when the process is killed with SIGKILL', async () => {
    const dir = tempDir();
    const work = tempDir();
    // The real module, bundled for a plain node child; better-sqlite3 stays the installed copy.
    const sqlite = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    const bundle = path.join(work, 'cache.mjs');
    await build({
      entryPoints: [path.resolve(import.meta.dirname, '../../src/store/cache.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
      plugins: [{ name: 'sqlite', setup: (b) => b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: sqlite, external: true })) }],
    });
    const child = path.join(work, 'child.mjs');
    fs.writeFileSync(
      child,
      `import { openCache } from ${JSON.stringify(pathToFileURL(bundle).href)};
       const cache = await openCache({ dir: ${JSON.stringify(dir)} });
       cache.put('domain', 'one.example', 'found', { domain: 'one.example' });
       cache.putMany([{ endpoint: 'domain', host: 'two.example', status: 'missing', body: null }]);
       process.kill(process.pid, 'SIGKILL');`,
    );
    const r = spawnSync(process.execPath, [child], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.signal).toBe('SIGKILL');
    const cache = await openCache({ dir });
    expect(cache.get('domain', 'one.example', DAY)).toMatchObject({ status: 'found', body: { domain: 'one.example' } });
    expect(cache.get('domain', 'two.example', DAY)).toMatchObject({ status: 'missing', body: null });
    cache.close();
  });
});

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
    cache.put('domain', 'example.com', 'found', profile('example.com'));
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
    fs.writeFileSync(path.join(bad, 'cache.sqlite'), 'this is not a database, just text that is long enough to hold a header '.repeat(20));
    await expect(readLastQuota({ dir: bad })).rejects.toBeInstanceOf(CacheCorruptError);
    await expect(recordLastQuota({ dir: bad }, quota)).rejects.toBeInstanceOf(CacheCorruptError);
  });
});
