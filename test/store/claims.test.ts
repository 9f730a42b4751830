// Claims between two connections to one cache file (two processes, as SQLite sees them): a host one is buying
// is not bought by the other at the same moment, and a claim ends when its answer is stored, when it is
// released, or when the process that made it is gone.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openCache } from '../../src/store/sqlite/cache.js';
import { tempDir } from './helpers.js';

const DAY = 86_400_000;
const missing = (host: string) => ({ endpoint: 'domain', host, status: 'missing' as const, body: null });

/** Two connections to one cache, each knowing the other writes to it. */
async function twoConnections() {
  const dir = tempDir();
  const a = await openCache({ dir });
  const b = await openCache({ dir });
  // Each learns of the other the way a run does: from a write by the other, seen by getFresh.
  await a.putMany([missing('seed-a.example')]);
  await b.getFresh('domain', ['x.example'], DAY);
  await b.putMany([missing('seed-b.example')]);
  await a.getFresh('domain', ['x.example'], DAY);
  return { dir, a, b };
}

describe('claims', () => {
  it('a host the other connection is buying is reported busy, and free again once its answer is stored', async () => {
    const { a, b } = await twoConnections();
    expect(await a.claim('domain', ['h1.example', 'h2.example'])).toEqual([]);
    expect(await b.claim('domain', ['h2.example', 'h3.example'])).toEqual(['h2.example']);
    // b claimed h3: a sees it busy in turn.
    expect(await a.claim('domain', ['h3.example'])).toEqual(['h3.example']);
    await a.putMany([missing('h2.example')]);
    expect(await b.claim('domain', ['h2.example'])).toEqual([]);
    expect((await b.getFresh('domain', ['h2.example'], DAY)).get('h2.example')?.status).toBe('missing');
    await a.close();
    await b.close();
  });

  it('a released claim (its lookup gave up) frees the host at once', async () => {
    const { a, b } = await twoConnections();
    await a.claim('domain', ['h1.example']);
    expect(await b.claim('domain', ['h1.example'])).toEqual(['h1.example']);
    await a.release('domain', ['h1.example']);
    expect(await b.claim('domain', ['h1.example'])).toEqual([]);
    await a.close();
    await b.close();
  });

  it('a claim of a process that is gone, or of a connection of this one that has left, holds nothing', async () => {
    const { dir, a, b } = await twoConnections();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'));
    raw.prepare('INSERT INTO claims VALUES (?, ?, ?, ?, ?)').run('domain', 'h9.example', 'someone', Number(dead), Date.now() + 60_000);
    // Left behind by a connection of this process that has left (its delete failed: the disk full as it did).
    raw.prepare('INSERT INTO claims VALUES (?, ?, ?, ?, ?)').run('domain', 'h7.example', 'gone-before', process.pid, Date.now() + 60_000);
    raw.close();
    expect(await b.claim('domain', ['h8.example'])).toEqual([]);
    // h8's claimant is here (this process, another connection): busy; h9's process is gone and h7's run has
    // left: free.
    expect(await a.claim('domain', ['h7.example', 'h8.example', 'h9.example'])).toEqual(['h8.example']);
    await b.close();
    expect(await a.claim('domain', ['h8.example'])).toEqual([]);
    await a.close();
  });

  it('a run that starts while another is there knows of it at its first check, before any answer is written', async () => {
    const dir = tempDir();
    const a = await openCache({ dir });
    await a.getFresh('domain', ['x.example'], DAY); // a's first check: it says it is here
    const b = await openCache({ dir });
    await b.getFresh('domain', ['x.example'], DAY); // b's first check sees a, though a has written no answer
    expect(await b.claim('domain', ['h1.example'])).toEqual([]);
    expect((await a.getFresh('domain', ['h1.example'], DAY)).size).toBe(0);
    expect(await a.claim('domain', ['h1.example'])).toEqual(['h1.example']);
    await b.close();
    // b has gone: its presence and claims with it, so a is alone again.
    await a.close();
  });

  it('alone on the file, a connection claims all the same (another may join a moment later), and its claims end with it', async () => {
    const dir = tempDir();
    const solo = await openCache({ dir });
    expect(await solo.claim('domain', ['h1.example'])).toEqual([]);
    const later = await openCache({ dir });
    expect(await later.claim('domain', ['h1.example', 'h2.example'])).toEqual(['h1.example']);
    await later.close();
    await solo.close();
    const raw = new Sqlite(path.join(dir, 'cache.sqlite'));
    expect(raw.prepare('SELECT COUNT(*) AS n FROM claims').get()).toEqual({ n: 0 });
    raw.close();
  });
});
