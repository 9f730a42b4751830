// The delimiter sniffed from the header and the first rows, --delimiter, and CR-only line ends (dialect.ts, lines.ts).
import { describe, expect, it } from 'vitest';
import { parseDelimiter } from '../../src/domain/input-forms.js';
import { readAll } from '../run/helpers.js';

describe('delimiter', () => {
  it('is the one candidate the header holds', async () => {
    for (const d of [',', ';', '\t', '|']) {
      const r = await readAll(`id${d}Website${d}note\n1${d}a.example${d}x\n`);
      expect(r.shape).toMatchObject({ delimiter: d, format: d === '\t' ? 'tsv' : 'csv', hostColumn: 1 });
      expect(r.records[0]!.cells).toEqual(['1', 'a.example', 'x']);
    }
  });

  it('among several in the header, the one that splits the rows as the header: `;` with commas in names', async () => {
    const r = await readAll('Company, Inc;Website;City\nAcme, Inc;a.example;Paris\nFoo, Ltd;b.example;Lyon\n');
    expect(r.shape).toMatchObject({ delimiter: ';', headers: ['Company, Inc', 'Website', 'City'] });
    expect(r.records.map((x) => x.value)).toEqual(['a.example', 'b.example']);
  });

  it('a tab wins a tie: a TSV with commas in a header cell and in rows is not read as a CSV', async () => {
    const r = await readAll('domain\tLast, First\na.example\tSmith, Jo\n', { fileName: '-' });
    expect(r.shape).toMatchObject({ delimiter: '\t', headers: ['domain', 'Last, First'] });
    expect(r.records[0]!.cells).toEqual(['a.example', 'Smith, Jo']);
    // No rows to tell by (the property test's counterexample, test/security/properties.test.ts).
    expect((await readAll('domain\t,\n', { fileName: '-' })).shape).toMatchObject({ delimiter: '\t', headers: ['domain', ','] });
  });

  it('a file named .tsv whose header holds a tab is tab-separated, even where a row splits better on a comma', async () => {
    const text = 'domain\t\t\t,\n,\n';
    expect((await readAll(text, { fileName: 'contacts.csv' })).shape).toMatchObject({ delimiter: ',' });
    for (const fileName of ['contacts.tsv', 'EXPORT.TAB']) {
      const r = await readAll(text, { fileName });
      expect(r.shape).toMatchObject({ delimiter: '\t', headers: ['domain', '', '', ','] });
      expect(r.records[0]!.cells).toEqual([',']);
    }
    // A .tsv file whose header holds no tab is sniffed as any other.
    expect((await readAll('domain,n\na.example,1\n', { fileName: 'x.tsv' })).shape).toMatchObject({ delimiter: ',' });
  });

  it('a quoted delimiter does not count; a URL with ; in a list stays a list', async () => {
    expect((await readAll('"a;b",domain\nx,a.example\n')).shape).toMatchObject({ delimiter: ',' });
    expect((await readAll('https://a.example/x;y\nb.example\n')).shape).toMatchObject({ format: 'lines' });
  });

  it('--delimiter forces it, and a table; --input-format csv is a comma as before', async () => {
    const opts = { column: '1' };
    expect((await readAll('domain;n\na.example;1\n', { ...opts, delimiter: ',' })).shape).toMatchObject({ delimiter: ',', headers: ['domain;n'] });
    expect((await readAll('domain;n\na.example;1\n', { ...opts, format: 'csv' })).shape).toMatchObject({ delimiter: ',' });
    expect((await readAll('a.example\n', { ...opts, delimiter: '|' })).shape).toMatchObject({ format: 'csv', headers: ['a.example'] });
    expect(['tab', '\\t', ';', 'pipe'].map(parseDelimiter)).toEqual(['\t', '\t', ';', '|']);
    expect(() => parseDelimiter(':')).toThrow(/one of , ; tab \|/);
  });
});

describe('CR-only line ends ("CSV (Macintosh)")', () => {
  it('read as rows with the right line numbers, a quoted CR kept in its cell, and CR noted for the output', async () => {
    const text = 'domain,note\ra.example,"two\rlines"\r\rb.example,x\r';
    for (const chunk of [0, 1, 3]) {
      const r = await readAll(text, {}, chunk);
      expect(r.shape).toMatchObject({ format: 'csv', headers: ['domain', 'note'], eol: '\r' });
      expect(r.records).toEqual([
        { line: 2, cells: ['a.example', 'two\rlines'], value: 'a.example' },
        { line: 5, cells: ['b.example', 'x'], value: 'b.example' },
      ]);
    }
    const list = await readAll('a.example\rb.example\r', {}, 1);
    expect(list.shape).toMatchObject({ format: 'lines', eol: '\r' });
    expect(list.records.map((x) => [x.line, x.value])).toEqual([
      [1, 'a.example'],
      [2, 'b.example'],
    ]);
  });

  it('with --column, every row is read (no header holding a CR)', async () => {
    const r = await readAll('Name,Site\rAcme,a.example\rFoo,b.example\r', { column: 'site' });
    expect(r.records.map((x) => x.value)).toEqual(['a.example', 'b.example']);
  });
});

describe('ragged rows', () => {
  it('are counted in the shape with their first lines', async () => {
    const r = await readAll('domain,n\na.example,1\nb.example\nc.example,3,4\nd.example,4\n');
    expect(r.records).toHaveLength(4);
    expect(r.shape.ragged).toEqual({ rows: 2, lines: [3, 4] });
  });
});
