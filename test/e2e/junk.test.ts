// Junk is never paid for (issue 15): a CRM column of placeholders, single names, IP addresses, localhost,
// bad labels and broken e-mail addresses, mixed with real hosts, costs a lookup per real host only; each junk
// row is written `invalid` with its reason. --allow-any-name sends everything rule 2.9 accepts, and the
// sandbox answers it as it answers any name it does not hold (missing, charged).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normaliseHost } from '../../src/domain/normalise.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { JUNK } from '../helpers/junk.js';

interface Row {
  line: number;
  input: { company: string; website: string };
  status: string;
  host: string | null;
  reason: string | null;
}

let sb: Sandbox;
let real: string[];
let file: string;
let env: NodeJS.ProcessEnv;
const homes: string[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 200 });
  real = sb.hostList().slice(0, 5);
  const dir = mkdtempSync(join(tmpdir(), 'di-junk-'));
  homes.push(dir);
  file = join(dir, 'crm.csv');
  // Real hosts first, between and last; every cell quoted, so " n/a " keeps its spaces and "#N/A" its '#'.
  const values = [real[0], ...JUNK.slice(0, 20).map(([v]) => v), real[1], real[2], ...JUNK.slice(20).map(([v]) => v), real[3], real[4]] as string[];
  const quote = (cell: string) => `"${cell.replace(/"/g, '""')}"`;
  writeFileSync(file, `company,website\n${values.map((v, i) => `${quote(`Company ${i}`)},${quote(v)}`).join('\n')}\n`);
});
afterAll(async () => {
  await sb?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});
beforeEach(() => {
  sb.resetCounters();
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  homes.push(join(env.DOMAIN_INTEL_CACHE_DIR as string, '..'));
});

async function batch(...extra: string[]): Promise<Row[]> {
  const r = await runInProcess(['batch', file, '--format', 'ndjson', '--quiet', ...extra], { env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
}

describe('junk in a host column', () => {
  it('is invalid with its reason, and the sandbox charges only the real hosts', async () => {
    const rows = await batch();
    expect(rows).toHaveLength(JUNK.length + real.length);
    const byValue = new Map(rows.map((row) => [row.input.website, row]));
    for (const [value, reason] of JUNK) {
      expect(byValue.get(value), value).toMatchObject({ status: 'invalid', host: null, reason });
    }
    for (const host of real) expect(byValue.get(host)).toMatchObject({ status: 'found', host, reason: null });
    const charged = sb.charges();
    expect(charged.total).toBe(real.length);
    expect(Object.keys(charged.byHost).sort()).toEqual([...real].sort());
    // Nothing else reached the service, not even in a request that was refused.
    expect(
      sb
        .requests()
        .flatMap((q) => q.hosts)
        .sort(),
    ).toEqual([...real].sort());
  });

  it('--allow-any-name sends everything rule 2.9 accepts; the sandbox answers it (missing, charged)', async () => {
    const rows = await batch('--allow-any-name');
    const sent = new Map(
      JUNK.flatMap(([value]) => {
        const r = normaliseHost(value, { anyName: true });
        return r.ok ? [[value, r.host] as const] : [];
      }),
    );
    // Most of the junk is a name 2.9 accepts: what the strict rules exist for.
    expect(sent.size).toBeGreaterThan(JUNK.length / 2);
    const byValue = new Map(rows.map((row) => [row.input.website, row]));
    for (const [value, reason] of JUNK) {
      const host = sent.get(value);
      // What 2.9 refuses keeps its reason: how a value is read does not change with the option.
      if (host === undefined) expect(byValue.get(value), value).toMatchObject({ status: 'invalid', host: null, reason });
      else expect(byValue.get(value), value).toMatchObject({ status: 'missing', host, reason: null });
    }
    for (const host of real) expect(byValue.get(host)).toMatchObject({ status: 'found', host });
    const distinct = new Set([...real, ...sent.values()]);
    const charged = sb.charges();
    expect(Object.keys(charged.byHost).sort()).toEqual([...distinct].sort());
    expect(charged.total).toBe(distinct.size);
  });

  it('lookup HOST: junk is a usage error costing nothing; with --allow-any-name it is looked up', async () => {
    const refused = await runInProcess(['lookup', 'localhost', '--quiet'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('localhost, not a website');
    expect(sb.charges().requests).toBe(0);

    const sent = await runInProcess(['lookup', 'localhost', '--allow-any-name', '--quiet'], { env });
    expect(sent.code).toBe(8);
    expect(sent.stderr).toMatch(/localhost: not held by the service/);
    expect(sb.charges().byHost).toEqual({ localhost: 1 });
  });
});
