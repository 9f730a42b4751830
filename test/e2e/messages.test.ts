// Messages that used to mislead (issue 29): under --quiet a night that replaced FILE with older answers
// because the service could not be reached names the outage in its lines; a revoked key taken from
// DOMAIN_INTEL_API_KEY is told to change or unset the variable (`keys add` cannot help while it is set); the
// summary's hosts line counts hosts given older answers, not their rows.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox | undefined;
let dir: string;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('a night through an outage, under --quiet', () => {
  it('names the outage in the lines it leaves; the hosts line counts hosts, the stale line rows', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    dir = mkdtempSync(join(tmpdir(), 'di-messages-'));
    const [a, b] = sb.hostList() as [string, string];
    const list = join(dir, 'crm.txt');
    // Five rows, two hosts.
    writeFileSync(list, `${[a, b, a, b, a].join('\n')}\n`);
    const out = join(dir, 'enriched.csv');
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
    const night = (...flags: string[]) => runInProcess(['batch', list, '-o', out, '--retries', '0', '--max-age', '1ms', ...flags], { env });
    expect((await night('--quiet')).code).toBe(0);
    await sb.close();
    sb = undefined;

    const quiet = await night('--quiet');
    expect(quiet.code).toBe(EXIT.INCOMPLETE);
    expect(quiet.stderr.split('\n').filter(Boolean)).toEqual([
      `warning: ${out} replaced: every row answered, 5 from older answers (the service could not be reached)`,
      'warning: 5 rows from answers older than 1 millisecond: the service could not be reached; run the same command again to refresh them',
    ]);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(6);

    const told = await night();
    expect(told.code).toBe(EXIT.INCOMPLETE);
    const lines = told.stderr.split('\n');
    expect(lines).toContain('rows: read 5 · found 5 · missing 0 · invalid 0 · errors 0 · duplicates 3');
    // Two hosts, both given older answers: hosts, as the line's label says (it said +5, the rows).
    expect(lines).toContain('hosts: distinct 2 · from cache 0 (+2 older) · lookups 0 spent');
    expect(lines).toContain('5 rows from answers older than 1 millisecond: the service could not be reached');
  });
});

describe('a revoked key', () => {
  it('from DOMAIN_INTEL_API_KEY: change or unset the variable, not `keys add`; a stored one: `keys add`', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    dir = mkdtempSync(join(tmpdir(), 'di-messages-'));
    const list = join(dir, 'crm.txt');
    writeFileSync(list, `${sb.hostList().slice(0, 3).join('\n')}\n`);
    const key = sb.newKey();
    sb.revokeKey(key);
    const fromEnv = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
    for (const args of [
      ['batch', list, '--quiet'],
      ['lookup', sb.hostList()[0] as string],
    ]) {
      const r = await runInProcess(args, { env: fromEnv });
      expect(r.code).toBe(EXIT.INVALID_KEY);
      expect(r.stderr).toMatch(
        /^error: .*; the key in DOMAIN_INTEL_API_KEY was refused; set DOMAIN_INTEL_API_KEY to a valid key, or unset it to use a stored key \(`keys add` cannot help while it is set: it wins over them\)\n$/,
      );
      expect(r.stderr).not.toContain('keys add <name>');
      expect(r.stderr).not.toContain(key);
    }

    const stored = { ...fromEnv, DOMAIN_INTEL_API_KEY: undefined };
    expect((await runInProcess(['keys', 'add', 'old'], { env: stored, input: `${key}\n` })).code).toBe(0);
    const r = await runInProcess(['batch', list, '--quiet'], { env: stored });
    expect(r.code).toBe(EXIT.INVALID_KEY);
    expect(r.stderr).toContain('the stored key "old" was refused; replace it with `domain-intel keys add <name>` (reads stdin) or a new DOMAIN_INTEL_API_KEY');
  });
});
