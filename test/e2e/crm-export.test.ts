// The commonest CRM export is read (issue 29): a header with both Website and Email is read by its website
// (the column the tool's own list ranks first), said on stderr in one line, and --column chooses otherwise;
// `changes` reads it the same way. A newline list whose first line ends in a tab (a part `split -l` cut) is a
// list, not a TSV header; a headerless part of a table is refused saying its first line is a row. A quote
// left open names itself and its lines in the row's reason, not `empty value`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let sb: Sandbox;
let dir: string;
let env: Record<string, string | undefined>;
let hosts: string[];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 50 });
  hosts = sb.hostList();
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'di-crm-'));
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
  sb.resetCounters();
  return () => rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
type Row = Record<string, string>;

describe('a CRM export with Website and Email', () => {
  it('is read by its website, said in one line; --column email reads the e-mail domains; --quiet says nothing', async () => {
    const [a, b, c, d] = hosts as [string, string, string, string];
    const crm = file('crm.csv', `Company,Email,Website\r\nAcme,jo@${c},https://${a}/\r\nBeta,al@${d},${b}\r\n`);
    const r = await runInProcess(['batch', crm, '--fields', 'status,host'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((parse(r.stdout, { columns: true }) as Row[]).map((row) => row.host)).toEqual([a, b]);
    const said = r.stderr.split('\n').filter((l) => l.includes('the host is read from'));
    expect(said).toEqual([`${crm}: the host is read from "Website" (column 3), not "Email" (column 2); --column chooses another`]);
    expect(sb.charges().byHost).toEqual({ [a]: 1, [b]: 1 });

    // A dry run, where a user looks first, says it too.
    const dry = await runInProcess(['batch', crm, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(said[0]);

    const quiet = await runInProcess(['batch', crm, '--quiet', '--fields', 'host'], { env });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');

    const email = await runInProcess(['batch', crm, '--column', 'email', '--fields', 'host'], { env });
    expect(email.code, email.stderr).toBe(0);
    expect((parse(email.stdout, { columns: true }) as Row[]).map((row) => row.host)).toEqual([c, d]);
    expect(email.stderr).not.toContain('the host is read from');
  });

  it('a row with no website but an e-mail address is invalid with a reason naming that column, and nothing is bought for it', async () => {
    const [a] = hosts as [string];
    const csv = file('gaps.csv', `Company,Website,Email\nAcme,${a},jo@${a}\nBeta,,al@beta.example\nGamma,  ,\n`);
    const r = await runInProcess(['batch', csv, '--fields', 'status,reason'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((parse(r.stdout, { columns: true }) as Row[]).map((row) => [row.Company, row.status, row.reason])).toEqual([
      ['Acme', 'found', ''],
      ['Beta', 'invalid', 'empty value; Email holds al@beta.example (--column Email reads hosts from it)'],
      ['Gamma', 'invalid', 'empty value'],
    ]);
    expect(sb.charges().byHost).toEqual({ [a]: 1 });
    // An earlier run's output read again: our own columns are not taken for the user's.
    const again = file('gaps-out.csv', (await runInProcess(['batch', csv], { env })).stdout);
    const r2 = await runInProcess(['batch', again, '--fields', 'status,reason'], { env });
    expect((parse(r2.stdout, { columns: true }) as Row[]).map((row) => row.reason)).toEqual([
      '',
      'empty value; Email holds al@beta.example (--column Email reads hosts from it)',
      'empty value',
    ]);
  });

  it('changes reads it the same way (no refusal), saying so once', async () => {
    const [a, b] = hosts as [string, string];
    const crm = file('crm.csv', `Name,Website,Email\nAcme,${a},jo@${b}\n`);
    expect((await runInProcess(['batch', crm, '--quiet'], { env })).code).toBe(0);
    const r = await runInProcess(['changes', crm], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${crm}: the host is read from "Website" (column 2), not "Email" (column 3); --column chooses another\n`);
    expect(r.stderr).toContain('compared 1 host');
  });

  it('two columns of the same rank are still a question only --column answers: exit 2', async () => {
    const crm = file('crm.csv', `Website,Name,website\n${hosts[0]},Acme,${hosts[1]}\n`);
    const r = await runInProcess(['batch', crm], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/more than one column could hold the host: "Website" \(1\), "website" \(3\); choose one with --column/);
    expect(sb.charges().requests).toBe(0);
  });
});

describe('a part that split -l cut', () => {
  it('a list whose first line ends in a tab is a list: every host looked up', async () => {
    const part = file('xab', `${hosts[0]}\t\n${hosts[1]}\n${hosts[2]}\t\n`);
    const r = await runInProcess(['batch', part, '--fields', 'status,host', '--quiet'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true, delimiter: ',' }) as Row[];
    expect(rows.map((row) => [row.status, row.host])).toEqual(hosts.slice(0, 3).map((h) => ['found', h]));
  });

  it("a table's part without its header is refused saying its first line is a row", async () => {
    const part = file('xab', `${hosts[0]}\tAcme\n${hosts[1]}\tBeta\n`);
    const r = await runInProcess(['batch', part], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`its first line looks like a row, not a header ("${hosts[0]}" is a host name): put the header line back`);
  });
});

describe('a quote left open', () => {
  it("names the quote and its lines in the row's reason, not `empty value`", async () => {
    const [a, b, c] = hosts as [string, string, string];
    const crm = file('crm.csv', `id,website\n"1,${a}\n2,${b}"\n3,${c}\n4,\n`);
    const out = join(dir, 'out.csv');
    const r = await runInProcess(['batch', crm, '-o', out, '--quiet', '--fields', 'status,host,reason'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Row[];
    expect(rows.map((row) => [row.status, row.reason])).toEqual([
      ['invalid', 'a quote opened on line 2 (column 1) closes only on line 3, so the lines between are one cell: a quote left open?'],
      ['found', ''],
      // A row that simply has no website keeps its reason.
      ['invalid', 'empty value'],
    ]);
    // The host cell itself holding the quoted lines: the same.
    const inCell = file('cell.csv', `id,website,note\n1,"${a}\n2,${b}",x\n`);
    const cell = await runInProcess(['batch', inCell, '--quiet', '--fields', 'reason'], { env });
    expect((parse(cell.stdout, { columns: true }) as Row[])[0]?.reason).toBe(
      'a quote opened on line 2 (column 2) closes only on line 3, so the lines between are one cell: a quote left open?',
    );
    // A note over two lines, quoted as it should be, beside an empty website: no quote to blame.
    const notes = file('notes.csv', `id,website,note\n1,,"two\nlines"\n`);
    const note = await runInProcess(['batch', notes, '--quiet', '--fields', 'reason'], { env });
    expect((parse(note.stdout, { columns: true }) as Row[])[0]?.reason).toBe('empty value');
  });
});
