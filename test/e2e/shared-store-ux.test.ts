// What a new user of the shared PostgreSQL store met: `cache clear` emptied the team's store unasked (now it
// names the store and asks at a terminal, and refuses without one unless --yes); a TLS mismatch read as a bug
// (every failure to connect is the store's one line and exit 13); `store import` of a directory without a
// cache created one and copied nothing (now refused in one line, nothing created); `cache stats` labelled the
// store's URL a file.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { main } from '../../src/cli/main.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, fakeIo, runInProcess } from '../helpers/cli.js';
import { freshSchema, PG_URL, sql, urlOf } from '../store/postgres-helpers.js';

let sb: Sandbox;
let dir: string;
let input: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 20 });
  dir = mkdtempSync(join(tmpdir(), 'di-shared-ux-'));
  input = join(dir, 'leads.csv');
  writeFileSync(input, `website\n${sb.hostList().slice(0, 8).join('\n')}\n`);
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `cache clear` at a terminal, answering `answer` once the question is on stderr. */
async function clearAtTerminal(env: NodeJS.ProcessEnv, answer: string) {
  const fake = fakeIo(['cache', 'clear'], { env, stdinTTY: true, stderrTTY: true });
  const done = main(fake.io);
  for (let i = 0; i < 500 && !fake.stderr().includes('[y/N]'); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  (fake.io.stdin as unknown as NodeJS.WritableStream).write(`${answer}\r`);
  return { code: await done, stderr: fake.stderr() };
}

describe.skipIf(PG_URL === null)('a new user of the shared store', () => {
  it('cache clear on a shared store names it and asks; without a terminal it refuses unless --yes; the local cache is cleared unasked', async () => {
    const schema = freshSchema();
    const secret = 'N0tPrinted';
    const store = urlOf(schema).replace('://postgres@', `://postgres:${secret}@`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_STORE: store });
    expect((await runInProcess(['batch', input, '-o', join(dir, 'out.csv'), '--quiet'], { env })).code).toBe(EXIT.OK);
    const held = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.answers`))[0]?.n;
    expect(await held()).toBe(8);

    // cache stats names the store as a store, not a file.
    const stats = await runInProcess(['cache', 'stats'], { env, stdoutTTY: true, columns: 200 });
    expect(stats.stdout).toMatch(/^store:\s+postgres:\/\/postgres:\*\*\*@/m);
    expect(stats.stdout).not.toMatch(/^file:/m);

    const piped = await runInProcess(['cache', 'clear'], { env });
    expect(piped.code).toBe(EXIT.USAGE);
    expect(piped.stderr.split('\n').filter(Boolean)).toEqual([
      `error: cache clear would remove every answer and past answer in the shared store ${urlOf(schema).replace('://postgres@', '://postgres:***@')}: give --yes to do it`,
    ]);
    expect(await held()).toBe(8);

    const declined = await clearAtTerminal(env, 'n');
    expect(declined.code).toBe(EXIT.USAGE);
    expect(declined.stderr).toMatch(
      /remove every answer and past answer in the shared store postgres:\/\/postgres:\*\*\*@\S+, for everyone who uses it\? \[y\/N\]/,
    );
    expect(declined.stderr).toContain('nothing removed');
    expect(await held()).toBe(8);

    const agreed = await clearAtTerminal(env, 'y');
    expect(agreed.code, agreed.stderr).toBe(EXIT.OK);
    expect(agreed.stderr).toContain('removed 8 cached answers');
    expect(await held()).toBe(0);
    for (const r of [stats.stdout, piped.stderr, declined.stderr, agreed.stderr]) expect(r).not.toContain(secret);

    // The local cache is one's own: cleared unasked, and labelled a file.
    const local = { ...env, DOMAIN_INTEL_STORE: undefined };
    expect((await runInProcess(['batch', input, '-o', join(dir, 'local.csv'), '--quiet'], { env: local })).code).toBe(EXIT.OK);
    expect((await runInProcess(['cache', 'stats'], { env: local, stdoutTTY: true, columns: 200 })).stdout).toMatch(/^file:\s+\S+cache\.sqlite/m);
    const cleared = await runInProcess(['cache', 'clear'], { env: local });
    expect(cleared.code, cleared.stderr).toBe(EXIT.OK);
    expect(cleared.stderr).toContain('removed 8 cached answers');

    // Help says the cache commands act on the store in use, and offers --yes.
    expect((await runInProcess(['--help'], { env })).stdout).toMatch(/cache\s+the answers kept in the store in use/);
    expect((await runInProcess(['cache', 'clear', '--help'], { env })).stdout).toMatch(/-y, --yes/);
  });

  it('any failure to connect is the store one line and exit 13: TLS refused, unknown database, unknown role', async () => {
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const schema = freshSchema();
    const base = new URL(PG_URL as string);
    const other = (change: (u: URL) => void) => {
      const u = new URL(base.href);
      change(u);
      return u.href.replace(/\?.*$/, '');
    };
    const urls = [
      `${urlOf(schema)}&sslmode=require`,
      `${urlOf(schema)}&sslmode=verify-full`,
      `${other((u) => (u.pathname = '/di_no_such_database'))}?schema=${schema}`,
      `${other((u) => (u.username = 'di_no_such_role'))}?schema=${schema}`,
    ];
    for (const url of urls) {
      const r = await runInProcess(['cache', 'stats', '--store', url], { env });
      expect(r.code, `${url}: ${r.stderr}`).toBe(EXIT.STORE);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines, url).toHaveLength(1);
      expect(lines[0]).toMatch(/^error: cannot use the store postgres:\/\/\S+: \S/);
      expect(r.stderr).not.toMatch(/unexpected failure|--debug/);
    }
  });

  it('store import refuses a directory without a cache, and a file, in one line, creating nothing', async () => {
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_STORE: urlOf(freshSchema()) });
    const empty = mkdtempSync(join(dir, 'empty-'));
    const none = await runInProcess(['store', 'import', empty], { env });
    expect(none.code).toBe(EXIT.USAGE);
    expect(none.stderr.split('\n').filter(Boolean)).toEqual([`error: no domain-intel cache in ${empty} (it holds no cache.sqlite)`]);
    expect(none.stdout).toBe('');
    expect(readdirSync(empty)).toEqual([]);

    const file = await runInProcess(['store', 'import', input], { env });
    expect(file.code).toBe(EXIT.USAGE);
    expect(file.stderr.split('\n').filter(Boolean)).toEqual([
      `error: no domain-intel cache in ${input}: it is a file; give the directory that holds cache.sqlite (such as ${dir})`,
    ]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.sqlite'))).toEqual([]);
  });

  it("store import reads the local cache without writing to it: an older file, with a killed run's answer not merged yet", async () => {
    const schema = freshSchema();
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    expect((await runInProcess(['batch', input, '-o', join(dir, 'mine.csv'), '--quiet'], { env })).code).toBe(EXIT.OK);
    const cacheDir = env.DOMAIN_INTEL_CACHE_DIR as string;
    // What a killed run leaves: a newer answer of one host in the journal; and the file of an older build.
    const [first] = sb.hostList();
    const db = new Sqlite(join(cacheDir, 'cache.sqlite'));
    db.prepare("INSERT INTO recent (endpoint, host, status, body, fetched_at) VALUES ('domain', ?, 'missing', NULL, ?)").run(first, Date.now() + 1000);
    db.pragma('user_version = 1');
    db.close();
    const snapshot = () =>
      readdirSync(cacheDir)
        .sort()
        .map(
          (f) =>
            `${f} ${createHash('sha256')
              .update(readFileSync(join(cacheDir, f)))
              .digest('hex')}`,
        );
    const before = snapshot();

    const imported = await runInProcess(['store', 'import', '--store', urlOf(schema)], { env });
    expect(imported.code, imported.stderr).toBe(EXIT.OK);
    // Eight answers, one of them replaced by the journal's: nine copied in.
    expect(JSON.parse(imported.stdout)).toMatchObject({ answers: 9 });
    expect(await sql(`SELECT count(*)::int AS n FROM ${schema}.answers`)).toEqual([{ n: 8 }]);
    // Unchanged, but for the index SQLite keeps beside a file it reads (-shm) and an empty write-ahead log.
    const sidecars = (f: string) => /-(shm|wal) /.test(f);
    expect(snapshot().filter((f) => !sidecars(f))).toEqual(before.filter((f) => !sidecars(f)));
    expect(snapshot().filter((f) => f.startsWith('cache.sqlite-wal ') && !f.endsWith(createHash('sha256').digest('hex')))).toEqual([]);
    // The journal's answer is the current one in the shared store; the one it replaced, a past answer there.
    expect(await sql(`SELECT status FROM ${schema}.answers WHERE endpoint = 'domain' AND host = $1`, [first])).toEqual([{ status: 'missing' }]);
    expect(await sql(`SELECT status FROM ${schema}.history WHERE endpoint = 'domain' AND host = $1`, [first])).toEqual([{ status: 'found' }]);
  });
});
