// The PostgreSQL store against a throwaway server of its own (pg_createcluster, as root), for what the shared
// server cannot show: a server that asks for a password (given by the password file or PGPASSWORD, or missing),
// and a server stopped under a run and started again.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/backend.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { profile } from './cache-helpers.js';
import { tempDir } from './helpers.js';

const VERSION = '15';
const usable = process.getuid?.() === 0 && fs.existsSync('/usr/bin/pg_createcluster') && fs.existsSync(`/usr/lib/postgresql/${VERSION}/bin/initdb`);
if (!usable) console.warn('PostgreSQL cluster tests skipped: they need root and pg_createcluster (PostgreSQL 15)');

const CLUSTER = `di_test_${process.pid}`;
const PASSWORD = 'correct horse';
let port = 0;

const ctl = (action: 'start' | 'stop') => execFileSync('pg_ctlcluster', [VERSION, CLUSTER, action], { stdio: 'pipe' });

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return p;
}

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

describe.skipIf(!usable)('PostgreSQL store on a server of its own', () => {
  beforeAll(async () => {
    port = await freePort();
    // Passwords over TCP (SCRAM), trust over the local socket for the test's own setting up.
    execFileSync('pg_createcluster', [VERSION, CLUSTER, '-p', String(port), '--', '--auth-host=scram-sha-256', '--auth-local=trust'], { stdio: 'pipe' });
    ctl('start');
    const admin = new pg.Client({ host: '/var/run/postgresql', port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query(`ALTER USER postgres PASSWORD '${PASSWORD}'`);
    await admin.end();
  }, 60_000);

  afterAll(() => {
    if (port !== 0) execFileSync('pg_dropcluster', ['--stop', VERSION, CLUSTER], { stdio: 'pipe' });
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
    ctl('stop');
    try {
      const err = await store.putMany([{ endpoint: 'domain', host: 'c.example', status: 'found', body: profile('c.example') }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message).toMatch(/^cannot use the store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres\?schema=cluster_test: /);
      expect((err as Error).message).not.toContain(PASSWORD);
      await expect(store.claim('domain', ['d.example'])).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      ctl('start');
    }
    expect([...(await store.getMany('domain', ['b.example', 'c.example'], Number.POSITIVE_INFINITY)).keys()]).toEqual(['b.example']);
    await store.close();
  });
});
