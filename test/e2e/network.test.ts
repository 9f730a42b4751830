// First contact and a service that cannot be reached (issue 16): a stopped server, a name that does not
// exist, a key missing or malformed. Each in-process against the sandbox (a stopped one: started, then
// closed, so its port refuses), and each message asserted whole.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hintFor } from '../../src/cli/report/hints.js';
import { NetworkError } from '../../src/api/errors.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const SET_BASE_URL = '`domain-intel config set base-url URL`, DOMAIN_INTEL_BASE_URL or --base-url';
const KEY_SHAPE = "an API key is the service's fixed prefix (letters and digits, ending in _) followed by 48 hexadecimal characters";
const NO_KEY = 'error: no API key: store one with `domain-intel keys add` (reads stdin) or set DOMAIN_INTEL_API_KEY\n';

/** A base URL whose port refuses connections: a sandbox's, after it closed. */
async function stoppedServer(): Promise<{ baseUrl: string; port: string; hosts: string[]; key: string }> {
  const s = await startSandbox({ port: 0, rpm: 0 });
  const out = { baseUrl: s.baseUrl, port: new URL(s.baseUrl).port, hosts: s.hostList(), key: s.key };
  await s.close();
  return out;
}

function csvFile(hosts: readonly string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'di-net-')), 'in.csv');
  writeFileSync(file, `domain\n${hosts.join('\n')}\n`);
  return file;
}

describe('a stopped server', () => {
  it('lookup: no retry warnings, one error naming the base URL, the cause, and where the URL came from', async () => {
    const s = await stoppedServer();
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const r = await runInProcess(['lookup', s.hosts[0] as string], { env });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: cannot reach the service at ${s.baseUrl}: the connection was refused (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${s.port}); ` +
        `the base URL comes from DOMAIN_INTEL_BASE_URL: set another with ${SET_BASE_URL}\n`,
    );
  });

  it('batch: sends nothing after the first refusal; every row settled, "not looked up" past the first request', async () => {
    const s = await stoppedServer();
    const file = csvFile(s.hosts.slice(0, 1000)); // ten batches of 100
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const r = await runInProcess(['batch', file, '--rpm', '0', '--format', 'csv'], { env });
    expect(r.code).toBe(7);
    const cause = `cannot reach the service at ${s.baseUrl}: the connection was refused (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${s.port})`;
    // The input is still read (no network: it takes no time), so every row is written and says why.
    const reasons = r.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((row) => row.split(',').slice(1, 4).join(','));
    expect(reasons).toHaveLength(1000);
    const sent = reasons.filter((x) => x.endsWith(`,${cause}`));
    expect(sent.length).toBeGreaterThan(0);
    expect(reasons.filter((x) => !x.endsWith(`,${cause}`)).every((x) => /^error,[^,]+,not looked up: the service could not be reached$/.test(x))).toBe(true);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toContain('stopped: the service could not be reached');
    // No retry warnings: one line, the run's end, with the cause, where the base URL came from and how to set it.
    expect(lines.filter((l) => /^(warning|error): /.test(l))).toEqual([
      `warning: ${sent.length} rows in error (the first: ${cause}), ${(1000 - sent.length).toLocaleString('en-US')} rows not looked up ` +
        `(the service could not be reached); the base URL comes from DOMAIN_INTEL_BASE_URL: set another with ${SET_BASE_URL}; ` +
        'run the same command again to fetch only those',
    ]);
    // Only the requests already in flight when the first refusal came were sent (the batches of 100 their
    // hosts fill), none retried.
    const requests = Number(/requests (\d+)/.exec(r.stderr)?.[1]);
    expect(requests).toBeGreaterThan(0);
    expect(requests).toBeLessThan(10);
    expect(requests).toBeLessThanOrEqual(sent.length);
    expect(r.stderr).toMatch(/ retries 0 /);
  });
});

describe('a base URL whose name does not exist', () => {
  it('keys verify with --base-url: the name, the URL and the flag it came from', async () => {
    const env = cliEnv({ DOMAIN_INTEL_API_KEY: `k_${'0'.repeat(48)}` });
    const url = 'https://api.nowhere.invalid/api/v1';
    const r = await runInProcess(['keys', 'verify', '--base-url', url], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `error: cannot reach the service at ${url}: no such host name api.nowhere.invalid (ENOTFOUND); the base URL comes from --base-url: set another with ${SET_BASE_URL}\n`,
    );
  });

  it('a stored base-url is named as the stored setting', async () => {
    const env = cliEnv({ DOMAIN_INTEL_API_KEY: `k_${'0'.repeat(48)}` });
    const url = 'https://api.nowhere.invalid/api/v1';
    expect((await runInProcess(['config', 'set', 'base-url', url], { env })).code).toBe(0);
    const r = await runInProcess(['keys', 'verify'], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe(
      `error: cannot reach the service at ${url}: no such host name api.nowhere.invalid (ENOTFOUND); ` +
        `the base URL comes from the stored setting (config set base-url): set another with ${SET_BASE_URL}\n`,
    );
  });

  it('with no base URL set, the hint says the built-in default is in use and how to set one', () => {
    const err = new NetworkError(
      'cannot reach the service at https://api.domain-intel.example/api/v1: no such host name api.domain-intel.example (ENOTFOUND)',
      {
        code: 'ENOTFOUND',
      },
    );
    const facts = {
      keySource: null,
      lastQuota: null,
      baseUrl: { url: 'https://api.domain-intel.example/api/v1', source: 'no base URL was set, so the built-in default is used' },
    };
    expect(hintFor(err, facts)).toBe(`no base URL was set, so the built-in default is used: set one with ${SET_BASE_URL}`);
  });
});

describe('answers the cache holds need no key', () => {
  it('lookup, traffic, employees and a batch answered from the cache run with no key; a miss asks for one (exit 6)', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    const s = sb;
    const hosts = s.hostList();
    const withTraffic = hosts.find((h) => (s.dataset.traffic(h)?.history.length ?? 0) > 0) as string;
    const withEmployees = hosts.find((h) => s.dataset.employees(h) !== null) as string;
    const file = csvFile(hosts.slice(0, 5));
    const keyed = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const keyless = { ...keyed, DOMAIN_INTEL_API_KEY: undefined };
    const commands = [
      ['lookup', hosts[0] as string, '--format', 'json'],
      ['traffic', withTraffic, '--format', 'json'],
      ['employees', withEmployees, '--format', 'json'],
      ['batch', file, '--format', 'csv'],
    ];
    for (const args of commands) {
      const paid = await runInProcess(args, { env: keyed });
      expect([args[0], paid.code]).toEqual([args[0], 0]);
      const requests = s.charges().requests;
      const cached = await runInProcess(args, { env: keyless });
      expect([args[0], cached.code, cached.stdout]).toEqual([args[0], 0, paid.stdout]);
      expect(s.charges().requests).toBe(requests);
    }
    const miss = await runInProcess(['lookup', hosts[9] as string], { env: keyless });
    expect(miss.code).toBe(6);
    expect(miss.stderr).toBe(NO_KEY);
    // A batch with one host not cached: the cache answers five, and the sixth needs the key there is not.
    const more = await runInProcess(['batch', csvFile(hosts.slice(0, 6)), '--format', 'csv'], { env: keyless });
    expect(more.code).toBe(6);
    expect(more.stderr.split('\n').filter((l) => l.startsWith('error: '))).toEqual([NO_KEY.trim()]);
    expect(more.stderr).toContain('rows: read 6 · found 5 · missing 0 · invalid 0 · errors 0 · not looked up 1 · duplicates 0\n');
    expect(more.stderr).toContain('stopped: no usable API key (missing, malformed or refused)\n');
    expect(more.stderr).toContain('requests 0 ·'); // refused before sending: none went
    // The rows the cache answered are written (a tryout saw none, on stdout or anywhere): all six, the sixth
    // saying why it has no answer.
    const written = more.stdout.trim().split('\n');
    expect(written).toHaveLength(7);
    expect(written.slice(1).filter((l) => l.includes(',found,'))).toHaveLength(5);
    expect(written[6]).toContain('not looked up: no usable API key');
    // With -o: FILE stays as it was and the rows go to FILE.partial, as any run cut short keeps them.
    const out = join(dirname(file), 'kept.csv');
    writeFileSync(out, 'last night\n');
    const kept = await runInProcess(['batch', csvFile(hosts.slice(0, 6)), '-o', out], { env: keyless });
    expect(kept.code).toBe(6);
    expect(readFileSync(out, 'utf8')).toBe('last night\n');
    expect(readFileSync(`${out}.partial`, 'utf8')).toBe(more.stdout);
    expect(kept.stderr).toContain(`6 rows in ${out}.partial`);
  });
});

describe('a malformed key is refused before anything is sent', () => {
  it('DOMAIN_INTEL_API_KEY of the wrong shape: exit 6, the shape described, no request made', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: 'hello-world' });
    const r = await runInProcess(['lookup', sb.hostList()[0] as string], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(
      `error: DOMAIN_INTEL_API_KEY is not an API key (nothing was sent): the key has no prefix; ${KEY_SHAPE}; ` +
        'set DOMAIN_INTEL_API_KEY to a valid key, or unset it to use a stored key (`keys add` cannot help while it is set: it wins over them)\n',
    );
    const short = await runInProcess(['batch', csvFile(sb.hostList().slice(0, 3))], { env: { ...env, DOMAIN_INTEL_API_KEY: 'di_abc123' } });
    expect(short.code).toBe(6);
    expect(short.stderr).toContain(
      `error: DOMAIN_INTEL_API_KEY is not an API key (nothing was sent): the part after the prefix has 6 characters; ${KEY_SHAPE}; set DOMAIN_INTEL_API_KEY`,
    );
    expect(sb.charges().requests).toBe(0);
    expect(r.stderr + short.stderr).not.toContain('hello-world');
  });

  it('a stored key edited out of shape: exit 6, naming the stored key', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl });
    expect((await runInProcess(['keys', 'add', 'work'], { env, input: `${sb.key}\n` })).code).toBe(0);
    const dir = env.DOMAIN_INTEL_CONFIG_DIR as string;
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.json')) as string);
    writeFileSync(file, readFileSync(file, 'utf8').replace(sb.key, `${sb.key.slice(0, -1)}X`));
    const r = await runInProcess(['lookup', sb.hostList()[0] as string], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(
      `error: the stored key "work" is not an API key (nothing was sent): the part after the prefix must be lowercase hexadecimal (0-9, a-f); ${KEY_SHAPE}; ` +
        'replace it with `domain-intel keys add <name>` (reads stdin) or a new DOMAIN_INTEL_API_KEY\n',
    );
    expect(sb.charges().requests).toBe(0);
  });
});
