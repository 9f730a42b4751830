// main(io): the whole CLI as a function of its io. Each call parses with a program of its own and returns
// the exit code; nothing carries over from one call to the next.
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { fakeIo, runInProcess, startInProcess } from '../helpers/cli.js';
import { main } from '../../src/cli/main.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = { NO_COLOR: '1', HOME: '/nonexistent' };

describe('main(io)', () => {
  it('--help and --version write to io.stdout and return 0; the help is wrapped to io.stdout.columns on a terminal', async () => {
    const help = await runInProcess(['--help'], { env, stdoutTTY: true, columns: 100 });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: domain-intel /);
    const wrapped = help.stdout.slice(0, help.stdout.indexOf('Examples:')).split('\n');
    const widest = Math.max(...wrapped.map((l) => l.length));
    expect(widest).toBeLessThanOrEqual(100);
    expect(widest).toBeGreaterThan(80); // not commander's default of 80 off a terminal
    expect(help.stderr).toBe('');
    const version = await runInProcess(['--version'], { env });
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('a usage error is returned as 2, and options of one call never reach the next', async () => {
    const fake = fakeIo(['--json', 'lookup', 'x.com', '--format', 'xml'], { env });
    expect(await main(fake.io)).toBe(2);
    expect(JSON.parse(fake.stderr())).toMatchObject({ code: 'usage', exit: 2 });
    // The same mistake without --json: text, so --json did not stick to a shared program.
    const again = await runInProcess(['lookup', 'x.com', '--format', 'xml'], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error: option '-f, --format <format>' argument 'xml' is invalid/);
  });

  it.runIf(existsSync('/proc/self'))('a cache or settings directory that cannot be made is one line and its exit code, not a hang', async () => {
    const home = mkdtempSync(join(tmpdir(), 'di-main-'));
    // A key of the right shape, so the cache is the only thing that can fail (lookup resolves both at once).
    const key = `di_live_${'0'.repeat(48)}`;
    const cache = await runInProcess(['lookup', 'x.example'], {
      env: { ...env, DOMAIN_INTEL_CONFIG_DIR: home, DOMAIN_INTEL_CACHE_DIR: '/proc/di-nope', DOMAIN_INTEL_API_KEY: key },
    });
    expect(cache.code).toBe(9);
    // The cache and the account state file open at once; whichever fails first speaks for the directory.
    expect(cache.stderr).toMatch(
      /^error: cannot create the (cache|account state) file \/proc\/di-nope\/(cache|state)\.sqlite: .*--no-cache.*DOMAIN_INTEL_CACHE_DIR/,
    );
    expect(cache.stderr.trim().split('\n')).toHaveLength(1);
    const settings = await runInProcess(['config', 'show'], { env: { ...env, DOMAIN_INTEL_CONFIG_DIR: '/proc/di-nope' } });
    expect(settings.code).toBe(2);
    expect(settings.stderr).toMatch(/^error: cannot prepare settings directory \/proc\/di-nope: /);
    rmSync(home, { recursive: true, force: true });
  });

  it.runIf(existsSync('/proc/self'))(
    'under --no-cache, a cache directory that cannot be made costs only what is kept between runs: one warning, the answer',
    async () => {
      const sb = await startSandbox({ port: 0 });
      const home = mkdtempSync(join(tmpdir(), 'di-main-'));
      try {
        const host = sb.hostList()[0] as string;
        const r = await runInProcess(['lookup', host, '--no-cache', '--json'], {
          env: {
            ...env,
            DOMAIN_INTEL_CONFIG_DIR: home,
            DOMAIN_INTEL_CACHE_DIR: '/proc/di-nope',
            DOMAIN_INTEL_API_KEY: sb.key,
            DOMAIN_INTEL_BASE_URL: sb.baseUrl,
          },
        });
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject([{ data: { domain: host } }]);
        const lines = r.stderr.trim().split('\n');
        expect(lines[0]).toMatch(/^warning: cannot create the account state file \/proc\/di-nope\/state\.sqlite: .*going on without it/);
        // The rest is the lookup's own quota line: the state's trouble is said once.
        expect(lines.slice(1)).toEqual([expect.stringMatching(/^quota: /)]);
        expect(sb.charges().total).toBe(1);
      } finally {
        await sb.close();
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  it('a Ctrl-C through io.signals stops a batch in-process: what was answered is written, exit 130', async () => {
    const sb = await startSandbox({ port: 0, rpm: 0, latencyMs: 20 });
    const home = mkdtempSync(join(tmpdir(), 'di-main-'));
    try {
      const hosts = sb.hostList().slice(0, 2000);
      const run = startInProcess(['batch', '-', '--concurrency', '1', '--format', 'ndjson'], {
        env: {
          ...env,
          DOMAIN_INTEL_BASE_URL: sb.baseUrl,
          DOMAIN_INTEL_API_KEY: sb.key,
          DOMAIN_INTEL_CONFIG_DIR: join(home, 'c'),
          DOMAIN_INTEL_CACHE_DIR: join(home, 'd'),
        },
        input: hosts.join('\n'),
      });
      while (sb.charges().total < 200) await new Promise((r) => setTimeout(r, 10));
      run.signal('SIGINT');
      const r = await run.done;
      expect(r.code).toBe(130);
      expect(r.stderr).toMatch(/interrupted: answers so far are cached/);
      const answered = r.stdout
        .split('\n')
        .filter(Boolean)
        .filter((l) => /"status":"(found|missing)"/.test(l));
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.length).toBeLessThan(hosts.length);
      expect(answered.length).toBe(sb.charges().total); // every lookup paid for is written
    } finally {
      rmSync(home, { recursive: true, force: true });
      await sb.close();
    }
  });
});
