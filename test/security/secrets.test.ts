// The API key never leaks: across a run of many commands (successes, failures, --debug, --json) the key is
// found only in the Authorization header the sandbox received, and in the settings file where it is stored
// by design (0600 in a 0700 directory). Also: loose permissions are fixed with a warning, plain http is
// refused except to loopback, redirects never carry the key elsewhere, and a key that cannot be a header
// value is refused locally.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { maskKey } from '../../src/config/keys.js';
import { STACK_FRAME, SAMPLE_CSV, modeOf, runCli, startServer, tempHome, walkFiles, type CliResult, type TempHome } from './helpers.js';

/** The secret part of a key (after the last '_'): windows of it must appear nowhere. */
function secretPart(key: string): string {
  return key.slice(key.lastIndexOf('_') + 1).toLowerCase();
}

/** The first `size`-character window of any secret found in `text` (case-insensitive), or null. */
function leakedWindow(text: string, secrets: string[], size: number): string | null {
  const hay = text.toLowerCase();
  for (const s of secrets.map(secretPart)) {
    for (let i = 0; i + size <= s.length; i++) {
      const w = s.slice(i, i + size);
      if (hay.includes(w)) return w;
    }
  }
  return null;
}

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sb.close();
});

describe.concurrent('the API key never leaks', () => {
  let home: TempHome;
  afterAll(() => home?.remove());

  it('appears only in the Authorization header and the 0600 settings file, across every command', async () => {
    home = tempHome(sb);
    const revokedEnv = sb.newKey();
    sb.revokeKey(revokedEnv);
    const revokedStored = sb.newKey();
    sb.revokeKey(revokedStored);
    const secrets = [sb.key, revokedEnv, revokedStored];
    const hosts = sb.hostList();
    const trafficHost = hosts.find((h) => sb.dataset.traffic(h) !== null)!;
    const employeesHost = hosts.find((h) => sb.dataset.employees(h) !== null)!;
    // h1..h4 are far from fixtures/sample.csv, so no earlier step has cached them: the revoked keys are used.
    const [h0, h1, h2, h3, h4] = [hosts[0], ...hosts.slice(-4)] as [string, string, string, string, string];
    const env = home.env();
    const stored = home.env({ DOMAIN_INTEL_API_KEY: undefined });
    const withEnvKey = (key: string) => home.env({ DOMAIN_INTEL_API_KEY: key });

    const steps: { name: string; args: string[]; env: Record<string, string | undefined>; input?: string; code: number }[] = [
      { name: 'lookup', args: ['lookup', h0], env, code: 0 },
      { name: 'batch to a file', args: ['batch', SAMPLE_CSV, '-o', home.path('out.csv')], env, code: 0 },
      { name: 'traffic', args: ['traffic', trafficHost], env, code: 0 },
      { name: 'employees', args: ['employees', employeesHost], env, code: 0 },
      { name: 'tech', args: ['tech', 'WordPress'], env, code: 0 },
      { name: 'catalog', args: ['catalog', '--format', 'csv'], env, code: 0 },
      { name: 'keys add (stdin)', args: ['keys', 'add', 'good'], env: stored, input: `${sb.key}\n`, code: 0 },
      { name: 'keys verify (stored)', args: ['keys', 'verify'], env: stored, code: 0 },
      { name: 'config show', args: ['config', 'show'], env, code: 0 },
      { name: 'quota', args: ['quota'], env, code: 0 },
      { name: 'cache stats', args: ['cache', 'stats'], env, code: 0 },
      { name: '401 env key', args: ['lookup', h1], env: withEnvKey(revokedEnv), code: 6 },
      { name: 'keys add revoked', args: ['keys', 'add', 'old'], env: stored, input: revokedStored, code: 0 },
      { name: 'keys use revoked', args: ['keys', 'use', 'old'], env: stored, code: 0 },
      { name: '401 stored key', args: ['lookup', h2], env: stored, code: 6 },
      { name: 'debug lookup', args: ['--debug', 'lookup', '--refresh', h0], env, code: 0 },
      { name: 'debug batch', args: ['--debug', 'batch', SAMPLE_CSV, '--refresh'], env, code: 0 },
      { name: 'debug 401 (stack)', args: ['--debug', 'lookup', h3], env: stored, code: 6 },
      { name: 'json 401', args: ['--json', 'lookup', h4], env: withEnvKey(revokedEnv), code: 6 },
      { name: 'keys add malformed', args: ['keys', 'add', 'bad'], env: stored, input: sb.key.toUpperCase(), code: 2 },
      { name: 'key as an argument is refused', args: ['keys', 'add', 'argv', sb.key], env: stored, code: 1 },
      { name: 'keys list (stored only)', args: ['keys', 'list'], env: stored, code: 0 },
    ];
    const results: Record<string, CliResult> = {};
    for (const step of steps) {
      results[step.name] = await runCli(step.args, { env: step.env, ...(step.input === undefined ? {} : { input: step.input }) });
    }
    const codes = Object.fromEntries(steps.map((s) => [s.name, results[s.name]!.code]));
    // commander's own usage errors exit 1; what matters there is that the key was not taken from argv.
    expect(codes).toEqual(Object.fromEntries(steps.map((s) => [s.name, s.name === 'key as an argument is refused' ? codes[s.name] : s.code])));
    expect(codes['key as an argument is refused']).not.toBe(0);

    // 1. stdout and stderr of every command: no 6-character window of any key (the mask shows 4).
    for (const step of steps) {
      const r = results[step.name]!;
      expect(leakedWindow(r.stdout, secrets, 6), `${step.name}: stdout`).toBeNull();
      expect(leakedWindow(r.stderr, secrets, 6), `${step.name}: stderr`).toBeNull();
    }

    // 2. every file written under the temp root, except the settings file (where keys live by design).
    const settingsFile = join(home.configDir, 'config.json');
    const files = walkFiles(home.root);
    expect(files).toContain(settingsFile);
    expect(files.some((f) => f.endsWith('cache.sqlite'))).toBe(true);
    expect(files).toContain(home.path('out.csv'));
    for (const file of files.filter((f) => f !== settingsFile)) {
      expect(leakedWindow(readFileSync(file).toString('latin1'), secrets, 8), file).toBeNull();
    }
    const settingsText = readFileSync(settingsFile, 'utf8');
    expect(settingsText).toContain(sb.key);
    expect(settingsText).toContain(revokedStored);
    expect(settingsText).not.toContain(revokedEnv); // only stored keys are written
    expect(settingsText).not.toContain(sb.key.toUpperCase()); // the malformed one was refused
    expect(modeOf(settingsFile)).toBe(0o600);
    expect(modeOf(home.configDir)).toBe(0o700);

    // 3. the service saw the key only as `Authorization: Bearer <key>`, never in a URL or anywhere else.
    const log = sb.requests();
    expect(new Set(log.map((r) => r.operation))).toEqual(new Set(['domain', 'batch', 'traffic', 'employees', 'technology', 'catalog']));
    for (const entry of log) {
      expect(entry.authorization).toMatch(/^Bearer di_live_[0-9a-f]{48}$/);
      expect(secrets).toContain(entry.authorization!.slice('Bearer '.length));
      const { authorization: _, ...rest } = entry;
      expect(leakedWindow(JSON.stringify(rest), secrets, 8), entry.url).toBeNull();
      expect(leakedWindow(entry.url, secrets, 6)).toBeNull();
    }

    // 4. --debug shows the requests, never the key; masked forms show at most the last 4 characters.
    expect(results['debug lookup']!.stderr).toContain(`debug: GET /domain/${h0} -> 200`);
    expect(results['debug batch']!.stderr).toMatch(/debug: POST \/domains\/batch -> 200/);
    expect(results['debug 401 (stack)']!.stderr).toMatch(STACK_FRAME); // --debug prints the stack, redacted
    expect(results['keys list (stored only)']!.stdout).toContain(maskKey(sb.key));
    expect(results['keys list (stored only)']!.stdout).toContain(maskKey(revokedStored));
    expect(maskKey(sb.key)).toBe(`di_live_…${sb.key.slice(-4)}`);
    expect(results['config show']!.stdout).toContain(maskKey(sb.key));

    // 5. a refused key: the message says which key (env or stored name) and how to replace it (the variable
    // wins over stored keys: changed or unset, not `keys add`).
    const envRefused = results['401 env key']!.stderr;
    expect(envRefused).toMatch(/401/);
    expect(envRefused).toContain('set DOMAIN_INTEL_API_KEY to a valid key, or unset it');
    expect(envRefused).not.toMatch(STACK_FRAME);
    expect(envRefused.trim().split('\n')).toHaveLength(1);
    const storedRefused = results['401 stored key']!.stderr;
    expect(storedRefused).toContain('the stored key "old"');
    expect(storedRefused).toContain('domain-intel keys add');
    const json = JSON.parse(results['json 401']!.stderr.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(json).toMatchObject({ code: 'invalid_key', exit: 6 });
    expect(String(json.hint)).toContain('DOMAIN_INTEL_API_KEY');
  }, 60_000);

  it('refuses a key that cannot be a header value locally: no request, exit 6, the key not echoed', async () => {
    const sb = await startSandbox({ port: 0 }); // its own: the request count must not see other tests
    const home2 = tempHome(sb);
    try {
      const before = sb.requests().length;
      for (const key of [`${sb.key}\nX-Injected: 1`, `${sb.key.slice(0, 20)}\r\n${sb.key.slice(20)}`, `${sb.key}\u001b[2J`]) {
        const r = await runCli(['lookup', sb.hostList()[0]!, '--retries', '4'], { env: home2.env({ DOMAIN_INTEL_API_KEY: key }) });
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr).not.toMatch(STACK_FRAME);
        expect(r.stderr).not.toMatch(/retrying/); // a local refusal is not a network failure
        expect(r.stderr).toContain('DOMAIN_INTEL_API_KEY');
        expect(leakedWindow(r.stderr + r.stdout, [sb.key], 6)).toBeNull();
      }
      expect(sb.requests().length).toBe(before);
    } finally {
      home2.remove();
      await sb.close();
    }
  });
});

describe.concurrent('settings permissions', () => {
  it('fixes a 0755 config dir and a 0644 settings file to 0700/0600, with a warning on stderr', async () => {
    const home = tempHome(sb);
    try {
      mkdirSync(home.configDir);
      chmodSync(home.configDir, 0o755);
      const file = join(home.configDir, 'config.json');
      writeFileSync(file, JSON.stringify({ keys: { work: sb.key }, activeKey: 'work' }));
      chmodSync(file, 0o644);
      const r = await runCli(['config', 'show'], { env: home.env({ DOMAIN_INTEL_API_KEY: undefined }) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`warning: fixed permissions on ${home.configDir} (were 0755)`);
      expect(r.stderr).toContain(`warning: fixed permissions on ${file} (were 0644)`);
      expect(modeOf(home.configDir)).toBe(0o700);
      expect(modeOf(file)).toBe(0o600);
      expect(r.stdout + r.stderr).not.toContain(sb.key);
      // Fixed once: the next run has nothing to say.
      const again = await runCli(['config', 'show'], { env: home.env({ DOMAIN_INTEL_API_KEY: undefined }) });
      expect(again.code).toBe(0);
      expect(again.stderr).not.toContain('fixed permissions');
    } finally {
      home.remove();
    }
  });

  it('creates a missing config dir 0700 and the settings file 0600', async () => {
    const home = tempHome(sb);
    try {
      const r = await runCli(['keys', 'add', 'work'], { env: home.env({ DOMAIN_INTEL_API_KEY: undefined }), input: sb.key });
      expect(r.code, r.stderr).toBe(0);
      expect(modeOf(home.configDir)).toBe(0o700);
      expect(modeOf(join(home.configDir, 'config.json'))).toBe(0o600);
    } finally {
      home.remove();
    }
  });
});

describe.concurrent('where the key may travel', () => {
  it('refuses plain http to anything but loopback (flag or environment), and never echoes credentials', async () => {
    const sb = await startSandbox({ port: 0 }); // its own: the request log must not see other tests
    const home = tempHome(sb);
    try {
      const host = sb.hostList()[5]!;
      const before = sb.requests().length;
      const flag = await runCli(['--base-url', 'http://example.com/api/v1', 'lookup', host], { env: home.env() });
      expect(flag.code).toBe(2);
      expect(flag.stderr).toMatch(/refusing plain http:\/\/ to example\.com/);
      expect(flag.stderr.trim().split('\n')).toHaveLength(1);
      const viaEnv = await runCli(['lookup', host], { env: home.env({ DOMAIN_INTEL_BASE_URL: 'http://example.com/api/v1' }) });
      expect(viaEnv.code).toBe(2);
      expect(viaEnv.stderr).toContain('DOMAIN_INTEL_BASE_URL');
      const lookalike = await runCli(['--base-url', 'http://127.0.0.1.nip.io/api/v1', 'lookup', host], { env: home.env() });
      expect(lookalike.code).toBe(2);
      const creds = await runCli(['--base-url', `https://user:${sb.key}@example.com/api/v1`, 'lookup', host], { env: home.env() });
      expect(creds.code).toBe(2);
      expect(leakedWindow(creds.stderr + creds.stdout, [sb.key], 6)).toBeNull();
      expect(sb.requests().length).toBe(before);

      const loopback = await runCli(['--base-url', `http://127.0.0.1:${new URL(sb.url).port}/api/v1`, 'lookup', host, '--no-cache'], {
        env: home.env({ DOMAIN_INTEL_BASE_URL: undefined }),
      });
      expect(loopback.code, loopback.stderr).toBe(0);
      expect(JSON.parse(loopback.stdout)).toMatchObject([{ data: { domain: host } }]);
      expect(
        sb
          .requests()
          .slice(before)
          .map((r) => r.path),
      ).toEqual([`/api/v1/domain/${host}`]);
    } finally {
      home.remove();
      await sb.close();
    }
  });

  it('never follows a redirect, so the key never reaches the place it points to', async () => {
    const elsewhere = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":{"domain":"abc.com"}}');
    });
    const redirector = await startServer((req, res) => {
      const status = req.method === 'POST' ? 308 : 307;
      res.writeHead(status, { location: `${elsewhere.baseUrl}${req.url.replace(/^\/api\/v1/, '')}`, 'content-length': '0' });
      res.end();
    });
    const home = tempHome({ baseUrl: redirector.baseUrl, key: sb.key });
    try {
      const one = await runCli(['lookup', 'abc.com', '--retries', '0'], { env: home.env() });
      expect(one.code).toBe(7);
      expect(one.stderr).toMatch(/unexpected answer 307/);
      const many = await runCli(['lookup', 'abc.com', 'def.com', '--retries', '0', '--format', 'ndjson'], { env: home.env() });
      expect(many.code).toBe(7);
      const rows = many.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { status: string; reason: string });
      expect(rows.map((r) => r.status)).toEqual(['error', 'error']);
      expect(rows[0]!.reason).toMatch(/308/);
      expect(redirector.requests.length).toBeGreaterThanOrEqual(2);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      home.remove();
      await redirector.close();
      await elsewhere.close();
    }
  });

  it('a service that echoes the Authorization header back cannot put the key in messages, rows or files', async () => {
    // 500 with the header in a text body; 400 with it as the error code (JSON). Both reach row reasons.
    const echo = await startServer((req, res) => {
      const auth = String(req.headers.authorization ?? '');
      if (req.method === 'POST') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`upstream said: ${auth}`);
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `bad_domain ${auth}` }));
    });
    const home = tempHome({ baseUrl: echo.baseUrl, key: sb.key });
    try {
      const out = join(home.root, 'rows.csv');
      const many = await runCli(['lookup', 'abc.com', 'def.com', '--retries', '0', '--format', 'csv', '-o', out], { env: home.env() });
      const one = await runCli(['lookup', 'abc.com', '--retries', '0', '--json', '--debug'], { env: home.env() });
      expect(many.code).toBe(7);
      expect(one.code).toBe(2);
      // Every row in error: the run is incomplete, so its rows are in rows.csv.partial (issue 14).
      const csv = readFileSync(`${out}.partial`, 'utf8');
      expect(csv).toMatch(/unexpected answer 500 \(upstream said: Bearer …/);
      expect(one.stderr).toMatch(/bad_domain Bearer …/);
      expect(echo.requests.every((r) => String(r.headers.authorization).includes(sb.key))).toBe(true);
      for (const text of [csv, many.stdout, many.stderr, one.stdout, one.stderr]) expect(leakedWindow(text, [sb.key], 8)).toBeNull();
    } finally {
      home.remove();
      await echo.close();
    }
  });
});
