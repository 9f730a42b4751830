// The PostgreSQL store against a real server (postgres-helpers.ts): its schema and migrations, answers read
// by age, the history its trigger keeps, the view of profiles, upkeep, and what a user sees when the server is
// not there. Claims, presence, slots and accounts: postgres-shared.test.ts.
import { describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/contract.js';
import { openPostgresAccount, openPostgresStore, postgresAccountReads } from '../../src/store/postgres/backend.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { accountSchema } from '../../src/store/postgres/sql-account.js';
import { answersSchema } from '../../src/store/postgres/sql-answers.js';
import { DAY, profile } from './cache-helpers.js';
import { admin, freshSchema, PG_URL, roundTrips, sql, urlOf } from './postgres-helpers.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const found = (host: string, body: unknown = profile(host)) => ({ endpoint: 'domain', host, status: 'found' as const, body });
const withTech = (host: string, technologies: string[]) => ({ ...profile(host), technologies });

/** A store in a schema of its own on a clock the test moves. */
async function clocked(schema = freshSchema()): Promise<{ store: Store; clock: { now: number }; schema: string }> {
  const clock = { now: T0 };
  const store = await openPostgresStore(urlOf(schema), { clock: () => clock.now });
  return { store, clock, schema };
}

describe.skipIf(PG_URL === null)('PostgreSQL store: schema', () => {
  it('migrates a new schema once when several open it at the same instant, and opens an up-to-date one without writing', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, (_, i) => openPostgresStore(urlOf(schema, i))));
    expect(await sql(`SELECT version FROM ${schema}.schema_version ORDER BY version`)).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
    );
    const tables = await sql<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema]);
    expect(tables.map((r) => r.t)).toEqual(
      expect.arrayContaining(['answers', 'claims', 'history', 'learned_rate', 'limiter_slots', 'profiles', 'quota', 'runs', 'schema_version']),
    );
    for (const s of stores) await s.close();
    // Up to date: opening reads the version, and that is all.
    const { value: again, n } = await roundTrips(() => openPostgresStore(urlOf(schema)));
    expect(n).toBe(1);
    await again.close();
  });

  it('brings a store of version 1 up to date: the slot steps of version 2 replace the old ones (issue 26)', async () => {
    const schema = freshSchema();
    await sql(`CREATE SCHEMA ${schema}`);
    await sql(`CREATE TABLE ${schema}.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp(), by_build text)`);
    await sql(`${answersSchema(schema)}\n${accountSchema(schema)}`);
    await sql(`INSERT INTO ${schema}.schema_version (version) VALUES (1)`);
    const account = await openPostgresAccount(urlOf(schema), { baseUrl: 'http://x/api/v1', key: 'k', clock: () => 0 });
    expect((await sql<{ v: number }>(`SELECT MAX(version) AS v FROM ${schema}.schema_version`))[0]?.v).toBe(SCHEMA_VERSION);
    const args = await sql<{ a: string }>(
      `SELECT pg_get_function_identity_arguments(p.oid) AS a FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'slot_pause'`,
      [schema],
    );
    expect(args.map((r) => r.a)).toEqual([expect.stringContaining('p_hold bigint')]);
    const s = account.slots;
    const [a, b] = [await s.take(0, 2, 1000), await s.take(0, 2, 1000)];
    if (!('id' in a) || !('id' in b)) throw new Error('a slot was refused under the limit');
    await s.answer(a.id, 10, true, 60_010);
    await s.answer(b.id, 20, true, 60_020);
    await s.pause(500, true, 30, 1000);
    // The oldest freed at the reset, the other held a window after its answer.
    expect(await s.take(500, 2, 1000)).toMatchObject({ id: expect.any(Number) });
    expect(await s.take(500, 2, 1000)).toEqual({ retryAt: 1020, paused: false });
    expect(await s.recentAccepted(500, 1)).toBe(0);
    await account.close();
  });

  it('refuses a schema written by a newer build with one line naming the store, its password masked', async () => {
    const schema = freshSchema();
    await (await openPostgresStore(urlOf(schema))).close();
    await sql(`INSERT INTO ${schema}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION + 1]);
    const url = urlOf(schema).replace('postgres://postgres@', 'postgres://postgres:hunter2@');
    const err = await openPostgresStore(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).code).toBe('store_version');
    expect((err as Error).message).toMatch(/written by a newer domain-intel .*; upgrade domain-intel to use it$/);
    expect((err as Error).message).toContain('postgres:***@');
    expect((err as Error).message).not.toContain('hunter2');
    expect((err as Error).message).not.toContain('\n');
    // Nor does an account, or the reads of every account, use it.
    await expect(openPostgresAccount(url, { baseUrl: 'http://x/api/v1', key: 'k' })).rejects.toMatchObject({ code: 'store_version' });
    await expect(postgresAccountReads(url).quotaMemos()).rejects.toMatchObject({ code: 'store_version' });
  });

  it('says in one line that the server cannot be reached, the password masked', async () => {
    const err = await openPostgresStore('postgres://alice:s3cret@127.0.0.1:1/nowhere').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/^cannot use the store postgres:\/\/alice:\*\*\*@127\.0\.0\.1:1\/nowhere: /);
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('gets over the server dropping its connections, and says in one line when it cuts a statement', async () => {
    const schema = freshSchema();
    const name = `drop_${schema}`;
    const connections = () => sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
    const store = await openPostgresStore(`${urlOf(schema)}&application_name=${name}`);
    await store.putMany([found('a.example')]);
    // Dropped (a restart, a pooler): the next statement goes through on a new connection.
    await connections();
    expect((await store.getMany('domain', ['a.example'], Number.POSITIVE_INFINITY)).size).toBe(1);
    // Dropped while a statement waits on a lock: tried once more, then, dropped again, it fails in one line.
    const holder = await (admin as NonNullable<typeof admin>).connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${schema}.answers IN ACCESS EXCLUSIVE MODE`);
      const waiting = store.getMany('domain', ['a.example'], Number.POSITIVE_INFINITY).catch((e: unknown) => e);
      const waits = () => sql("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [name]);
      for (let drop = 0; drop < 2; drop++) {
        // waitFor's default patience is 1 s: on a loaded machine the retried statement took longer to queue.
        await vi.waitFor(async () => expect(await waits()).toHaveLength(1), { timeout: 10_000, interval: 50 });
        await connections();
      }
      const err = await waiting;
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message).toMatch(/^cannot use the store postgres:.*: terminating connection due to administrator command$/);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect((await store.getMany('domain', ['a.example'], Number.POSITIVE_INFINITY)).size).toBe(1);
    await store.close();
  });

  it('keeps one service per schema: another service is refused, saying how to give it its own', async () => {
    const schema = freshSchema();
    await (await openPostgresStore(urlOf(schema), { service: 'https://api.example/api/v1' })).close();
    await (await openPostgresStore(urlOf(schema), { service: 'https://api.example/api/v1' })).close();
    await expect(openPostgresStore(urlOf(schema), { service: 'http://127.0.0.1:4010/api/v1' })).rejects.toMatchObject({
      code: 'store_service',
      message: expect.stringMatching(/holds the answers of https:\/\/api\.example\/api\/v1, not of http:\/\/127\.0\.0\.1:4010\/api\/v1; .*\?schema=NAME/),
    });
  });

  it('reads the accounts of a store not made yet as none, and creates nothing', async () => {
    const schema = freshSchema();
    const reads = postgresAccountReads(urlOf(schema));
    expect(await reads.quotaMemos()).toEqual([]);
    expect(await reads.learnedRate('http://x/api/v1', 'k')).toBeNull();
    expect(await sql('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema])).toEqual([]);
  });
});

describe.skipIf(PG_URL === null)('PostgreSQL store: answers', () => {
  it('stores a batch in one statement and reads it back by age, bodies byte for byte, with when each was fetched before', async () => {
    const { store, clock, schema } = await clocked();
    // Keys in the service's order, which jsonb would sort: a cached row must print as a fresh one does.
    const body = { domain: 'a.example', resolves: true, technologies: ['Nginx'], network: 'Fastly', age_days: 12 };
    expect(
      await store.putMany([found('a.example', body), found('b.example'), { endpoint: 'domain', host: 'gone.example', status: 'missing', body: null }]),
    ).toBe(T0);
    expect(await sql(`SELECT body FROM ${schema}.answers WHERE host = 'a.example'`)).toEqual([{ body: JSON.stringify(body) }]);
    const got = await store.getMany('domain', ['a.example', 'gone.example', 'never.example', 'a.example'], DAY);
    expect([...got.keys()].sort()).toEqual(['a.example', 'gone.example']);
    expect(got.get('a.example')).toEqual({ status: 'found', body, fetchedAt: T0, previousAt: null });
    expect(got.get('gone.example')).toEqual({ status: 'missing', body: null, fetchedAt: T0, previousAt: null });
    expect(await store.getMany('traffic', ['a.example'], DAY)).toEqual(new Map());
    clock.now += DAY;
    // A day old: outside a day's limit by a millisecond, inside any age.
    clock.now += 1;
    expect((await store.getMany('domain', ['a.example'], DAY)).size).toBe(0);
    expect((await store.getFresh('domain', ['a.example'], Number.POSITIVE_INFINITY)).size).toBe(1);
    const t1 = clock.now;
    await store.putMany([found('a.example', body)]);
    expect((await store.getMany('domain', ['a.example'], DAY)).get('a.example')).toMatchObject({ fetchedAt: t1, previousAt: T0 });
    expect(await store.holdsAny('domain')).toBe(true);
    expect(await store.holdsAny('employees')).toBe(false);
    await store.close();
  });

  it("ages answers by the server's clock when given none", async () => {
    const schema = freshSchema();
    const store = await openPostgresStore(urlOf(schema));
    const before = Date.now();
    const at = await store.putMany([found('a.example')]);
    // The server's clock, which here is this machine's: within a second of it.
    expect(Math.abs(at - before)).toBeLessThan(1000);
    expect((await store.getMany('domain', ['a.example'], 60_000)).get('a.example')?.fetchedAt).toBe(at);
    // Moved back two minutes by hand: now outside a minute's limit on the server's clock.
    await sql(`UPDATE ${schema}.answers SET fetched_at = fetched_at - 120000`);
    expect((await store.getMany('domain', ['a.example'], 60_000)).size).toBe(0);
    expect((await store.getMany('domain', ['a.example'], 180_000)).size).toBe(1);
    await store.close();
  });

  it('keeps the later answer when one stamped earlier is stored after it', async () => {
    const { store, clock } = await clocked();
    clock.now = T0 + 10;
    await store.putMany([found('a.example', withTech('a.example', ['Later']))]);
    clock.now = T0;
    await store.putMany([found('a.example', withTech('a.example', ['Earlier']))]);
    expect((await store.getMany('domain', ['a.example'], Number.POSITIVE_INFINITY)).get('a.example')).toMatchObject({
      body: withTech('a.example', ['Later']),
      fetchedAt: T0 + 10,
    });
    await store.close();
  });

  it('reads a body that no longer parses as no answer, so the host is fetched again', async () => {
    const { store, schema } = await clocked();
    await store.putMany([found('a.example'), found('b.example')]);
    await sql(`ALTER TABLE ${schema}.answers DISABLE TRIGGER answers_history`);
    await sql(`UPDATE ${schema}.answers SET body = '{"domain": ' WHERE host = 'a.example'`);
    expect([...(await store.getMany('domain', ['a.example', 'b.example'], DAY)).keys()]).toEqual(['b.example']);
    await store.close();
  });
});

describe.skipIf(PG_URL === null)('PostgreSQL store: history', () => {
  it('keeps what a differing refresh replaced, nothing for the same answer or one that differs only in age_days', async () => {
    const { store, clock } = await clocked();
    await store.putMany([found('a.example'), found('b.example'), found('c.example', { ...profile('c.example'), age_days: 100 })]);
    clock.now += DAY;
    const t1 = clock.now;
    await store.putMany([
      found('a.example'),
      found('b.example', withTech('b.example', ['Nginx', 'Shopify'])),
      found('c.example', { ...profile('c.example'), age_days: 101 }),
    ]);
    expect(await store.past.history('domain', 'a.example')).toEqual([]);
    expect(await store.past.history('domain', 'c.example')).toEqual([]);
    expect(await store.past.history('domain', 'b.example')).toEqual([{ status: 'found', body: profile('b.example'), fetchedAt: T0, replacedAt: t1 }]);
    expect((await store.stats()).history).toBe(1);
    await store.close();
  });

  it('records status changes both ways, reads history newest first, and the answer held at a time', async () => {
    const { store, clock } = await clocked();
    const put = (status: 'found' | 'missing', body: unknown) => store.putMany([{ endpoint: 'domain', host: 'a.example', status, body }]);
    await put('found', profile('a.example'));
    clock.now += DAY;
    const t1 = clock.now;
    await put('missing', null);
    await put('missing', null); // null bodies are equal: nothing kept
    clock.now += DAY;
    const t2 = clock.now;
    await put('found', withTech('a.example', ['Shopify']));
    expect(await store.past.history('domain', 'a.example')).toEqual([
      { status: 'missing', body: null, fetchedAt: t1, replacedAt: t2 },
      { status: 'found', body: profile('a.example'), fetchedAt: T0, replacedAt: t1 },
    ]);
    expect(await store.past.previous('domain', 'a.example')).toMatchObject({ status: 'missing', replacedAt: t2 });
    expect(await store.past.previous('domain', 'a.example', T0 + 1)).toMatchObject({ status: 'found', body: profile('a.example') });
    expect(await store.past.previous('domain', 'a.example', t1)).toMatchObject({ status: 'missing' });
    expect(await store.past.previous('domain', 'a.example', t2 + 1)).toEqual({
      status: 'found',
      body: withTech('a.example', ['Shopify']),
      fetchedAt: t2,
      replacedAt: null,
    });
    expect(await store.past.previous('domain', 'never.example', t1)).toBeNull();
    expect(await store.past.latest('domain', 'a.example')).toMatchObject({ status: 'found', fetchedAt: t2, replacedAt: null });
    expect(await store.past.latest('domain', 'never.example')).toBeNull();
    await store.close();
  });

  it('answers what many cached rows replaced in one statement, each by the second of its fetch', async () => {
    const { store, clock } = await clocked();
    const hosts = Array.from({ length: 300 }, (_, i) => `h${String(i).padStart(3, '0')}.example`);
    await store.putMany(hosts.map((h) => found(h)));
    clock.now += DAY + 250; // within a second, not on it
    const t1 = clock.now;
    const changed = hosts.filter((_, i) => i % 3 === 0);
    await store.putMany(hosts.map((h) => found(h, changed.includes(h) ? withTech(h, ['Shopify']) : profile(h))));
    // The same host asked twice, a host never held, and a time a second off: each gets its own answer.
    const asks = [
      ...hosts.map((host) => ({ host, at: Math.floor(t1 / 1000) * 1000 + 999 })),
      { host: 'h000.example', at: t1 },
      { host: 'none.example', at: t1 },
      { host: 'h000.example', at: t1 + 1000 },
    ];
    const { value: got, n } = await roundTrips(() => store.past.replacedByMany('domain', asks));
    expect(n).toBe(1);
    expect(got).toHaveLength(asks.length);
    expect(got.filter((g) => g !== null)).toHaveLength(changed.length + 1);
    expect(got[0]).toEqual({ status: 'found', body: profile('h000.example'), fetchedAt: T0, replacedAt: t1 });
    expect(got[1]).toBeNull();
    expect(got.slice(-3)).toEqual([{ status: 'found', body: profile('h000.example'), fetchedAt: T0, replacedAt: t1 }, null, null]);
    const among = await store.past.pastAmong('domain', ['h000.example', 'h001.example', 'none.example']);
    expect(among).toEqual(
      new Map([
        ['h000.example', true],
        ['h001.example', false],
      ]),
    );
    // Pages of the hosts with history, in host order.
    const first = await store.past.hostsWithHistory('domain', null, 2);
    expect(first).toEqual(['h000.example', 'h003.example']);
    expect(await store.past.hostsWithHistory('domain', first[1] as string, 2)).toEqual(['h006.example', 'h009.example']);
    await store.close();
  });
});

describe.skipIf(PG_URL === null)('PostgreSQL store: the view of profiles and upkeep', () => {
  it('shows the latest profile per host in typed columns, for SQL such as technologies @> Shopify', async () => {
    const { store, schema } = await clocked();
    const full = {
      domain: 'shop.example',
      resolves: true,
      technologies: ['Nginx', 'Shopify'],
      network: 'Cloudflare',
      platform: 'Shopify',
      registrar: 'Gandi',
      age_days: 4000,
      country_iso: 'FR',
      lang_norm: 'fr',
      http_status: 301,
      redirect_to: 'https://www.shop.example/',
      traffic: { estimated_monthly_visits: 125000, band: '100k-1M', as_of: '2026-05' },
      employees: { apex: 'shop.example', low: 11, high: 50, point: null, as_of: '2026-04-30' },
    };
    await store.putMany([
      found('shop.example', full),
      found('blog.example', { ...profile('blog.example'), technologies: null, http_status: 'odd' }),
      { endpoint: 'domain', host: 'gone.example', status: 'missing', body: null },
      { endpoint: 'traffic', host: 'shop.example', status: 'found', body: { host: 'shop.example' } },
    ]);
    expect(await sql(`SELECT host FROM ${schema}.profiles WHERE 'Shopify' = ANY(technologies)`)).toEqual([{ host: 'shop.example' }]);
    const rows = await sql(`SELECT * FROM ${schema}.profiles ORDER BY host`);
    expect(rows.map((r) => r.host)).toEqual(['blog.example', 'gone.example', 'shop.example']);
    expect(rows[2]).toEqual({
      host: 'shop.example',
      status: 'found',
      technologies: ['Nginx', 'Shopify'],
      network: 'Cloudflare',
      platform: 'Shopify',
      registrar: 'Gandi',
      country: 'FR',
      language: 'fr',
      resolves: true,
      age_days: 4000,
      http_status: 301,
      redirect_to: 'https://www.shop.example/',
      traffic_visits: '125000', // bigint, as pg gives it
      traffic_band: '100k-1M',
      traffic_month: '2026-05',
      employees_apex: 'shop.example',
      employees_low: 11,
      employees_high: 50,
      employees_point: null,
      fetched_at: new Date(T0),
    });
    // An odd value reads as NULL rather than failing the query; a missing host has a row with nothing in it.
    expect(rows[0]).toMatchObject({ technologies: null, http_status: null, resolves: true });
    expect(rows[1]).toMatchObject({ status: 'missing', technologies: null, network: null });
    await store.close();
  });

  it('counts what it holds, prunes answers and history by age, and clears both', async () => {
    const { store, clock } = await clocked();
    await store.putMany([found('a.example'), found('b.example'), { endpoint: 'traffic', host: 'a.example', status: 'missing', body: null }]);
    clock.now += 10 * DAY;
    await store.putMany([found('b.example', withTech('b.example', ['Shopify'])), found('c.example')]);
    const stats = await store.stats();
    expect(stats).toMatchObject({ entries: 4, found: 3, missing: 1, oldest: T0, newest: T0 + 10 * DAY, history: 1, byEndpoint: { domain: 3, traffic: 1 } });
    expect(stats.path).toBe(urlOf(stats.path.split('schema=')[1] as string));
    expect(stats.bytes).toBeGreaterThan(0);
    // Older than five days: a (domain and traffic) go, and nothing of b's history, which is of a host still held.
    expect(await store.prune(5 * DAY)).toBe(2);
    expect((await store.stats()).history).toBe(1);
    expect(await store.pruneHistory(Number.POSITIVE_INFINITY)).toBe(0);
    clock.now += DAY;
    expect(await store.pruneHistory(DAY / 2)).toBe(1);
    expect(await store.prune(Number.POSITIVE_INFINITY)).toBe(0);
    expect(await store.clear()).toBe(2);
    expect(await store.stats()).toMatchObject({ entries: 0, history: 0, oldest: null, newest: null, byEndpoint: {} });
    await store.close();
  });
});
