// What machines share through the PostgreSQL store, each handle standing for a run on a machine of its own:
// claims (no host bought twice at once, a dead run's taken over after its lease), presence by heartbeat, and
// the account's quota memo and learned rate. The limiter's slots: postgres-slots.test.ts.
import os from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { keyFingerprint } from '../../src/store/account.js';
import { openPostgresAccount, openPostgresStore, postgresAccountReads } from '../../src/store/postgres/backend.js';
import { LEASE_MS } from '../../src/store/postgres/url.js';
import { profile } from './cache-helpers.js';
import { fakeKey } from './helpers.js';
import { freshSchema, PG_URL, roundTrips, sql, urlOf } from './postgres-helpers.js';

const found = (host: string) => ({ endpoint: 'domain', host, status: 'found' as const, body: profile(host) });
const hosts = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `h${String(from + i).padStart(4, '0')}.example`);

/** `n` runs (handles) on one schema. */
async function runs(n: number, schema = freshSchema()) {
  const stores = await Promise.all(Array.from({ length: n }, () => openPostgresStore(urlOf(schema))));
  return { stores, schema, closeAll: () => Promise.all(stores.map((s) => s.close())) };
}

describe.skipIf(PG_URL === null)('PostgreSQL store: claims', () => {
  it('gives a host to one run at a time; storing its answer or giving up frees it', async () => {
    const {
      stores: [a, b],
      closeAll,
    } = await runs(2);
    if (a === undefined || b === undefined) throw new Error('no stores');
    expect(await a.claim('domain', ['a.example', 'b.example', 'c.example', 'a.example'])).toEqual([]);
    expect((await b.claim('domain', ['b.example', 'c.example', 'd.example'])).sort()).toEqual(['b.example', 'c.example']);
    // Another endpoint's claims are apart; a run's own claims are its own again.
    expect(await b.claim('traffic', ['b.example'])).toEqual([]);
    expect(await a.claim('domain', ['a.example'])).toEqual([]);
    await a.putMany([found('b.example')]);
    await a.release('domain', ['c.example']);
    expect(await b.claim('domain', ['b.example', 'c.example'])).toEqual([]);
    expect(await a.claim('domain', ['b.example', 'c.example', 'd.example'])).toEqual(['b.example', 'c.example', 'd.example']);
    await closeAll();
  });

  it('gives each host to exactly one of several runs claiming at the same instant', async () => {
    const { stores, schema, closeAll } = await runs(5);
    const wanted = hosts(200);
    for (let round = 0; round < 3; round++) {
      await sql(`DELETE FROM ${schema}.claims`);
      // Each claims in its own order, all at once.
      const busy = await Promise.all(stores.map((s, i) => s.claim('domain', i % 2 === 0 ? wanted : [...wanted].reverse())));
      const got = busy.map((b) => wanted.filter((h) => !b.includes(h)));
      expect(got.flat().sort()).toEqual(wanted);
      const owners = await sql<{ n: string }>(`SELECT COUNT(DISTINCT owner) AS n FROM ${schema}.claims`);
      expect(Number(owners[0]?.n)).toBe(got.filter((g) => g.length > 0).length);
    }
    await closeAll();
  });

  it("takes over the claims of a run silent for a lease, and of one that held them too long; never a live run's", async () => {
    const {
      stores: [a, b],
      schema,
      closeAll,
    } = await runs(2);
    if (a === undefined || b === undefined) throw new Error('no stores');
    await a.claim('domain', ['x.example', 'y.example']);
    expect(await b.claim('domain', ['x.example'])).toEqual(['x.example']);
    // a's machine killed: its heartbeat stops. Just inside the lease it still holds; past it, no more.
    await sql(`UPDATE ${schema}.runs SET last_seen = ${schema}.now_ms() - $1 WHERE id IN (SELECT owner FROM ${schema}.claims)`, [LEASE_MS - 2000]);
    expect(await b.claim('domain', ['x.example'])).toEqual(['x.example']);
    await sql(`UPDATE ${schema}.runs SET last_seen = ${schema}.now_ms() - $1 WHERE id IN (SELECT owner FROM ${schema}.claims WHERE host = 'y.example')`, [
      LEASE_MS + 1000,
    ]);
    expect(await b.claim('domain', ['x.example'])).toEqual([]);
    // A live run whose request has hung past two minutes lets its host go too.
    await b.claim('domain', ['z.example']);
    await sql(`UPDATE ${schema}.claims SET taken_at = taken_at - 121000 WHERE host = 'z.example'`);
    const c = await openPostgresStore(urlOf(schema));
    expect(await c.claim('domain', ['z.example', 'x.example'])).toEqual(['x.example']);
    await c.close();
    await closeAll();
  });
});

describe.skipIf(PG_URL === null)('PostgreSQL store: presence', () => {
  it('says whether another live run is buying, by heartbeat: a machine and a pid are shown, never judged', async () => {
    const {
      stores: [a, b],
      schema,
      closeAll,
    } = await runs(2);
    if (a === undefined || b === undefined) throw new Error('no stores');
    expect(await a.join()).toBe(false);
    expect(await b.join()).toBe(true);
    expect(await sql(`SELECT machine, pid, buying FROM ${schema}.runs ORDER BY started_at`)).toEqual([
      { machine: os.hostname(), pid: process.pid, buying: true },
      { machine: os.hostname(), pid: process.pid, buying: true },
    ]);
    await b.claim('domain', ['a.example']);
    await b.leave();
    expect(await sql(`SELECT host FROM ${schema}.claims`)).toEqual([]);
    expect(await a.join()).toBe(false);
    await b.join();
    // b's machine goes silent: past a lease it is no longer counted, whatever its pid says.
    await sql(
      `UPDATE ${schema}.runs SET last_seen = last_seen - $1, pid = $2 WHERE buying AND id <> (SELECT id FROM ${schema}.runs ORDER BY started_at LIMIT 1)`,
      [LEASE_MS + 1, process.pid],
    );
    expect(await a.join()).toBe(false);
    await closeAll();
    expect(await sql(`SELECT id FROM ${schema}.runs`)).toEqual([]);
  });

  it('renews its heartbeat while it lives', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const {
        stores: [a],
        schema,
        closeAll,
      } = await runs(1);
      await a?.join();
      await sql(`UPDATE ${schema}.runs SET last_seen = 0`);
      vi.advanceTimersByTime(LEASE_MS / 3);
      await vi.waitFor(async () => expect(Number((await sql<{ t: string }>(`SELECT last_seen AS t FROM ${schema}.runs`))[0]?.t)).toBeGreaterThan(0), {
        timeout: 5000,
      });
      await closeAll();
    } finally {
      vi.useRealTimers();
    }
  });

  it('costs one round trip a batch for each of getFresh, claim and putMany, whatever the hosts', async () => {
    const {
      stores: [a],
      closeAll,
    } = await runs(1);
    if (a === undefined) throw new Error('no store');
    await a.join();
    await a.putMany(hosts(50).map(found));
    const batch = hosts(100);
    expect((await roundTrips(() => a.getMany('domain', batch, 60_000))).n).toBe(1);
    expect((await roundTrips(() => a.getFresh('domain', batch, 60_000))).n).toBe(1);
    expect((await roundTrips(() => a.claim('domain', batch))).n).toBe(1);
    expect((await roundTrips(() => a.putMany(batch.map(found)))).n).toBe(1);
    await closeAll();
  });

  it('claimFresh: claims, finds what another run stored and ends those claims, in one round trip', async () => {
    const {
      stores: [a, b],
      schema,
      closeAll,
    } = await runs(2);
    const claimFresh = a?.claimFresh?.bind(a);
    if (a === undefined || claimFresh === undefined || b === undefined) throw new Error('no stores, or no claimFresh');
    await a.join();
    await b.join();
    await b.putMany([found('x.example')]);
    expect(await b.claim('domain', ['y.example'])).toEqual([]);
    const { value, n } = await roundTrips(() => claimFresh('domain', ['z.example', 'y.example', 'x.example', 'z.example'], 60_000));
    expect(n).toBe(1);
    expect(value.busy).toEqual(['y.example']);
    expect([...value.held.keys()]).toEqual(['x.example']);
    expect(value.held.get('x.example')?.status).toBe('found');
    // x is not bought here: its claim ended; y stays b's, z is a's.
    const claims = await sql<{ host: string; mine: boolean }>(`SELECT host, owner = $1 AS mine FROM ${schema}.claims ORDER BY host`, [
      await sql<{ id: string }>(`SELECT id FROM ${schema}.runs WHERE id <> (SELECT owner FROM ${schema}.claims WHERE host = 'y.example')`).then(
        (r) => r[0]?.id,
      ),
    ]);
    expect(claims).toEqual([
      { host: 'y.example', mine: false },
      { host: 'z.example', mine: true },
    ]);
    // An answer older than the age asked for is not held: its host is claimed and bought.
    expect((await claimFresh('domain', ['x.example'], 0)).held.size).toBe(0);
    await closeAll();
  });
});

const A = 'https://api.example/api/v1';
const KEY = fakeKey('aaaa');
const RESET = new Date('2026-12-01T00:00:00Z');
const quota = (remaining: number, seenAt: number) => ({ limit: 50_000, remaining, reset: RESET, resetRaw: RESET.toISOString(), seenAt });

describe.skipIf(PG_URL === null)('PostgreSQL store: the account', () => {
  it('keeps the lowest remaining of the period, however many machines report it at once', async () => {
    const schema = freshSchema();
    // Several keys, each first reported by every machine at once: the row does not exist yet to be held.
    for (const key of ['k1', 'k2', 'k3', 'k4', 'k5']) {
      const first = await Promise.all(Array.from({ length: 4 }, (_, i) => openPostgresAccount(urlOf(schema, i), { baseUrl: A, key })));
      await Promise.all(first.map((a, i) => a.noteQuota(quota(100 - i, 1))));
      expect((await first[0]?.quota())?.remaining).toBe(97);
      await Promise.all(first.map((a) => a.close()));
    }
    const accounts = await Promise.all(Array.from({ length: 4 }, (_, i) => openPostgresAccount(urlOf(schema, i), { baseUrl: A, key: KEY })));
    const figures = Array.from({ length: 40 }, (_, i) => 40_000 - ((i * 7919) % 997));
    await Promise.all(figures.map((f, i) => accounts[i % accounts.length]?.noteQuota(quota(f, 1000 + i))));
    expect(await accounts[0]?.quota()).toEqual({
      baseUrl: A,
      keyFingerprint: keyFingerprint(KEY),
      limit: 50_000,
      remaining: Math.min(...figures),
      reset: RESET.toISOString(),
      resetRaw: RESET.toISOString(),
      seenAt: 1039,
    });
    await accounts[1]?.noteExhausted(5000);
    expect(await accounts[2]?.quota()).toMatchObject({ remaining: 0, seenAt: 5000 });
    expect(accounts[0]?.account).toBe(`${A} ${keyFingerprint(KEY)}`);
    await Promise.all(accounts.map((a) => a.close()));
  });

  it('keeps a learned rate per account, and reads every account without opening one', async () => {
    const schema = freshSchema();
    const a = await openPostgresAccount(urlOf(schema), { baseUrl: A, key: KEY });
    const other = await openPostgresAccount(urlOf(schema), { baseUrl: A, key: fakeKey('bbbb') });
    expect(await a.learnedRate()).toBeNull();
    await a.saveLearnedRate({ requests: 600, windowMs: 60_000 });
    await a.saveLearnedRate({ requests: 0, windowMs: 60_000 }); // says nothing: ignored
    expect(await a.learnedRate()).toEqual({ requests: 600, windowMs: 60_000 });
    expect(await other.learnedRate()).toBeNull();
    await a.noteQuota(quota(10, 1));
    await other.noteQuota(quota(20, 2));
    const reads = postgresAccountReads(urlOf(schema));
    expect((await reads.quotaMemos()).map((m) => m.remaining)).toEqual([20, 10]);
    expect(await reads.learnedRate(A, KEY)).toEqual({ requests: 600, windowMs: 60_000 });
    await a.close();
    await other.close();
  });
});
