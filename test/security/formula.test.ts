// Spreadsheet formula injection (OWASP "CSV injection"): a CSV cell starting with = + - @ TAB or CR is run
// as a formula by Excel, LibreOffice and Google Sheets. Every such cell in our own columns (filled from the
// service, which scrapes sites anyone controls) is prefixed with ' unless --raw; the user's own input cells
// and header pass through byte for byte unless --neutralise-input (issue 14: they were in the user's file
// already); plain numbers such as -12 or -3.5 are left alone; JSON is never altered.
import { writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neutraliseCell } from '../../src/output/write.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { FORMULAS, startHostileService } from './hostile-service.js';
import { runCli, tempHome, type TempHome, type TestServer } from './helpers.js';

const readCsv = (text: string, delimiter = ','): string[][] => parse(text, { delimiter, record_delimiter: '\n', relax_column_count: true });

describe('neutraliseCell', () => {
  it("prefixes ' to every formula starter", () => {
    const dangerous = [
      '=1+1',
      '=HYPERLINK("http://evil.example","x")',
      '+1+1',
      '-2+3',
      '@SUM(1)',
      '\t=1+1',
      '\r=1+1',
      '\t',
      '\r',
      '=',
      '+',
      '-',
      '@',
      '-A1',
      '+ 1',
      '-1-1',
      '--1',
      '-1e',
      '=-1',
      '-1)',
    ];
    for (const cell of dangerous) expect(neutraliseCell(cell), JSON.stringify(cell)).toBe(`'${cell}`);
  });

  it('leaves plain numbers, including negative and signed ones, and ordinary text alone', () => {
    const safe = ['-12', '-3.5', '+5', '-0.5', '-.5', '1e5', '-1E-3', '+1.', '0', '', 'example.com', 'a=b', ' =x', "'=x", 'Ümlaut', '12-3', 'x@y.z'];
    for (const cell of safe) expect(neutraliseCell(cell), JSON.stringify(cell)).toBe(cell);
  });

  it('is idempotent: a neutralised cell is never prefixed twice', () => {
    for (const cell of ['=1', '+x', '-y', '@z', '\tq', '\rr']) expect(neutraliseCell(neutraliseCell(cell))).toBe(neutraliseCell(cell));
  });
});

describe.concurrent('batch: passed-through cells (against the sandbox)', () => {
  let sb: Sandbox;
  let home: TempHome;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0 });
    home = tempHome(sb);
  });
  afterAll(async () => {
    home.remove();
    await sb.close();
  });

  // [input cells, cells expected in the CSV output]
  const table = (h: string[]): [string[], string[]][] => [
    [
      ['domain', 'note', 'amount', '@head'],
      ['domain', 'note', 'amount', "'@head"],
    ],
    [
      [h[0]!, '=HYPERLINK("http://evil.example","x")', '-12', '@SUM(1)'],
      [h[0]!, `'=HYPERLINK("http://evil.example","x")`, '-12', "'@SUM(1)"],
    ],
    [
      [h[1]!, '+1+1', '-3.5', '-2+3'],
      [h[1]!, "'+1+1", '-3.5', "'-2+3"],
    ],
    [
      [h[2]!, '\t=1+1', '+5', '\r=cmd'],
      [h[2]!, "'\t=1+1", '+5', "'\r=cmd"],
    ],
    [
      ['=1+2', 'plain text', '1e5', '-'],
      ["'=1+2", 'plain text', '1e5', "'-"],
    ],
    [
      [h[3]!, ' =not-first', '-0.5', '@'],
      [h[3]!, ' =not-first', '-0.5', "'@"],
    ],
  ];

  it("leaves input cells and headers exact by default; --neutralise-input prefixes ' to the dangerous ones, not numbers; --raw wins", async () => {
    const rows = table(sb.hostList());
    const file = home.path('crm.csv');
    writeFileSync(
      file,
      stringify(
        rows.map(([input]) => input),
        { quoted_match: /\r/ },
      ),
    );

    const plain = await runCli(['batch', file], { env: home.env() });
    expect(plain.code, plain.stderr).toBe(0);
    expect(readCsv(plain.stdout).map((r) => r.slice(0, 4))).toEqual(rows.map(([input]) => input));

    const safe = await runCli(['batch', file, '--neutralise-input'], { env: home.env() });
    expect(safe.code, safe.stderr).toBe(0);
    const out = readCsv(safe.stdout);
    expect(out).toHaveLength(rows.length);
    expect(out.map((r) => r.slice(0, 4))).toEqual(rows.map(([, expected]) => expected));
    // The row whose host cell is a formula is invalid, not sent, and still written.
    const statusAt = out[0]!.indexOf('status');
    expect(out.slice(1).map((r) => r[statusAt])).toEqual(['found', 'found', 'found', 'invalid', 'found']);

    // --raw turns all of it off, even with --neutralise-input.
    const raw = await runCli(['batch', file, '--raw', '--neutralise-input'], { env: home.env() });
    expect(raw.code, raw.stderr).toBe(0);
    expect(readCsv(raw.stdout).map((r) => r.slice(0, 4))).toEqual(rows.map(([input]) => input));
  });

  it('does the same for TSV, and never alters JSON', async () => {
    const rows = table(sb.hostList());
    const file = home.path('crm.tsv');
    writeFileSync(
      file,
      stringify(
        rows.map(([input]) => input),
        { delimiter: '\t', quoted_match: /[\r\t]/ },
      ),
    );
    const { readFileSync } = await import('node:fs');
    const tsv = await runCli(['batch', file, '-o', home.path('out.tsv')], { env: home.env() });
    expect(tsv.code, tsv.stderr).toBe(0);
    expect(readCsv(readFileSync(home.path('out.tsv'), 'utf8'), '\t').map((r) => r.slice(0, 4))).toEqual(rows.map(([input]) => input));
    const safe = await runCli(['batch', file, '--neutralise-input', '-o', home.path('safe.tsv')], { env: home.env() });
    expect(safe.code, safe.stderr).toBe(0);
    expect(readCsv(readFileSync(home.path('safe.tsv'), 'utf8'), '\t').map((r) => r.slice(0, 4))).toEqual(rows.map(([, expected]) => expected));

    const json = await runCli(['batch', file, '--format', 'ndjson', '--neutralise-input'], { env: home.env() });
    expect(json.code, json.stderr).toBe(0);
    const objs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { input: Record<string, string> });
    expect(objs.map((o) => [o.input.domain, o.input.note, o.input.amount, o.input['@head']])).toEqual(rows.slice(1).map(([input]) => input));
  });
});

describe.concurrent('our own columns, filled by a hostile service', () => {
  let service: TestServer;
  let home: TempHome;
  const key = `di_live_${'ab12'.repeat(12)}`;
  beforeAll(async () => {
    service = await startHostileService('formula');
    home = tempHome({ baseUrl: service.baseUrl, key });
    writeFileSync(home.path('hosts.txt'), 'first.example\nsecond.example\n');
  });
  afterAll(async () => {
    home.remove();
    await service.close();
  });

  it('neutralises formulas the service sent in every appended column, keeps numbers, and --raw keeps them exact', async () => {
    const safe = await runCli(['batch', home.path('hosts.txt')], { env: home.env() });
    expect(safe.code, safe.stderr).toBe(0);
    const [header, ...rows] = readCsv(safe.stdout);
    expect(rows).toHaveLength(2);
    const col = (row: string[], name: string) => row[header!.indexOf(name)];
    for (const row of rows) {
      expect(col(row, 'status')).toBe('found');
      for (const [field, value] of Object.entries(FORMULAS)) expect(col(row, field), field).toBe(`'${value}`);
      expect(col(row, 'technologies')).toBe(`'=cmd|' /C calc'!A0;React`);
      expect(col(row, 'traffic_band')).toBe("'-1K");
      expect(col(row, 'employees_as_of')).toBe("'=2025-10-14");
      expect(col(row, 'age_days')).toBe('-12'); // a number: untouched
      expect(col(row, 'traffic_visits')).toBe('1500');
    }

    const raw = await runCli(['batch', home.path('hosts.txt'), '--raw'], { env: home.env() });
    expect(raw.code, raw.stderr).toBe(0);
    const [rawHeader, ...rawRows] = readCsv(raw.stdout);
    for (const row of rawRows) {
      for (const [field, value] of Object.entries(FORMULAS)) expect(row[rawHeader!.indexOf(field)], field).toBe(value);
    }
  });

  it("in one row, the user's formula-like cells pass through while the service's are neutralised", async () => {
    const file = home.path('crm.csv');
    writeFileSync(file, 'domain,phone,tag\nfirst.example,+1 555 0100,@channel\n');
    const plain = await runCli(['batch', file, '--fields', 'status,registrar,platform'], { env: home.env() });
    expect(plain.code, plain.stderr).toBe(0);
    expect(readCsv(plain.stdout)).toEqual([
      ['domain', 'phone', 'tag', 'status', 'registrar', 'platform'],
      ['first.example', '+1 555 0100', '@channel', 'found', `'${FORMULAS.registrar}`, `'${FORMULAS.platform}`],
    ]);
    const both = await runCli(['batch', file, '--fields', 'status,registrar,platform', '--neutralise-input'], { env: home.env() });
    expect(both.code, both.stderr).toBe(0);
    expect(readCsv(both.stdout)[1]).toEqual(['first.example', "'+1 555 0100", "'@channel", 'found', `'${FORMULAS.registrar}`, `'${FORMULAS.platform}`]);
  });

  it('single lookups, catalog and tech in CSV are neutralised too', async () => {
    const one = await runCli(['lookup', 'third.example', '--format', 'csv'], { env: home.env() });
    expect(one.code, one.stderr).toBe(0);
    const [header, row] = readCsv(one.stdout);
    expect(row![header!.indexOf('registrar')]).toBe(`'${FORMULAS.registrar}`);
    expect(row![header!.indexOf('platform')]).toBe(`'${FORMULAS.platform}`);

    const catalog = await runCli(['catalog', '--format', 'csv'], { env: home.env() });
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(readCsv(catalog.stdout)).toEqual([
      ['category', 'tech', 'domains'],
      ["'=1+1", "'@SUM(2)", '5'],
      ["'=1+1", '-3', '0'],
    ]);

    const tech = await runCli(['tech', 'Known', '--format', 'csv'], { env: home.env() });
    expect(tech.code, tech.stderr).toBe(0);
    expect(readCsv(tech.stdout)).toEqual([
      ['tech', 'domains'],
      ["'=Known()", '3'],
    ]);
  });

  it('--raw keeps them exact on single lookups, several lookups, catalog and tech too', async () => {
    const one = await runCli(['lookup', 'third.example', '--format', 'csv', '--raw'], { env: home.env() });
    expect(one.code, one.stderr).toBe(0);
    const [header, row] = readCsv(one.stdout);
    expect(row![header!.indexOf('registrar')]).toBe(FORMULAS.registrar);
    const many = await runCli(['lookup', 'third.example', 'fourth.example', '--format', 'csv', '--raw', '--no-cache'], { env: home.env() });
    expect(many.code, many.stderr).toBe(0);
    const [h2, ...rows] = readCsv(many.stdout);
    const found = rows.filter((r) => r[h2!.indexOf('status')] === 'found');
    expect(found.length).toBeGreaterThan(0);
    for (const r of found) expect(r[h2!.indexOf('registrar')]).toBe(FORMULAS.registrar);
    const catalog = await runCli(['catalog', '--format', 'csv', '--raw'], { env: home.env() });
    expect(readCsv(catalog.stdout)[1]).toEqual(['=1+1', '@SUM(2)', '5']);
    const tech = await runCli(['tech', 'Known', '--format', 'csv', '--raw'], { env: home.env() });
    expect(readCsv(tech.stdout)).toEqual([
      ['tech', 'domains'],
      ['=Known()', '3'],
    ]);
  });
});
