// The PostgreSQL store URL without a server: the password masked wherever it is shown, our `schema` parameter
// taken out before pg sees the URL, sslmode as libpq means it, and the password file read as libpq reads it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskUrl } from '../../src/config/store-url.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { pgpassLookup, pgpassPassword } from '../../src/store/postgres/pgpass.js';
import { LEASE_MS, parseStoreUrl } from '../../src/store/postgres/url.js';
import { tempDir } from './helpers.js';

describe('maskUrl', () => {
  it.each([
    ['postgres://alice:s3cret@db.example:5432/intel', 'postgres://alice:***@db.example:5432/intel'],
    ['postgresql://alice:p%40ss@db.example/intel?sslmode=require', 'postgresql://alice:***@db.example/intel?sslmode=require'],
    // A raw '@' in the password: masked whole, up to the host.
    ['postgres://alice:p@ss@db.example/intel', 'postgres://alice:***@db.example/intel'],
    ['postgres://db.example/intel?user=alice&password=s3cret&sslmode=verify-full', 'postgres://db.example/intel?user=alice&password=***&sslmode=verify-full'],
    // Nothing to mask: as given.
    ['postgres://alice@db.example/intel', 'postgres://alice@db.example/intel'],
    ['postgres:///intel', 'postgres:///intel'],
  ])('%s -> %s', (url, shown) => {
    expect(maskUrl(url)).toBe(shown);
    expect(maskUrl(url)).not.toMatch(/s3cret|p%40ss|p@ss/);
  });
});

describe('parseStoreUrl', () => {
  it('takes the schema out of the URL (the option winning), defaulting to domain_intel', () => {
    expect(parseStoreUrl('postgres://h/db')).toEqual({
      connectionString: 'postgres://h/db',
      schema: 'domain_intel',
      leaseMs: LEASE_MS,
      shown: 'postgres://h/db',
    });
    expect(parseStoreUrl('postgres://u:pw@h/db?schema=team_a&application_name=x')).toEqual({
      connectionString: 'postgres://u:pw@h/db?application_name=x',
      schema: 'team_a',
      leaseMs: LEASE_MS,
      shown: 'postgres://u:***@h/db?schema=team_a&application_name=x',
    });
    expect(parseStoreUrl('postgres://h/db?schema=team_a', 'team_b').schema).toBe('team_b');
  });

  it('takes the lease out of the URL as a duration, 30 s when it gives none', () => {
    expect(LEASE_MS).toBe(30_000);
    expect(parseStoreUrl('postgres://h/db?lease=5s&schema=team_a')).toEqual({
      connectionString: 'postgres://h/db',
      schema: 'team_a',
      leaseMs: 5000,
      shown: 'postgres://h/db?lease=5s&schema=team_a',
    });
    expect(parseStoreUrl('postgres://h/db?lease=2m&sslmode=require').leaseMs).toBe(120_000);
  });

  it('asks pg for libpq’s meaning of sslmode', () => {
    expect(parseStoreUrl('postgres://h/db?sslmode=require').connectionString).toBe('postgres://h/db?sslmode=require&uselibpqcompat=true');
    expect(parseStoreUrl('postgres://h/db?sslmode=require&uselibpqcompat=false').connectionString).toBe('postgres://h/db?sslmode=require&uselibpqcompat=false');
  });

  it.each([
    ['mysql://h/db', /^not a PostgreSQL URL: mysql:\/\/h\/db/],
    ['postgres://u:pw@h/db?schema=Team', /^the schema name "Team" in postgres:\/\/u:\*\*\*@h\/db\?schema=Team is not usable/],
    ['postgres://h/db?schema=a;drop', /schema name "a;drop"/],
    ['postgres://u:pw@h/db?lease=30', /^the lease "30" in postgres:\/\/u:\*\*\*@h\/db\?lease=30 is not usable: a duration of at least 1s/],
    ['postgres://h/db?lease=500ms', /the lease "500ms" .* is not usable/],
  ])('refuses %s in one line', (url, message) => {
    const err = (() => {
      try {
        return parseStoreUrl(url);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain(':pw@');
  });
});

describe('the password file', () => {
  const text = [
    '# team store',
    'db.example:5432:intel:alice:first',
    'db.example:*:*:alice:second',
    '*:*:*:bob:b\\:o\\\\b',
    'localhost:5432:test:carol:local',
  ].join('\n');

  it('gives the first matching line, with * and escapes as libpq reads them', () => {
    expect(pgpassLookup(text, { host: 'db.example', port: 5432, database: 'intel', user: 'alice' })).toBe('first');
    expect(pgpassLookup(text, { host: 'db.example', port: 6543, database: 'other', user: 'alice' })).toBe('second');
    expect(pgpassLookup(text, { host: 'x', port: 1, database: 'y', user: 'bob' })).toBe('b:o\\b');
    // A socket connection matches localhost; a database defaults to the user's name.
    expect(pgpassLookup(text, { host: '/var/run/postgresql', port: 5432, database: 'test', user: 'carol' })).toBe('local');
    expect(pgpassLookup(text, { host: 'db.example', port: 5432, database: 'intel', user: 'dave' })).toBeUndefined();
  });

  it('is read from PGPASSFILE only when others cannot read it, and PGPASSWORD wins', () => {
    const file = path.join(tempDir(), 'pgpass');
    fs.writeFileSync(file, text, { mode: 0o600 });
    const target = { host: 'db.example', port: 5432, database: 'intel', user: 'alice' };
    expect(pgpassPassword(target, { PGPASSFILE: file })).toBe('first');
    expect(pgpassPassword(target, { PGPASSFILE: file, PGPASSWORD: 'env' })).toBe('env');
    fs.chmodSync(file, 0o644);
    expect(pgpassPassword(target, { PGPASSFILE: file })).toBeUndefined();
    expect(pgpassPassword(target, { PGPASSFILE: path.join(file, 'none') })).toBeUndefined();
  });
});
