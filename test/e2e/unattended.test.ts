// Issue 14's stories end to end, across its parts: a nightly cron run through an outage keeps yesterday's file
// and serves old answers rather than errors; a CRM export's own cells, BOM and line endings come back as they
// went in. Each checks the files' bytes and what the sandbox charged.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a nightly cron run', () => {
  it('through an outage: yesterday’s file stays, old answers beat error rows, and nothing is paid twice', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    dir = mkdtempSync(join(tmpdir(), 'di-cron-'));
    const hosts = sb.hostList().slice(0, 30);
    const fresh = sb.hostList().slice(30, 40);
    const list = join(dir, 'crm.txt');
    const out = join(dir, 'enriched.csv');
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
    const run = (...flags: string[]) => runInProcess(['batch', list, '-o', out, '--rate', '100000/1m', '--retries', '0', ...flags], { env });

    // Night 1: the service is up; the file is complete.
    writeFileSync(list, `${hosts.join('\n')}\n`);
    const first = await run();
    expect(first.code).toBe(0);
    expect(sb.charges().total).toBe(30);
    const good = readFileSync(out);
    const header = good.toString('utf8').split('\n')[0]!.split(',');
    expect(header.at(-1)).toBe('fetched_at');

    // Night 2: the list grew by 10 and the service is down. The 30 are in the cache; the 10 cannot be had.
    await sb.close();
    sb = undefined;
    writeFileSync(list, `${[...hosts, ...fresh].join('\n')}\n`);
    const second = await run();
    expect(second.code).toBe(7); // nothing could be looked up: the service is unreachable
    // The exit's line names the trouble, not only a count.
    expect(second.stderr).toMatch(/warning: 10 rows in error \(the first: .*ECONNREFUSED.*\); the base URL comes from .*; run the same command again/);
    expect(readFileSync(out).equals(good)).toBe(true);
    const partial = readFileSync(`${out}.partial`, 'utf8').trimEnd().split('\n');
    expect(partial).toHaveLength(41);
    expect(partial.filter((l) => l.includes(',error,'))).toHaveLength(10);
    expect(second.stderr).toMatch(/enriched\.csv unchanged \(incomplete: .*\); 40 rows in .*enriched\.csv\.partial; run the same command again to finish/);

    // Night 3: the old list only, every answer older than --max-age, the service still down: the old answers
    // fill the rows (each says when it was fetched), the file is complete and replaces the old one, exit 4.
    writeFileSync(list, `${hosts.join('\n')}\n`);
    const third = await run('--max-age', '1ms');
    expect(third.code).toBe(4);
    expect(third.stderr).toMatch(/30 rows from answers older than /);
    expect(third.stderr).toContain(`${out} replaced: every row answered, 30 from older answers`);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(rows).toHaveLength(31);
    expect(rows.slice(1).every((l) => /,(found|missing),/.test(l))).toBe(true);
    // fetched_at is night 1's: the same cells as the good file had.
    expect(rows.map((l) => l.split(',').at(-1))).toEqual(
      good
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => l.split(',').at(-1)),
    );
    expect(existsSync(`${out}.partial`)).toBe(false); // a complete run removes the leftover

    // --no-stale: the same night gives errors instead, and the file stays as it was.
    const before = readFileSync(out);
    const strict = await run('--max-age', '1ms', '--no-stale');
    expect(strict.code).toBe(7);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(
      readFileSync(`${out}.partial`, 'utf8')
        .split('\n')
        .filter((l) => l.includes(',error,')),
    ).toHaveLength(30);
  });
});

describe('a month whose lookups are spent', () => {
  it('old answers fill every row, and the quota line says so rather than "0 rows not looked up"', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    dir = mkdtempSync(join(tmpdir(), 'di-spent-'));
    const list = join(dir, 'crm.txt');
    writeFileSync(list, `${sb.hostList().slice(0, 5).join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
    const run = (...flags: string[]) => runInProcess(['batch', list, '--rate', '100000/1m', ...flags], { env });
    expect((await run()).code).toBe(0);
    sb.setRemaining(0);
    const r = await run('--max-age', '1ms');
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/error: stopped by the monthly quota: 5 rows given older answers; /);
    expect(r.stderr).not.toMatch(/0 rows not looked up|holds the rest/);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .every((l) => /,found,/.test(l)),
    ).toBe(true);
  });
});

describe('a CRM export', () => {
  it('keeps its own cells, BOM and CRLF byte for byte; only the service’s values are neutralised', async () => {
    sb = await startSandbox({ port: 0, rpm: 0 });
    dir = mkdtempSync(join(tmpdir(), 'di-crm-'));
    const [a, b, c] = sb.hostList();
    const lines = [
      'Name,Phone,Website,Notes',
      `Müller GmbH,+1 555 0100,${a},-VIP-`,
      `"Smith, Jones & Co",=1+2,https://${b}/about,@channel ping`,
      `Ünal,-42,${c},"said ""hi"""`,
    ];
    const file = join(dir, 'export.csv');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8')]);
    writeFileSync(file, bytes);
    const out = join(dir, 'out.csv');
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const r = await runInProcess(['batch', file, '-o', out, '--rate', '100000/1m'], { env });
    expect(r.code).toBe(0);
    const written = readFileSync(out);
    expect([...written.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = written.subarray(3).toString('utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const outLines = text.slice(0, -2).split('\r\n');
    expect(outLines).toHaveLength(lines.length);
    // Each input line, as it was, starts its output line; our columns follow its last comma.
    for (const [i, line] of lines.entries()) expect(outLines[i]!.startsWith(`${line},`)).toBe(true);
    expect(text.replaceAll('\r\n', '')).not.toMatch(/\n/); // no bare LF anywhere
    expect(sb.charges().total).toBe(3);
  });
});
