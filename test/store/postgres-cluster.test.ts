// The PostgreSQL store against a throwaway server of its own (pg_createcluster, as root), for what the shared
// server cannot show: a server that asks for a password (given by the password file or PGPASSWORD, or missing),
// and a server stopped under a run and started again.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/backend.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { profile } from './cache-helpers.js';
import { tempDir } from './helpers.js';
import { CLUSTER_USABLE, type Cluster, startCluster } from '../helpers/pg-cluster.js';

if (!CLUSTER_USABLE) console.warn('PostgreSQL cluster tests skipped: they need root and pg_createcluster (PostgreSQL 15)');

const CLUSTER = `di_test_${process.pid}`;
const PASSWORD = 'correct horse';
let cluster: Cluster | undefined;
let port = 0;

/** A URL of the throwaway server, without a password unless given. */
const urlOf = (password?: string) =>
  `postgres://postgres${password === undefined ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/postgres?schema=cluster_test`;

/** Runs `fn` with the environment variables `env` set (undefined: unset), then puts them back. */
async function withEnv<T>(env: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(env);
  try {
    return await fn();
  } finally {
    set(before);
  }
}

describe.skipIf(!CLUSTER_USABLE)('PostgreSQL store on a server of its own', () => {
  beforeAll(async () => {
    // Passwords over TCP (SCRAM), trust over the local socket for the test's own setting up.
    cluster = await startCluster(CLUSTER, 'scram-sha-256');
    port = cluster.port;
    const admin = new pg.Client({ host: '/var/run/postgresql', port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query(`ALTER USER postgres PASSWORD '${PASSWORD}'`);
    await admin.end();
  }, 60_000);

  afterAll(() => {
    cluster?.drop();
  });

  it('takes the password from the password file, or PGPASSWORD, and says in one line when there is none', async () => {
    const file = path.join(tempDir(), 'pgpass');
    // A colon in a password is escaped in the file.
    fs.writeFileSync(file, `127.0.0.1:${port}:postgres:postgres:${PASSWORD.replace(/:/g, '\\:')}\n`, { mode: 0o600 });
    // Read by the store, as libpq reads it: not by pg, whose reading warns on stderr (a deprecation).
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    await withEnv({ PGPASSFILE: file, PGPASSWORD: undefined }, async () => {
      const store = await openPostgresStore(urlOf());
      await store.putMany([{ endpoint: 'domain', host: 'a.example', status: 'found', body: profile('a.example') }]);
      await store.close();
    });
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
    await withEnv({ PGPASSFILE: path.join(tempDir(), 'none'), PGPASSWORD: PASSWORD }, async () => {
      const store = await openPostgresStore(urlOf());
      expect((await store.getMany('domain', ['a.example'], Number.POSITIVE_INFINITY)).size).toBe(1);
      await store.close();
    });
    await withEnv({ PGPASSFILE: path.join(tempDir(), 'none'), PGPASSWORD: undefined }, async () => {
      const err = await openPostgresStore(urlOf()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message).toBe(
        `cannot use the store ${urlOf()}: the server asks for a password and none was given (in the URL, PGPASSWORD or the password file ~/.pgpass)`,
      );
      const wrong = await openPostgresStore(urlOf('hunter2')).catch((e: unknown) => e);
      expect((wrong as Error).message).toMatch(
        /^cannot use the store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres\?schema=cluster_test: password authentication failed/,
      );
    });
  });

  it('fails in one line while the server is stopped, and works again once it is back', async () => {
    const store = await openPostgresStore(urlOf(PASSWORD));
    await store.putMany([{ endpoint: 'domain', host: 'b.example', status: 'found', body: profile('b.example') }]);
    cluster?.stop();
    try {
      const err = await store.putMany([{ endpoint: 'domain', host: 'c.example', status: 'found', body: profile('c.example') }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message).toMatch(/^cannot use the store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres\?schema=cluster_test: /);
      expect((err as Error).message).not.toContain(PASSWORD);
      await expect(store.claim('domain', ['d.example'])).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      cluster?.start();
    }
    expect([...(await store.getMany('domain', ['b.example', 'c.example'], Number.POSITIVE_INFINITY)).keys()]).toEqual(['b.example']);
    await store.close();
  });
});
