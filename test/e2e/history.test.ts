// History in the cache from outside (issue 17). It survives a kill -9 mid-refresh: the killed run's answers
// are committed in the journal (`recent`) but not merged, so nothing has been replaced yet; the next open
// merges them, and the trigger keeps every answer they replace that differs, stamped with the refreshed
// answer's fetch time (a real process against the sandbox, killed with SIGKILL). And `cache stats` counts
// it, `cache prune --history` drops the old part of it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { assertBuilt, cliEnv, runInProcess, startCli } from '../helpers/cli.js';
import { tempDir } from '../store/helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ port: 0, rpm: 0, latencyMs: 40 });
});
afterAll(async () => {
  await sb?.close();
});

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const DAY = 86_400_000;

describe('history and kill -9', () => {
  it('a refresh killed before its merge: the next open keeps every replaced answer that differs, and only those', async () => {
    const hosts = sb.hostList().slice(0, 1000);
    const dir = tempDir();
    const file = join(dir, 'crm.csv');
    writeFileSync(file, `website\n${hosts.join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const cacheFile = join(env.DOMAIN_INTEL_CACHE_DIR as string, 'cache.sqlite');
    const first = await runInProcess(['batch', file, '-o', join(dir, 'first.csv'), '--rate', '100000/1m', '--quiet'], { env });
    expect(first.code).toBe(0);

    // Make every other found answer an older, different one (as if the host had run another stack a day
    // ago), then empty the history this edit made: the test's own set-up, through SQLite, not a refresh.
    const db = new Sqlite(cacheFile);
    const edit = db.prepare(
      `UPDATE answers SET body = json_set(body, '$.technologies', json('["OldTech"]')), fetched_at = fetched_at - ${DAY}
       WHERE endpoint = 'domain' AND host = ? AND status = 'found'`,
    );
    const changed = new Set(db.transaction(() => hosts.filter((h, i) => i % 2 === 0 && edit.run(h).changes === 1))());
    db.exec('DELETE FROM history');
    const before = new Map(
      (db.prepare("SELECT host, body, fetched_at FROM answers WHERE endpoint = 'domain'").all() as { host: string; body: string; fetched_at: number }[]).map(
        (r) => [r.host, r],
      ),
    );
    db.close();
    expect(changed.size).toBeGreaterThan(300);

    sb.resetCounters();
    const run = startCli(['batch', file, '--refresh', '-o', join(dir, 'second.csv'), '--concurrency', '2', '--rate', '100000/1m', '--quiet'], { env });
    await waitFor(() => sb.charges().total >= 400);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const charged = sb.charges().total;

    // Killed before any merge: its answers wait in `recent`, and nothing has reached the history yet.
    const look = new Sqlite(cacheFile, { readonly: true });
    const recent = look.prepare('SELECT host, fetched_at FROM recent').all() as { host: string; fetched_at: number }[];
    expect(look.prepare('SELECT COUNT(*) AS n FROM history').get()).toEqual({ n: 0 });
    look.close();
    // Every answer the sandbox charged for is there, but for the batches in flight at the kill (two at most).
    expect(recent.length).toBeGreaterThanOrEqual(charged - 2 * 100);
    expect(recent.length).toBeLessThan(hosts.length);
    const refreshed = new Map(recent.map((r) => [r.host, r.fetched_at]));

    const cache = await openCache({ dir: join(cacheFile, '..') });
    const pasts = await Promise.all(hosts.map((h) => cache.past.history('domain', h)));
    const withHistory = hosts.filter((_, i) => (pasts[i]?.length ?? 0) > 0);
    // Exactly the refreshed hosts whose held answer differed: not the others refreshed, not those not reached.
    expect(withHistory.sort()).toEqual([...refreshed.keys()].filter((h) => changed.has(h)).sort());
    expect(withHistory.length).toBeGreaterThan(50);
    for (const h of withHistory) {
      const old = before.get(h);
      expect(await cache.past.history('domain', h)).toEqual([
        { status: 'found', body: JSON.parse(old?.body ?? 'null'), fetchedAt: old?.fetched_at, replacedAt: refreshed.get(h) },
      ]);
      // The refreshed answer is the one held now.
      const now = (await cache.getMany('domain', [h], Infinity)).get(h) ?? null;
      expect(now?.fetchedAt).toBe(refreshed.get(h));
      expect(now?.body).toMatchObject({ domain: h });
      expect(now?.body).not.toMatchObject({ technologies: ['OldTech'] });
    }
    await cache.close();
  });

  it('cache stats counts past answers; cache prune --history drops those replaced before it, prune alone keeps them', async () => {
    const env = cliEnv();
    const dir = env.DOMAIN_INTEL_CACHE_DIR as string;
    const clock = { now: Date.now() - 20 * DAY };
    const cache = await openCache({ dir, clock: () => clock.now });
    const put = (host: string, technologies: string[]) => cache.putMany([{ endpoint: 'domain', host, status: 'found', body: { domain: host, technologies } }]);
    await put('a.example', ['Nginx']);
    clock.now += 10 * DAY; // 10 days ago
    await put('a.example', ['Shopify']); // replaces the first: past answer replaced 10 days ago
    clock.now += 8 * DAY; // 2 days ago
    await put('a.example', ['Shopify', 'Stripe']); // replaced 2 days ago
    await cache.close();

    const stats = await runInProcess(['cache', 'stats'], { env });
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ entries: 1, history: 2 });
    const plain = await runInProcess(['cache', 'prune'], { env }); // 30 days: nothing, history kept
    expect(plain.stderr).toMatch(/removed 0 answers older than 30d/);
    expect(plain.stderr).not.toMatch(/past answers/);
    const pruned = await runInProcess(['cache', 'prune', '--history', '5d'], { env });
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toMatch(/removed 1 past answers replaced over 5d 00h ago/);
    const after = await openCache({ dir });
    expect(await after.past.history('domain', 'a.example')).toMatchObject([{ body: { technologies: ['Shopify'] } }]);
    await after.close();
    const bad = await runInProcess(['cache', 'prune', '--history', 'soon'], { env });
    expect(bad.code).toBe(2);
  });
});
