// Homographs are not paid for (issue 29): a name whose label mixes Latin with Cyrillic or Greek letters
// (`exаmple.com` with a Cyrillic а, `раураl.example`) is a row marked invalid, "mixed scripts", never sent and
// never charged (the sandbox's charges say so); `--allow-any-name` sends it. A label in one script is looked up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 20 });
  dir = mkdtempSync(join(tmpdir(), 'di-homograph-'));
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

const MIXED = 'mixed scripts (Latin and Cyrillic letters in one label: a look-alike name)';

describe('a name mixing scripts', () => {
  it('is invalid, never sent, never charged; --allow-any-name sends it; one script is looked up', async () => {
    const held = sb.hostList()[0] as string;
    const input = join(dir, 'crm.csv');
    const cells = ['exаmple.com', 'https://www.раураl.example/login', 'gοogle.com', 'xn--exmple-4nf.com', 'пример.рф', held];
    writeFileSync(input, `website\n${cells.join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    sb.resetCounters();
    const r = await runInProcess(['batch', input, '--fields', 'status,host,reason', '--quiet'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.status, row.reason])).toEqual([
      ['invalid', MIXED],
      ['invalid', MIXED],
      ['invalid', 'mixed scripts (Latin and Greek letters in one label: a look-alike name)'],
      ['invalid', MIXED],
      ['missing', ''],
      ['found', ''],
    ]);
    // Only the two valid names were sent and paid for.
    expect(sb.charges().byHost).toEqual({ 'xn--e1afmkfd.xn--p1ai': 1, [held]: 1 });

    sb.resetCounters();
    const any = await runInProcess(['batch', input, '--fields', 'status,host', '--quiet', '--allow-any-name', '--no-cache'], { env });
    expect(any.code, any.stderr).toBe(0);
    expect((parse(any.stdout, { columns: true }) as Record<string, string>[]).map((row) => row.status)).toEqual([
      'missing',
      'missing',
      'missing',
      'missing',
      'missing',
      'found',
    ]);
    expect(Object.keys(sb.charges().byHost).sort()).toEqual(
      ['xn--exmple-4nf.com', 'www.xn--l-7sba6dbr.example', 'xn--gogle-rce.com', 'xn--e1afmkfd.xn--p1ai', held].sort(),
    );
  });
});
