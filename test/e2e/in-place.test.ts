// A list kept enriched in place, night after night (`batch crm.csv ... -o crm.csv`, the README's nightly
// pattern): the columns an earlier run appended are recognised at the end of the header and written afresh,
// never a second set after them; the user's cells stay byte for byte; the file is replaced only by a
// complete run. Against the sandbox, whose data moves from one release to the next.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { columnsFor } from '../../src/output/write.js';
import { changesBetween, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const HOSTS = 400;
let sb: Sandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function setUp() {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS });
  dir = mkdtempSync(join(tmpdir(), 'di-in-place-'));
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  return { sb, dir, env };
}

/** A CRM export: the user's columns around the website, cells a spreadsheet would mangle, CRLF line ends. */
function crmExport(hosts: string[]): string {
  const rows = hosts.map((h, i) => `Acme ${i},https://${h}/,+1 555 01${String(i).padStart(2, '0')},"note, with comma"`);
  return `company,website,phone,notes\r\n${rows.join('\r\n')}\r\n`;
}

const rowsOf = (text: string): string[][] => parse(text, { relaxColumnCount: true }) as string[][];

describe('batch FILE -o FILE: a list kept enriched in place', () => {
  it('night after night: our columns written afresh, never twice; the user cells byte for byte; changes picked up', async () => {
    const { sb, dir, env } = await setUp();
    const hosts = sb.hostList().slice(0, 60);
    const file = join(dir, 'crm.csv');
    const original = crmExport(hosts);
    writeFileSync(file, original);
    const ours = columnsFor('profile');

    const night1 = await runInProcess(['batch', file, '-o', file], { env });
    expect(night1.stderr).not.toMatch(/^(error|warning):/m);
    expect(night1.code).toBe(0);
    const first = readFileSync(file, 'utf8');
    const rows1 = rowsOf(first);
    expect(rows1[0]).toEqual(['company', 'website', 'phone', 'notes', ...ours]);
    // The user's cells, as bytes: each output line starts with the input line's bytes (CRLF kept).
    const inputLines = original.split('\r\n');
    first.split('\r\n').forEach((line, i) => {
      if (i > 0 && inputLines[i]) expect(line.startsWith(`${inputLines[i]},`)).toBe(true);
    });
    expect(sb.charges().total).toBe(hosts.length);

    // The next release moves some hosts; the next night refreshes and rewrites the file in place.
    sb.setRelease('2025-11');
    const night2 = await runInProcess(['batch', file, '--refresh', '-o', file], { env });
    expect(night2.code).toBe(0);
    expect(night2.stderr).toContain(`the ${ours.length} columns an earlier run appended are written afresh`);
    const second = readFileSync(file, 'utf8');
    const rows2 = rowsOf(second);
    expect(rows2[0]).toEqual(rows1[0]);
    expect(rows2.length).toBe(rows1.length);
    for (let i = 1; i < rows2.length; i++) expect(rows2[i]?.slice(0, 4)).toEqual(rows1[i]?.slice(0, 4));
    expect(sb.charges().total).toBe(2 * hosts.length);
    // Every change the release made to these hosts shows in the rewritten columns, and nothing else moved.
    const col = (name: string) => 4 + ours.indexOf(name);
    const moved = changesBetween('2025-10', '2025-11', { hosts: HOSTS }).filter((c) => hosts.includes(c.host));
    expect(moved.length).toBeGreaterThan(0);
    for (let i = 1; i < rows2.length; i++) {
      const host = rows2[i]?.[col('host')] as string;
      const fields = new Set(moved.filter((c) => c.host === host).map((c) => c.field));
      // A figure's date is no change of its own (the answer key lists none): it moves with its figure.
      const figures: Record<string, string[]> = { traffic_as_of: ['traffic_visits'], employees_as_of: ['employees_low', 'employees_high', 'employees_point'] };
      for (const name of ours) {
        if (name === 'fetched_at' || name === 'status' || name === 'host' || name === 'reason') continue;
        const same = rows2[i]?.[col(name)] === rows1[i]?.[col(name)];
        const listed = (figures[name] ?? [name]).some((f) => fields.has(f));
        expect({ host, name, same }).toEqual({ host, name, same: !listed && !fields.has('status') });
      }
    }
  });

  it('with --prefix, a plain list, and a ragged row whose extra cells stay after ours', async () => {
    const { sb, dir, env } = await setUp();
    const hosts = sb.hostList().slice(0, 5);
    const list = join(dir, 'list.txt');
    writeFileSync(list, `${hosts.join('\n')}\n`);
    for (let night = 0; night < 2; night++) {
      const r = await runInProcess(['batch', list, '--prefix', 'di_', '-o', list], { env });
      expect(r.code).toBe(0);
    }
    const rows = rowsOf(readFileSync(list, 'utf8'));
    expect(rows[0]).toEqual(['input', ...columnsFor('profile').map((c) => `di_${c}`)]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(hosts);

    const ragged = join(dir, 'ragged.csv');
    writeFileSync(ragged, `name,domain\nA,${hosts[0]},extra1,extra2\nB,${hosts[1]}\n`);
    for (let night = 0; night < 2; night++) expect((await runInProcess(['batch', ragged, '-o', ragged], { env })).code).toBe(0);
    const out = rowsOf(readFileSync(ragged, 'utf8'));
    const width = 2 + columnsFor('profile').length;
    expect(out[0]).toHaveLength(width);
    expect(out[1]?.slice(width)).toEqual(['extra1', 'extra2']);
    expect(out[2]).toHaveLength(width);
    expect(sb.charges().total).toBe(hosts.length); // the second nights were answered by the cache
  });

  it("a user's own column called status is theirs: only our exact column list ending the header is taken for ours", async () => {
    const { sb, dir, env } = await setUp();
    const [host] = sb.hostList();
    const file = join(dir, 'own.csv');
    writeFileSync(file, `website,status,technologies\n${host},customer,in-house\n`);
    const out = join(dir, 'out.csv');
    const r = await runInProcess(['batch', file, '--prefix', 'x_', '-o', out], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('earlier run');
    const rows = rowsOf(readFileSync(out, 'utf8'));
    expect(rows[1]?.slice(0, 3)).toEqual([host, 'customer', 'in-house']);
  });

  it('an incomplete night keeps the file as it was: rows in FILE.partial, the next night finishes', async () => {
    const { sb, dir, env } = await setUp();
    const hosts = sb.hostList().slice(0, 30);
    const file = join(dir, 'crm.csv');
    writeFileSync(file, crmExport(hosts));
    expect((await runInProcess(['batch', file, '-o', file], { env })).code).toBe(0);
    const enriched = readFileSync(file);
    sb.setRelease('2025-11');
    const cut = await runInProcess(['batch', file, '--refresh', '--max-lookups', '10', '--no-stale', '-o', file], { env });
    expect(cut.code).toBe(4);
    expect(cut.stderr).toContain(`${file} unchanged (incomplete`);
    expect(readFileSync(file).equals(enriched)).toBe(true);
    const partial = readFileSync(`${file}.partial`, 'utf8');
    expect(partial.split('\r\n')[0]).toBe(enriched.toString('utf8').split('\r\n')[0]);
    expect(rowsOf(partial)).toHaveLength(hosts.length + 1);

    const done = await runInProcess(['batch', file, '--refresh', '-o', file], { env });
    expect(done.code).toBe(0);
    expect(readFileSync(file).equals(enriched)).toBe(false);
    expect(rowsOf(readFileSync(file, 'utf8'))[0]).toEqual(rowsOf(enriched.toString('utf8'))[0]);
    expect(existsSync(`${file}.partial`)).toBe(false);
  });
});
