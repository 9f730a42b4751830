// Every command against the sandbox over real HTTP, run in-process through main(io) (test/helpers/cli.ts);
// a few runs spawn the built bin (bin/domain-intel.js -> dist/cli.js) the way a user or a cron job does, to
// check the process around main. Every run gets its own config and cache directories; stdout, stderr and
// the exit code are all checked, and the sandbox is asked what was requested and what was charged.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runInProcess } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'domain-intel.js');
const PKG_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let tempRoot: string;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
    throw new Error('dist/cli.js is missing: run `npm run build:js` first (`npm test` bundles before running the tests)');
  }
  tempRoot = mkdtempSync(join(tmpdir(), 'di-commands-'));
});
afterAll(() => {
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
});

interface Home {
  configDir: string;
  cacheDir: string;
}

/** A fresh, empty pair of config and cache directories. */
function freshHome(): Home {
  const dir = mkdtempSync(join(tempRoot, 'home-'));
  return { configDir: join(dir, 'config'), cacheDir: join(dir, 'cache') };
}

/** The environment of one run: no inherited key, base URL, plan or colour; settings and cache in `home`. */
function envFor(home: Home, sb: Sandbox | null, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DOMAIN_INTEL_API_KEY', 'DOMAIN_INTEL_BASE_URL', 'DOMAIN_INTEL_PLAN', 'DOMAIN_INTEL_RPM', 'FORCE_COLOR', 'NO_COLOR']) delete env[name];
  env.DOMAIN_INTEL_CONFIG_DIR = home.configDir;
  env.DOMAIN_INTEL_CACHE_DIR = home.cacheDir;
  env.NO_COLOR = '1';
  if (sb) {
    env.DOMAIN_INTEL_BASE_URL = sb.baseUrl;
    env.DOMAIN_INTEL_API_KEY = sb.key;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ANSI = /\x1b\[/;
const STACK_LINE = /^\s{4}at /m;

/** Whatever the command, piped stdout carries no ANSI escape and stderr no stack trace: checked on every run. */
function checked(args: string[], r: Result): Result {
  expect(r.stdout, `stdout of ${args.join(' ')}`).not.toMatch(ANSI);
  expect(r.stderr, `stderr of ${args.join(' ')}`).not.toMatch(STACK_LINE);
  return r;
}

/** Runs the CLI in-process to its end. */
async function runCli(args: string[], opts: { env: NodeJS.ProcessEnv; input?: string }): Promise<Result> {
  return checked(args, await runInProcess(args, opts));
}

/** Runs the built bin in a process of its own to its end. */
function spawnCli(args: string[], opts: { env: NodeJS.ProcessEnv; input?: string }): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: opts.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (!child.stdout || !child.stderr) throw new Error('stdout and stderr are piped');
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    child.on('close', (code) => resolve(checked(args, { code, stdout, stderr })));
  });
}

/** Lines of stderr, without the empty last one. */
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const QUOTA_LINE = /^quota: [\d,]+ \/ [\d,]+ lookups left/m;
/** fetched_at: ISO 8601 UTC to the second (issue 14). */
const ISO_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const NOT_HELD = 'not-held-anywhere.example';

/** The last stderr line parsed as the --json error object. */
function jsonError(r: Result): { error: string; code: string; host: string | null; exit: number } {
  const last = lines(r.stderr).at(-1) ?? '';
  const obj = JSON.parse(last) as Record<string, unknown>;
  expect(Object.keys(obj)).toEqual(expect.arrayContaining(['error', 'code', 'host', 'exit']));
  expect(typeof obj.error).toBe('string');
  expect(typeof obj.code).toBe('string');
  expect(typeof obj.exit).toBe('number');
  return obj as { error: string; code: string; host: string | null; exit: number };
}

// ---------------------------------------------------------------------------------------------------------

describe('against a sandbox with the key in the environment', () => {
  let sb: Sandbox;
  let held: string[];
  let trafficHost: string;
  let wwwHost: string;
  let apex: string;
  let home: Home;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, rpm: 0, hosts: 1000 });
    const hosts = sb.hostList();
    held = hosts.filter((h) => sb.dataset.profile(h)?.technologies !== null).slice(0, 10);
    trafficHost = hosts.find((h) => (sb.dataset.traffic(h)?.history.length ?? 0) >= 6) as string;
    wwwHost = hosts.find((h) => h.startsWith('www.') && sb.dataset.employees(h) !== null) as string;
    apex = sb.dataset.apexOf(wwwHost) as string;
    expect(held).toHaveLength(10);
    expect(trafficHost).toBeDefined();
    expect(wwwHost).toBeDefined();
  });
  afterAll(() => sb?.close());
  beforeEach(() => {
    sb.resetCounters();
    home = freshHome();
    env = envFor(home, sb);
  });

  describe('lookup', () => {
    it('prints the profile as JSON when piped, and the quota on stderr (the bin, in a process)', async () => {
      const host = held[0] as string;
      const r = await spawnCli(['lookup', host], { env });
      expect(r.code).toBe(0);
      // One host is the same array of row envelopes as many (issue 16): `input` keyed as CSV names the column.
      expect(JSON.parse(r.stdout)).toEqual([
        { line: 1, input: { input: host }, status: 'found', host, reason: null, data: sb.dataset.profile(host), fetched_at: expect.stringMatching(ISO_SECOND) },
      ]);
      expect(r.stderr).toMatch(QUOTA_LINE);
      expect(r.stderr).toContain(`${sb.charges().remaining.toLocaleString('en-US')} / 50,000 lookups left`);
      expect(sb.requests().map((q) => q.operation)).toEqual(['domain']);
      expect(sb.charges().total).toBe(1);
    });

    it('--format csv: a header and one row', async () => {
      const host = held[1] as string;
      const r = await runCli(['lookup', host, '--format', 'csv'], { env });
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out).toHaveLength(2);
      expect(out[0]).toMatch(/^input,status,host,reason,resolves,technologies,/);
      expect(out[1]).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')},found,${host.replace(/\./g, '\\.')},`));
      expect(r.stderr).toMatch(QUOTA_LINE);
    });

    it('--format ndjson: one line of JSON', async () => {
      const host = held[2] as string;
      const r = await runCli(['lookup', host, '--format', 'ndjson'], { env });
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out).toHaveLength(1);
      expect(JSON.parse(out[0] as string)).toEqual({
        line: 1,
        input: { input: host },
        status: 'found',
        host,
        reason: null,
        data: sb.dataset.profile(host),
        fetched_at: expect.stringMatching(ISO_SECOND),
      });
    });

    it('--quiet hides the quota line', async () => {
      const r = await runCli(['lookup', held[3] as string, '--quiet'], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect((JSON.parse(r.stdout) as { data: { domain: string } }[])[0]?.data.domain).toBe(held[3]);
    });

    it('a host that is not held: exit 8, one error line, its missing row on stdout (nothing under a table)', async () => {
      const r = await runCli(['lookup', NOT_HELD], { env });
      expect(r.code).toBe(8);
      // The answer is data too, in the shape a list writes it: a script reads status, not an empty stdout.
      expect(JSON.parse(r.stdout)).toEqual([
        { line: 1, input: { input: NOT_HELD }, status: 'missing', host: NOT_HELD, reason: null, data: null, fetched_at: expect.stringMatching(ISO_SECOND) },
      ]);
      const errors = lines(r.stderr).filter((l) => !QUOTA_LINE.test(l));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^error: /);
      expect(errors[0]).toContain(NOT_HELD);
      expect(errors[0]).toMatch(/not held/);
      expect(sb.charges().total).toBe(1); // a 404 still spends

      const quiet = await runCli(['lookup', NOT_HELD, '--quiet'], { env });
      expect(quiet.code).toBe(8);
      expect(lines(quiet.stderr)).toHaveLength(1);
      expect(sb.charges().total).toBe(1); // the miss was cached

      const table = await runCli(['lookup', NOT_HELD, '--format', 'table'], { env });
      expect(table.code).toBe(8);
      expect(table.stdout).toBe('');
    });

    it('a value that is not a host: exit 2, the message names it, nothing sent', async () => {
      const r = await runCli(['lookup', 'not a host'], { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toContain('"not a host"');
      expect(sb.requests()).toEqual([]);
    });

    it('three hosts go in ONE batch request', async () => {
      const hosts = held.slice(4, 7);
      const r = await runCli(['lookup', ...hosts], { env });
      expect(r.code).toBe(0);
      const rows = JSON.parse(r.stdout) as { host: string; status: string; data: { domain: string } }[];
      expect(rows.map((x) => [x.host, x.status])).toEqual(hosts.map((h) => [h, 'found']));
      expect(rows.map((x) => x.data)).toEqual(hosts.map((h) => sb.dataset.profile(h)));
      const requests = sb.requests();
      expect(requests).toHaveLength(1);
      expect(requests[0]?.operation).toBe('batch');
      expect(requests[0]?.hosts).toEqual(hosts);
      expect(sb.charges().total).toBe(3);
    });

    it('the same host again costs nothing and says it came from the cache; --refresh spends 1', async () => {
      const host = held[7] as string;
      const first = await runCli(['lookup', host], { env });
      expect(first.code).toBe(0);
      expect(sb.charges().total).toBe(1);

      const second = await runCli(['lookup', host], { env });
      expect(second.code).toBe(0);
      expect(sb.charges().total).toBe(1);
      expect(sb.requests()).toHaveLength(1);
      expect(second.stderr).toMatch(/from the cache/);
      expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));

      const refreshed = await runCli(['lookup', host, '--refresh'], { env });
      expect(refreshed.code).toBe(0);
      expect(sb.charges().total).toBe(2);
      expect(refreshed.stderr).not.toMatch(/from the cache/);
      expect((JSON.parse(refreshed.stdout) as { data: unknown }[])[0]?.data).toEqual(sb.dataset.profile(host));
    });
  });

  describe('traffic and employees', () => {
    it('traffic: JSON with the history', async () => {
      const r = await runCli(['traffic', trafficHost], { env });
      expect(r.code).toBe(0);
      const [row, ...more] = JSON.parse(r.stdout) as { host: string; status: string; data: { history: unknown[] }; fetched_at: string }[];
      expect(more).toEqual([]);
      expect(row?.host).toBe(trafficHost);
      expect(row?.status).toBe('found');
      expect(row?.data.history.length).toBeGreaterThanOrEqual(6);
      expect(row?.data).toEqual(sb.dataset.traffic(trafficHost));
      expect(row?.fetched_at).toMatch(ISO_SECOND);
      expect(sb.charges().byEndpoint).toEqual({ traffic: 1 });
    });

    it('traffic --format table shows the month labels', async () => {
      const history = sb.dataset.traffic(trafficHost)?.history ?? [];
      const r = await runCli(['traffic', trafficHost, '--format', 'table'], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(trafficHost);
      expect(r.stdout).toContain(history[0]?.month);
      expect(r.stdout).toContain(history.at(-1)?.month);
      expect(() => JSON.parse(r.stdout)).toThrow();
    });

    it('employees of www.<apex> gives the figure of the apex', async () => {
      const r = await runCli(['employees', wwwHost], { env });
      expect(r.code).toBe(0);
      const rows = JSON.parse(r.stdout) as { host: string; data: { host: string; apex: string; estimated_employees: unknown; as_of: string } }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]?.host).toBe(wwwHost);
      const e = rows[0]!.data;
      const expected = sb.dataset.employees(apex);
      expect(e.host).toBe(wwwHost);
      expect(e.apex).toBe(apex);
      expect(e.estimated_employees).toEqual(expected?.estimated_employees);
      expect(e.as_of).toBe(expected?.as_of);
      expect(sb.charges().byEndpoint).toEqual({ employees: 1 });
    });

    it('a table on a pipe carries no colour even without NO_COLOR', async () => {
      const plain = envFor(home, sb, { NO_COLOR: undefined });
      const r = await runCli(['traffic', trafficHost, '--format', 'table'], { env: plain });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(trafficHost);
      const p = await runCli(['lookup', held[8] as string, '--format', 'table'], { env: plain });
      expect(p.code).toBe(0);
      expect(p.stdout).toContain(held[8]);
      expect(p.stderr).not.toMatch(ANSI);
    });

    it('in-process, stderr a terminal and stdout a pipe: the table has no colour, the quota line on stderr has', async () => {
      const env = envFor(home, sb, { NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: 'xterm' });
      const r = await runInProcess(['traffic', trafficHost, '--format', 'table'], { env, stderrTTY: true });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(trafficHost);
      expect(r.stdout).not.toMatch(ANSI);
      expect(r.stderr).toMatch(/lookups left/);
      expect(r.stderr).toMatch(ANSI);
    });

    it('in-process, stdout a terminal: a single lookup is a table (not JSON), in colour unless NO_COLOR', async () => {
      const host = held[5] as string;
      const coloured = await runInProcess(['lookup', host], { env: envFor(home, sb, { NO_COLOR: undefined, TERM: 'xterm' }), stdoutTTY: true, columns: 100 });
      expect(coloured.code).toBe(0);
      expect(() => JSON.parse(coloured.stdout)).toThrow();
      expect(coloured.stdout).toContain(host);
      expect(coloured.stdout).toMatch(ANSI);
      const plain = await runInProcess(['lookup', host], { env, stdoutTTY: true, columns: 100 });
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain(host);
      expect(plain.stdout).not.toMatch(ANSI);
    });

    // stderr on a terminal, stdout into a pipe: the table's colour follows stdout, not stderr.
    it.skipIf(!existsSync('/usr/bin/script'))('a table into a pipe has no colour while stderr is a terminal', async () => {
      const env = envFor(home, sb, { NO_COLOR: undefined, FORCE_COLOR: undefined });
      const host = held[9] as string;
      const cmd = `'${process.execPath}' '${BIN}' lookup ${host} --format table --refresh | od -c | grep -c 033 || true`;
      const r = await new Promise<string>((resolve) => {
        const child = spawn('/usr/bin/script', ['-qec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', () => resolve(out));
      });
      // The only output on the terminal besides the count is stderr's (coloured) quota line.
      expect(r).toMatch(/\b0\s*$/);
      expect(r).toMatch(/lookups left/);
    });
  });

  describe('tech and catalog (free)', () => {
    it('tech <name> prints the count and spends nothing; a "/" in the name travels encoded', async () => {
      const r = await runCli(['tech', 'TCP/IP Stack'], { env });
      expect(r.code).toBe(0);
      // An array of one record, as every command's JSON is an array.
      expect(JSON.parse(r.stdout)).toEqual([sb.dataset.technology('TCP/IP Stack')]);
      expect(sb.charges().total).toBe(0);
      expect(sb.requests().map((q) => q.url)).toEqual(['/api/v1/technology/TCP%2FIP%20Stack']);
    });

    it('a near-miss name exits 8 and suggests the right one', async () => {
      const r = await runCli(['tech', 'Wordpres'], { env });
      expect(r.code).toBe(8);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/did you mean "WordPress"/);
      expect(sb.charges().total).toBe(0);
    });

    it('catalog --format json is the array of {category, tech, domains}, as NDJSON and CSV write them; cached; --refresh fetches', async () => {
      const first = await runCli(['catalog', '--format', 'json'], { env });
      expect(first.code).toBe(0);
      const categories = JSON.parse(first.stdout) as { category: string; tech: string; domains: number }[];
      const flat = sb.dataset.catalog().flatMap((c) => c.technologies.map((t) => ({ category: c.category, tech: t.tech, domains: t.domains })));
      expect(categories).toEqual(flat);
      const ndjson = await runCli(['catalog', '--format', 'ndjson'], { env });
      expect(lines(ndjson.stdout).map((l) => JSON.parse(l))).toEqual(flat);
      expect(sb.requests()).toHaveLength(1);

      const second = await runCli(['catalog', '--format', 'json'], { env });
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual(categories);
      expect(second.stderr).toBe(''); // where it came from: only under --verbose (test/e2e/names.test.ts)
      expect(sb.requests()).toHaveLength(1);

      const refreshed = await runCli(['catalog', '--refresh', '--format', 'json'], { env });
      expect(refreshed.code).toBe(0);
      expect(sb.requests()).toHaveLength(2);
      expect(sb.requests().map((q) => q.operation)).toEqual(['catalog', 'catalog']);
      expect(sb.charges().total).toBe(0);
    });

    it('catalog --category <slug> shows only that category; an unknown slug exits 2 with a suggestion', async () => {
      const r = await runCli(['catalog', '--category', 'cms', '--format', 'json'], { env });
      expect(r.code).toBe(0);
      const records = JSON.parse(r.stdout) as { category: string; tech: string }[];
      const cms = sb.dataset.catalog().find((c) => c.category === 'cms');
      expect(records).toEqual(cms?.technologies.map((t) => ({ category: 'cms', ...t })));

      const bad = await runCli(['catalog', '--category', 'cmss'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/did you mean cms/);
    });
  });

  describe('quota', () => {
    it('before any lookup there is none; after one it prints the last quota with its age', async () => {
      const none = await runCli(['quota'], { env });
      expect(none.code).toBe(0);
      expect(none.stdout).toBe('');
      expect(none.stderr).toMatch(/no quota seen yet/);

      expect((await runCli(['lookup', held[9] as string], { env })).code).toBe(0);
      const r = await runCli(['quota'], { env });
      expect(r.code).toBe(0);
      const { accounts } = JSON.parse(r.stdout) as { accounts: { limit: number; remaining: number; reset: string; age_ms: number; seenAt: number }[] };
      expect(accounts).toHaveLength(1);
      const q = accounts[0] as (typeof accounts)[number];
      expect(q).toMatchObject({ baseUrl: sb.baseUrl, key: 'DOMAIN_INTEL_API_KEY', inUse: true, resetPassed: false, trusted: true });
      expect(r.stdout).not.toContain(sb.key);
      expect(q.limit).toBe(50_000);
      expect(q.remaining).toBe(sb.charges().remaining);
      expect(q.age_ms).toBeGreaterThanOrEqual(0);
      expect(q.age_ms).toBeLessThan(60_000);
      expect(Math.abs(Date.now() - q.age_ms - q.seenAt)).toBeLessThan(60_000);
      expect(sb.requests()).toHaveLength(1); // quota asked nothing of the service
    });

    it('is remembered under --no-cache too, and never written to the settings file', async () => {
      expect((await runCli(['lookup', '--no-cache', held[8] as string], { env })).code).toBe(0);
      const r = await runCli(['quota'], { env });
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { accounts: { remaining: number }[] }).accounts[0]?.remaining).toBe(sb.charges().remaining);
      expect(existsSync(join(home.configDir, 'config.json'))).toBe(false);
      expect(existsSync(join(home.cacheDir, 'state.sqlite'))).toBe(true); // the account's state, kept beside the cache
    });
  });

  describe('config', () => {
    it('set plan business, show it as stored; the environment overrides it; a bad plan exits 2', async () => {
      const set = await runCli(['config', 'set', 'plan', 'business'], { env });
      expect(set.code).toBe(0);

      const show = await runCli(['config', 'show'], { env });
      expect(show.code).toBe(0);
      const shown = JSON.parse(show.stdout) as { plan: string; sources: { plan: string }; key: { masked: string } | null };
      expect(shown.plan).toBe('business');
      expect(shown.sources.plan).toBe('stored');
      expect(show.stdout).not.toContain(sb.key);

      const overridden = await runCli(['config', 'show'], { env: { ...env, DOMAIN_INTEL_PLAN: 'pro' } });
      expect(overridden.code).toBe(0);
      const o = JSON.parse(overridden.stdout) as { plan: string; sources: { plan: string } };
      expect(o.plan).toBe('pro');
      expect(o.sources.plan).toBe('env');

      const bad = await runCli(['config', 'set', 'plan', 'nonsense'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('nonsense');
      const after = JSON.parse((await runCli(['config', 'show'], { env })).stdout) as { plan: string };
      expect(after.plan).toBe('business');
    });
  });

  describe('--json errors', () => {
    it('a failing command prints {error, code, host, exit} on stderr and exits with `exit`', async () => {
      const missing = await runCli(['--json', 'lookup', NOT_HELD], { env });
      expect(missing.code).toBe(8);
      const m = jsonError(missing);
      expect(m).toMatchObject({ code: 'not_found', host: NOT_HELD, exit: 8 });

      const invalid = await runCli(['lookup', 'not a host', '--json'], { env });
      expect(invalid.code).toBe(2);
      expect(jsonError(invalid)).toMatchObject({ exit: 2 });

      const tech = await runCli(['--json', 'tech', 'Wordpres'], { env });
      expect(tech.code).toBe(8);
      const t = jsonError(tech);
      expect(t).toMatchObject({ code: 'not_found', host: 'Wordpres', exit: 8 });
      expect(t.error).toMatch(/did you mean "WordPress"/);

      const nokey = await runCli(['--json', 'lookup', held[0] as string], { env: envFor(freshHome(), null, { DOMAIN_INTEL_BASE_URL: sb.baseUrl }) });
      expect(nokey.code).toBe(6);
      expect(jsonError(nokey)).toMatchObject({ code: 'invalid_key', exit: 6 });
    });
  });

  describe('usage errors', () => {
    it('an unknown command suggests the right one (the bin, in a process)', async () => {
      const r = await spawnCli(['lokup', 'x.com'], { env });
      expect(r.code).toBe(2); // the documented usage code, not commander's own 1
      expect(r.stderr).toMatch(/unknown command 'lokup'/);
      expect(r.stderr).toMatch(/Did you mean lookup\?/);
      expect(r.stdout).toBe('');
    });

    it('commander usage errors exit 2, and are one JSON object under --json', async () => {
      const option = await runCli(['lookup', '--formt', 'json', 'x.com'], { env });
      expect(option.code).toBe(2);
      expect(option.stderr).toMatch(/unknown option '--formt'[\s\S]*Did you mean --format\?/);
      const json = await runCli(['--json', 'lookup', 'x.com', '--format', 'xml'], { env });
      expect(json.code).toBe(2);
      expect(lines(json.stderr)).toHaveLength(1);
      expect(JSON.parse(json.stderr)).toMatchObject({ code: 'usage', host: null, exit: 2, error: expect.stringMatching(/'xml' is invalid/) });
      const help = await runCli(['lookup', '--help'], { env });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: domain-intel lookup/);
      expect(sb.requests()).toEqual([]);
    });

    it('--base-url with plain http to a remote host exits 2 and sends nothing', async () => {
      const r = await runCli(['--base-url', 'http://example.com/api/v1', 'lookup', 'x.com'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/plain http/);
      expect(r.stderr).not.toContain(sb.key);
      expect(sb.requests()).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('keys', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, rpm: 0, hosts: 200 });
  });
  afterAll(() => sb?.close());

  /** Env with the sandbox's base URL but no key: keys come from the store. */
  const storeEnv = (home: Home): NodeJS.ProcessEnv => envFor(home, null, { DOMAIN_INTEL_BASE_URL: sb.baseUrl });

  it('add reads the key from stdin and stores it 0600; list shows it masked', async () => {
    const home = freshHome();
    const env = storeEnv(home);
    const add = await runCli(['keys', 'add', 'work'], { env, input: `${sb.key}\n` });
    expect(add.code).toBe(0);
    expect(add.stdout).toBe('');
    expect(add.stderr).toMatch(/stored key "work"/);
    expect(add.stderr).not.toContain(sb.key);

    const file = join(home.configDir, 'config.json');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const list = await runCli(['keys', 'list'], { env });
    expect(list.code).toBe(0);
    const row = lines(list.stdout).find((l) => l.includes('work'));
    expect(row).toBeDefined();
    expect(row).toMatch(/^\* work\s/);
    expect(row?.trimEnd().endsWith(sb.key.slice(-4))).toBe(true);
    expect(list.stdout).not.toContain(sb.key);
    expect(list.stdout).not.toContain(sb.key.slice(8, 40));

    // The stored key is the one in use.
    const verify = await runCli(['keys', 'verify'], { env });
    expect(verify.code).toBe(0);
    expect(verify.stderr).toMatch(/accepted/);
    expect(sb.requests().at(-1)?.authorization).toBe(`Bearer ${sb.key}`);
  });

  it('add refuses a malformed key with exit 2 and never echoes it', async () => {
    const home = freshHome();
    const bad = 'di_live_thisIsNotAValidSecret1234';
    const r = await runCli(['keys', 'add', 'bad'], { env: storeEnv(home), input: `${bad}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a valid API key/);
    expect(r.stdout).not.toContain(bad);
    expect(r.stderr).not.toContain(bad);
    expect(r.stderr).not.toContain('thisIsNotAValidSecret');
    const list = await runCli(['keys', 'list'], { env: storeEnv(home) });
    expect(list.stdout).toBe('');
    expect(list.stderr).toMatch(/no stored keys/);
  });

  it('use switches the active key; remove forgets one', async () => {
    const home = freshHome();
    const env = storeEnv(home);
    const second = sb.newKey();
    expect((await runCli(['keys', 'add', 'work'], { env, input: sb.key })).code).toBe(0);
    expect((await runCli(['keys', 'add', 'second'], { env, input: second })).code).toBe(0);

    let list = lines((await runCli(['keys', 'list'], { env })).stdout);
    expect(list.find((l) => l.includes('work'))).toMatch(/^\* /);
    expect(list.find((l) => l.includes('second'))).toMatch(/^ {2}second/);

    const use = await runCli(['keys', 'use', 'second'], { env });
    expect(use.code).toBe(0);
    list = lines((await runCli(['keys', 'list'], { env })).stdout);
    expect(list.find((l) => l.includes('second'))).toMatch(/^\* second\s.*…/);
    expect(list.find((l) => l.includes('second'))?.endsWith(second.slice(-4))).toBe(true);
    expect(list.find((l) => l.includes('work'))).toMatch(/^ {2}work/);

    sb.resetCounters();
    expect((await runCli(['keys', 'verify'], { env })).code).toBe(0);
    expect(sb.requests()[0]?.authorization).toBe(`Bearer ${second}`);

    const unknown = await runCli(['keys', 'use', 'nope'], { env });
    expect(unknown.code).toBe(2);

    const remove = await runCli(['keys', 'remove', 'second'], { env });
    expect(remove.code).toBe(0);
    list = lines((await runCli(['keys', 'list'], { env })).stdout);
    expect(list.some((l) => l.includes('second'))).toBe(false);
    expect(list.find((l) => l.includes('work'))).toMatch(/^\* work/);
  });

  it('verify: exit 0 with a valid key, exit 6 with a revoked one, naming the refused key and how to replace it', async () => {
    const home = freshHome();
    const env = storeEnv(home);
    const key = sb.newKey();
    expect((await runCli(['keys', 'add', 'doomed'], { env, input: key })).code).toBe(0);
    sb.resetCounters();
    const ok = await runCli(['keys', 'verify'], { env });
    expect(ok.code).toBe(0);
    expect(sb.charges().total).toBe(0); // verify is free

    sb.revokeKey(key);
    const stored = await runCli(['keys', 'verify'], { env });
    expect(stored.code).toBe(6);
    expect(stored.stderr).toMatch(/stored key "doomed" was refused/);
    expect(stored.stderr).toMatch(/keys add/);
    expect(stored.stderr).not.toContain(key);

    const fromEnv = await runCli(['keys', 'verify'], { env: { ...env, DOMAIN_INTEL_API_KEY: key } });
    expect(fromEnv.code).toBe(6);
    expect(fromEnv.stderr).toMatch(/DOMAIN_INTEL_API_KEY was refused/);
    expect(fromEnv.stderr).not.toContain(key);
  });

  it('with no key at all, lookup exits 6 and says how to add one, sending nothing', async () => {
    sb.resetCounters();
    const r = await runCli(['lookup', 'x.com'], { env: storeEnv(freshHome()) });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no API key/);
    expect(r.stderr).toMatch(/keys add/);
    expect(r.stderr).toMatch(/DOMAIN_INTEL_API_KEY/);
    expect(sb.requests()).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('402: the quota is spent', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, rpm: 0, hosts: 200 });
    sb.setRemaining(0);
  });
  afterAll(() => sb?.close());

  it('lookup exits 5 with a message about the quota', async () => {
    const home = freshHome();
    const host = sb.hostList()[0] as string;
    const r = await runCli(['lookup', host], { env: envFor(home, sb) });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/lookups are spent/);
    expect(r.stderr).toMatch(/quota/);
    expect(r.stderr).toMatch(/renew/);
    expect(sb.charges().total).toBe(0);

    const json = await runCli(['--json', 'lookup', host], { env: envFor(home, sb) });
    expect(json.code).toBe(5);
    expect(jsonError(json)).toMatchObject({ code: 'quota_exhausted', host, exit: 5 });
  });

  it('batch stopped by the quota exits 5; under --json it says so as a JSON object', async () => {
    const home = freshHome();
    const hosts = sb.hostList().slice(0, 3).join('\n');
    const r = await runCli(['batch', '-', '--format', 'ndjson', '--allow-partial'], { env: envFor(home, sb), input: hosts });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/stopped by the monthly quota: /);
    const json = await runCli(['--json', 'batch', '-', '--format', 'ndjson', '--allow-partial', '--quiet'], { env: envFor(home, sb), input: hosts });
    expect(json.code).toBe(5);
    expect(lines(json.stderr)).toHaveLength(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ code: 'quota_exhausted', host: null, exit: 5 });
    expect(lines(json.stdout).map((l) => (JSON.parse(l) as { status: string }).status)).toEqual(['error', 'error', 'error']);
    expect(sb.charges().total).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('help and version (no service needed)', () => {
  const COMMANDS = [
    ['lookup'],
    ['batch'],
    ['traffic'],
    ['employees'],
    ['tech'],
    ['catalog'],
    ['keys'],
    ['keys', 'add'],
    ['keys', 'list'],
    ['keys', 'use'],
    ['keys', 'remove'],
    ['keys', 'verify'],
    ['config'],
    ['config', 'show'],
    ['config', 'set'],
    ['config', 'unset'],
    ['quota'],
    ['cache'],
    ['cache', 'stats'],
    ['cache', 'clear'],
    ['cache', 'prune'],
    ['sandbox'],
    ['completion'],
  ];

  it('--help of every command ends with an Examples: section of real invocations', async () => {
    const env = envFor(freshHome(), null);
    const results = await Promise.all(COMMANDS.map((cmd) => runCli([...cmd, '--help'], { env })));
    results.forEach((r, i) => {
      const cmd = COMMANDS[i] as string[];
      const what = cmd.join(' ');
      expect(r.code, what).toBe(0);
      expect(r.stdout, what).toMatch(new RegExp(`^Usage: domain-intel ${what}`));
      const out = lines(r.stdout);
      const at = out.lastIndexOf('Examples:');
      expect(at, `${what}: has an Examples: section`).toBeGreaterThan(0);
      expect(out.indexOf('Options:'), what).toBeLessThan(at);
      // Nothing but the examples (and notes) after it: no further section heading.
      expect(
        out.slice(at + 1).filter((l) => /^(Options|Commands|Arguments|Global options|Usage):/.test(l)),
        what,
      ).toEqual([]);
      expect(out[at + 1], what).toMatch(new RegExp(`^ {2}domain-intel ${cmd[0]}\\b`));
    });
  });

  it('the program --help ends with examples too', async () => {
    const r = await runCli(['--help'], { env: envFor(freshHome(), null) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nExamples:\n {2}domain-intel lookup /);
  });

  it('--version prints the package.json version (the bin, in a process)', async () => {
    const r = await spawnCli(['--version'], { env: envFor(freshHome(), null) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(PKG_VERSION);
    expect(r.stderr).toBe('');
  });
});
