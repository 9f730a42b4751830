// Names and messages (issue 16): a name typed in another case is taken when exactly one matches, and said;
// `keys use` names the real command; the sandbox's banner is two lines to paste and says its rate; a base URL
// is echoed as typed with the URL it surely meant; the catalog says where it came from only when it matters.
// In-process through main(io), against the sandbox over real HTTP.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { caseMatch } from '../../src/api/closest.js';
import { main } from '../../src/cli/main.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, fakeIo, runInProcess } from '../helpers/cli.js';

const exec = promisify(execFile);

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 50 });
});
afterAll(async () => {
  await sb?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const withKey = (): Record<string, string | undefined> => cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });

describe('one match ignoring case', () => {
  it('caseMatch takes only an unambiguous spelling', () => {
    expect(caseMatch('wordpress', ['WordPress', 'Shopify'])).toBe('WordPress');
    expect(caseMatch('wordpress', ['WordPress', 'Wordpress'])).toBeUndefined();
    expect(caseMatch('wordpress', ['WordPress', 'WordPress'])).toBe('WordPress'); // one name in two categories
    expect(caseMatch('wordpres', ['WordPress'])).toBeUndefined();
  });

  it('tech wordpress answers for WordPress and says so on stderr, spending nothing', async () => {
    const r = await runInProcess(['tech', 'wordpress', '--format', 'json'], { env: withKey() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([sb.dataset.technology('WordPress')]);
    expect(r.stderr).toBe('no technology named "wordpress"; using "WordPress", the catalog\'s one name that matches ignoring case\n');
    const again = await runInProcess(['tech', 'wordpress', '--quiet', '--format', 'json'], { env: withKey() });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe(''); // --quiet: warnings and errors only
    expect(sb.charges().total).toBe(0);
  });

  it('tech with no match in any case still fails with suggestions', async () => {
    const r = await runInProcess(['tech', 'wordpres'], { env: withKey() });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no technology named "wordpres" in the catalog; did you mean "WordPress"\?/);
    expect(r.stderr).not.toMatch(/using/);
  });

  it('catalog --category CMS shows cms and says so; no match still fails with suggestions', async () => {
    const r = await runInProcess(['catalog', '--category', 'CMS', '--format', 'json'], { env: withKey() });
    expect(r.code, r.stderr).toBe(0);
    const cms = sb.dataset.catalog().find((c) => c.category === 'cms');
    expect(JSON.parse(r.stdout)).toEqual(cms?.technologies.map((t) => ({ category: 'cms', ...t })));
    expect(r.stderr).toBe('no category "CMS"; using "cms", the one that matches ignoring case\n');
    const bad = await runInProcess(['catalog', '--category', 'CMSS'], { env: withKey() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no category "CMSS"; did you mean cms\?/);
  });
});

describe('keys use / remove with a name not stored', () => {
  it('names the stored keys and the real command, `domain-intel keys list`', async () => {
    const env = cliEnv();
    const none = await runInProcess(['keys', 'use', 'nope'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('error: no stored key named "nope"; no keys are stored; add one with `domain-intel keys add NAME`\n');

    expect((await runInProcess(['keys', 'add', 'work'], { env, input: `${sb.key}\n` })).code).toBe(0);
    expect((await runInProcess(['keys', 'add', 'home'], { env, input: `${sb.key}\n` })).code).toBe(0);
    for (const sub of ['use', 'remove']) {
      const r = await runInProcess(['keys', sub, 'nope'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('error: no stored key named "nope"; stored: home, work (`domain-intel keys list`)\n');
      expect(r.stderr).not.toContain(sb.key);
    }
  });
});

describe('the sandbox banner', () => {
  /** Starts `domain-intel sandbox`, waits for its two lines, and stops it: what it wrote. */
  async function banner(flags: string[]): Promise<{ stdout: string; stderr: string }> {
    const fake = fakeIo(['sandbox', '--port', '0', '--hosts', '20', ...flags], { env: cliEnv() });
    const done = main(fake.io);
    while (!/^export DOMAIN_INTEL_API_KEY=\S+$/m.test(fake.stdout()) || !/then try/.test(fake.stderr())) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const out = { stdout: fake.stdout(), stderr: fake.stderr() };
    fake.signal('SIGINT');
    expect(await done).toBe(0);
    return out;
  }

  it('prints two export lines that work pasted into a shell, and says its plan, rate and quota', async () => {
    const { stdout, stderr } = await banner(['--plan', 'pro']);
    const lines = stdout.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^export DOMAIN_INTEL_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(lines[1]).toMatch(/^export DOMAIN_INTEL_API_KEY=\S+$/);
    expect(lines[2]).toBe('');
    // Pasted as they are into a shell with no startup files: both variables set, nothing else said.
    const pasted = await exec('bash', ['--norc', '--noprofile', '-c', `${stdout}printf '%s\\n' "$DOMAIN_INTEL_BASE_URL" "$DOMAIN_INTEL_API_KEY"`]);
    expect(pasted.stderr).toBe('');
    const [baseUrl, key] = pasted.stdout.split('\n');
    expect(`export DOMAIN_INTEL_BASE_URL=${baseUrl}\nexport DOMAIN_INTEL_API_KEY=${key}\n`).toBe(stdout);

    expect(stderr).toMatch(
      /^sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(plan pro, rate 60 requests per minute, quota 2,000 lookups, release \d{4}-\d{2}\)$/m,
    );
    expect(stderr).toMatch(/^paste the two export lines above into another shell, then try: domain-intel lookup \S+ \S+ \S+$/m);
    expect(stderr).not.toContain(key as string);
    expect(stderr).not.toContain('<the key above>');
  });

  it('says the rate it was given, or that there is none', async () => {
    expect((await banner(['--rpm', '20', '--window-ms', '1000', '--quota', '100000'])).stderr).toMatch(
      /\(plan business, rate 20 requests per 1,000 ms, quota 100,000 lookups, release /,
    );
    expect((await banner(['--rpm', '0'])).stderr).toMatch(/\(plan business, no rate limit, quota 50,000 lookups, release /);
  });
});

describe('config set base-url', () => {
  it('echoes the URL as typed and offers it with /api/v1 when the path is empty', async () => {
    const env = cliEnv();
    const bare = await runInProcess(['config', 'set', 'base-url', 'http://127.0.0.1:38497'], { env });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe('error: base URL must end in /api/v1, got http://127.0.0.1:38497; did you mean http://127.0.0.1:38497/api/v1?\n');
    const slash = await runInProcess(['config', 'set', 'base-url', 'https://api.example.com/'], { env });
    expect(slash.stderr).toBe('error: base URL must end in /api/v1, got https://api.example.com/; did you mean https://api.example.com/api/v1?\n');
    // A path of its own: what it should be is not guessed.
    const other = await runInProcess(['config', 'set', 'base-url', 'https://api.example.com/v2'], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toBe('error: base URL must end in /api/v1, got https://api.example.com/v2\n');

    const ok = await runInProcess(['config', 'set', 'base-url', 'http://127.0.0.1:38497/api/v1/'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toBe('base-url set to http://127.0.0.1:38497/api/v1\n');
    const plan = await runInProcess(['config', 'set', 'plan', 'pro'], { env });
    expect(plan.stderr).toBe('plan set to pro\n');
    // The environment wins over what is stored: said, or the setting seems to work and changes nothing.
    const over = await runInProcess(['config', 'set', 'base-url', 'http://127.0.0.1:38497/api/v1'], {
      env: { ...env, DOMAIN_INTEL_BASE_URL: 'http://127.0.0.1:1/api/v1' },
    });
    expect(over.code, over.stderr).toBe(0);
    expect(over.stderr).toBe(
      'base-url set to http://127.0.0.1:38497/api/v1\nwarning: DOMAIN_INTEL_BASE_URL is set in this environment and wins over the stored setting: unset it for this one to apply\n',
    );
  });
});

describe('where the catalog came from', () => {
  it('is said only under --verbose while the cached copy is of this month', async () => {
    const env = withKey();
    const first = await runInProcess(['catalog', '--format', 'json'], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const second = await runInProcess(['catalog', '--format', 'json'], { env });
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
    const verbose = await runInProcess(['catalog', '--format', 'json', '--verbose'], { env });
    expect(verbose.stderr).toBe('catalog from the cache, fetched just now (--refresh fetches again)\n');
    const refreshed = await runInProcess(['catalog', '--format', 'json', '--verbose', '--refresh'], { env });
    expect(refreshed.stderr).toBe('catalog fetched from the service now, and kept in the cache\n');
  });

  it('is said without --verbose when the cached copy was fetched before this month (a data release may have come)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const env = withKey();
    vi.setSystemTime(new Date('2026-10-31T12:00:00Z'));
    expect((await runInProcess(['catalog', '--format', 'json'], { env })).stderr).toBe('');
    vi.setSystemTime(new Date('2026-11-02T12:00:00Z')); // two days on: fresh by age, but of last month
    const r = await runInProcess(['catalog', '--format', 'json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("catalog from the cache, fetched 2 days ago, before this month's data release (--refresh fetches the current one)\n");
    const quiet = await runInProcess(['catalog', '--format', 'json', '--quiet'], { env });
    expect(quiet.stderr).toBe('');
  });
});
