import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { columnChoice } from '../../src/input/host-column.js';
import { UsageError } from '../../src/api/errors.js';
import { openInput } from '../../src/input/read.js';
import { readAll, readError, source } from '../run/helpers.js';

const values = (r: { records: { value: string }[] }) => r.records.map((x) => x.value);
const lines = (r: { records: { line: number }[] }) => r.records.map((x) => x.line);

describe('openInput: newline lists', () => {
  it('skips blank and # lines, trims values, keeps the raw line as the cell, numbers lines from 1', async () => {
    const r = await readAll('# my list\n\nexample.com\n  www.example.org  \n   # indented comment\n\t\nfoo.net');
    expect(r.shape).toEqual({ format: 'lines', headers: null, hostColumn: 0, bom: false, eol: '\n' });
    expect(r.records).toEqual([
      { line: 3, cells: ['example.com'], value: 'example.com' },
      { line: 4, cells: ['  www.example.org  '], value: 'www.example.org' },
      { line: 7, cells: ['foo.net'], value: 'foo.net' },
    ]);
  });

  it('handles CRLF, a BOM, and chunks split anywhere (even inside the BOM and multi-byte characters)', async () => {
    const text = '\ufeffexample.com\r\nbücher.example\r\n\r\nlast.org\r\n';
    for (const chunk of [0, 1, 2, 3, 5]) {
      const r = await readAll(text, {}, chunk);
      expect(r.records.map((x) => x.cells[0])).toEqual(['example.com', 'bücher.example', 'last.org']);
      expect(lines(r)).toEqual([1, 2, 4]);
    }
  });

  it('treats a first line without comma or tab, not a known header, as data', async () => {
    const r = await readAll('hostname.example\nfoo.com\n');
    expect(r.shape.format).toBe('lines');
    expect(values(r)).toEqual(['hostname.example', 'foo.com']);
  });

  it('accepts --column 1 on a list but refuses a name', async () => {
    expect(values(await readAll('a.com\nb.com', { column: '1' }))).toEqual(['a.com', 'b.com']);
    const err = await readError('a.com\nb.com', { column: 'domain' });
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/^in\.csv: --column applies to CSV or TSV input/);
  });
});

describe('openInput: CSV and TSV', () => {
  it('detects CSV with a header and finds the host column by name, case-insensitively', async () => {
    const r = await readAll('id, Website ,name\n1,example.com,Acme\n2,foo.org,"Foo, Inc."\n');
    expect(r.shape).toEqual({
      format: 'csv',
      headers: ['id', ' Website ', 'name'],
      hostColumn: 1,
      delimiter: ',',
      bom: false,
      eol: '\n',
      ragged: { rows: 0, lines: [] },
    });
    expect(r.records).toEqual([
      { line: 2, cells: ['1', 'example.com', 'Acme'], value: 'example.com' },
      { line: 3, cells: ['2', 'foo.org', 'Foo, Inc.'], value: 'foo.org' },
    ]);
  });

  it('detects TSV when the first line has a tab', async () => {
    const r = await readAll('name\tURL\nAcme\thttps://example.com/\n');
    expect(r.shape).toEqual({ format: 'tsv', headers: ['name', 'URL'], hostColumn: 1, delimiter: '\t', bom: false, eol: '\n', ragged: { rows: 0, lines: [] } });
    expect(r.records[0]!.cells).toEqual(['Acme', 'https://example.com/']);
  });

  it('reads a lone known header as a one-column CSV', async () => {
    for (const h of ['domain', 'Email', '  HOST  ', 'url']) {
      const r = await readAll(`${h}\nexample.com\n`);
      expect(r.shape).toEqual({ format: 'csv', headers: [h], hostColumn: 0, delimiter: ',', bom: false, eol: '\n', ragged: { rows: 0, lines: [] } });
      expect(r.records).toEqual([{ line: 2, cells: ['example.com'], value: 'example.com' }]);
    }
  });

  it('keeps quoted commas and newlines, and numbers each row by the line it starts on', async () => {
    const text = 'note,domain\n"two\nlines",a.com\n\n"x, y",b.com\n"three\n\nlines",c.com\nlast,d.com';
    const r = await readAll(text, {}, 4);
    expect(r.records.map((x) => x.cells)).toEqual([
      ['two\nlines', 'a.com'],
      ['x, y', 'b.com'],
      ['three\n\nlines', 'c.com'],
      ['last', 'd.com'],
    ]);
    expect(lines(r)).toEqual([2, 5, 6, 9]);
  });

  it('handles CRLF with quoted CRLF inside cells and a BOM before the header', async () => {
    const text = '\ufeffdomain,note\r\na.com,"one\r\ntwo"\r\n\r\nb.com,x\r\nc.com,y';
    for (const chunk of [0, 1, 7]) {
      const r = await readAll(text, {}, chunk);
      expect(r.shape.headers).toEqual(['domain', 'note']);
      expect(r.records.map((x) => x.cells)).toEqual([
        ['a.com', 'one\r\ntwo'],
        ['b.com', 'x'],
        ['c.com', 'y'],
      ]);
      expect(lines(r)).toEqual([2, 5, 6]);
    }
  });

  it('skips blank and # lines before the header, but not # rows in the data', async () => {
    const r = await readAll('# exported 2024-01-01\n\ndomain,n\n#1,a.com\na.com,#2\n');
    expect(r.shape.headers).toEqual(['domain', 'n']);
    expect(r.records.map((x) => [x.line, x.cells[0]])).toEqual([
      [4, '#1'],
      [5, 'a.com'],
    ]);
  });

  it('skips a row whose only cell is whitespace', async () => {
    const r = await readAll('domain,x\na.com,1\n   \nb.com,2\n');
    expect(values(r)).toEqual(['a.com', 'b.com']);
  });

  it('never fails on ragged rows: short rows get value "", long rows keep their cells', async () => {
    const r = await readAll('id,domain\n1\n2,b.com,extra,more\n3,c.com\n');
    expect(r.records).toEqual([
      { line: 2, cells: ['1'], value: '', short: true },
      { line: 3, cells: ['2', 'b.com', 'extra', 'more'], value: 'b.com' },
      { line: 4, cells: ['3', 'c.com'], value: 'c.com' },
    ]);
  });

  it('keeps stray quotes inside unquoted fields as data', async () => {
    const r = await readAll('domain,x\nab"c.com,1\n"a"b,2\n');
    expect(r.records.map((x) => x.cells[0])).toEqual(['ab"c.com', '"a"b']);
  });

  it('honours a forced format', async () => {
    expect((await readAll('domain\na.com', { format: 'lines' })).records.map((x) => x.value)).toEqual(['domain', 'a.com']);
    const tsv = await readAll('domain\ta,b\nx.com\t1,2\n', { format: 'tsv' });
    expect(tsv.records[0]!.cells).toEqual(['x.com', '1,2']);
    const csv = await readAll('site\na.com\n', { format: 'csv' });
    expect(csv.shape).toEqual({ format: 'csv', headers: ['site'], hostColumn: 0, delimiter: ',', bom: false, eol: '\n', ragged: { rows: 0, lines: [] } });
  });
});

describe('openInput: the host column', () => {
  it('--column by name is case-insensitive and trimmed', async () => {
    const r = await readAll('Company,Primary Site\nAcme,acme.com\n', { column: ' primary site ' });
    expect(r.shape.hostColumn).toBe(1);
    expect(values(r)).toEqual(['acme.com']);
  });

  it('--column by 1-based index', async () => {
    const r = await readAll('a,b,c\n1,x.com,3\n', { column: '2' });
    expect(r.shape.hostColumn).toBe(1);
    expect(values(r)).toEqual(['x.com']);
  });

  it('--column prefers a header named like the number over the index', async () => {
    const r = await readAll('1,2,3\nx.com,y.com,z.com\n', { column: '1' });
    expect(r.shape.hostColumn).toBe(0);
    const s = await readAll('a,1,b\nx.com,y.com,z.com\n', { column: '1' });
    expect(s.shape.hostColumn).toBe(1);
  });

  it('--column overrides an ambiguous header set', async () => {
    const r = await readAll('domain,url\na.com,https://b.com\n', { column: 'url' });
    expect(values(r)).toEqual(['https://b.com']);
  });

  it('takes the header HOST_HEADERS ranks first, and says so through columnChoice (issue 29)', async () => {
    const r = await readAll('Email,name,Website\njo@b.com,x,a.com\n');
    expect(r.shape.hostColumn).toBe(2);
    expect(values(r)).toEqual(['a.com']);
    expect(columnChoice(r.shape.headers, r.shape.hostColumn, 'in.csv')).toBe(
      'in.csv: the host is read from "Website" (column 3), not "Email" (column 1); --column chooses another',
    );
    const d = await readAll('URL,Domain,site\nhttps://b.com,a.com,c.com\n');
    expect(values(d)).toEqual(['a.com']);
    expect(columnChoice(d.shape.headers, d.shape.hostColumn, 'in.csv')).toBe(
      'in.csv: the host is read from "Domain" (column 2), not "URL" (column 1) or "site" (column 3); --column chooses another',
    );
    // One candidate, or a column chosen by number: nothing to say.
    expect(columnChoice(['id', 'website'], 1, 'in.csv')).toBeNull();
    expect(columnChoice(['id', 'website'], 0, 'in.csv')).toBeNull();
  });

  it('refuses two headers of the same rank, listing the headers', async () => {
    const err = await readError('Website,name,website ,Email\na.com,x,b.com,c@d.com\n');
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('in.csv: more than one column could hold the host: "Website" (1), "website " (3)');
    expect(err.message).toContain('--column');
    expect(err.message).toContain('headers are: "Website", "name", "website ", "Email"');
  });

  it('a first line that is a host with a tab at an end starts a list, not a TSV header (a part split -l cut)', async () => {
    const r = await readAll('a.example\t\nb.example\n\tc.example\n');
    expect(r.shape.format).toBe('lines');
    expect(values(r)).toEqual(['a.example', 'b.example', 'c.example']);
    // A header with a trailing tab is still a header; a row of two cells still a table, refused with why.
    expect((await readAll('website\t\na.example\t\n')).shape.format).toBe('tsv');
    const err = await readError('a.example\tAcme\nb.example\tBeta\n');
    expect(err.message).toContain('its first line looks like a row, not a header ("a.example" is a host name): put the header line back');
  });

  it('refuses when no header is known, listing the headers', async () => {
    const err = await readError('company,homepage\nAcme,acme.com\n');
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('no host column found');
    expect(err.message).toContain('headers are: "company", "homepage"');
  });

  it('refuses an unknown --column name or an index out of range', async () => {
    const e1 = await readError('a,b\n1,2\n', { column: 'site' });
    expect(e1).toBeInstanceOf(UsageError);
    expect(e1.message).toContain('no column named "site"; headers are: "a", "b"');
    const e2 = await readError('a,b\n1,2\n', { column: '3' });
    expect(e2.message).toContain('--column 3 is out of range (1 to 2)');
    const e3 = await readError('a,b\n1,2\n', { column: '0' });
    expect(e3).toBeInstanceOf(UsageError);
  });

  it('refuses a name that several headers carry', async () => {
    const err = await readError('domain,Domain\na,b\n', { column: 'domain' });
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('more than one column is named "domain"');
  });

  it('shows headers escaped and truncated', async () => {
    const long = 'h'.repeat(100);
    const err = await readError(`"a\u0007b",${long}\n1,2\n`);
    expect(err.message).toContain('"a␇b"');
    expect(err.message).toContain(`"${'h'.repeat(60)}…"`);
    expect(err.message).not.toContain('\n');
  });
});

describe('openInput: streaming', () => {
  it('yields the first records of an endless input without reading it all', async () => {
    let produced = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          produced++;
          yield Buffer.from(`domain,n\n${'x.com,1\n'.repeat(1000)}`.slice(produced === 1 ? 0 : 9));
        }
      })(),
    );
    const { records } = await openInput(endless, { fileName: 'endless.csv' });
    let n = 0;
    for await (const r of records) {
      expect(r.value).toBe('x.com');
      if (++n === 3000) break;
    }
    expect(produced).toBeLessThan(50);
  });

  it('lets the consumer stop early on a list', async () => {
    const { records } = await openInput(Readable.from(['a.com\nb.com\n', 'c.com\n']), { fileName: 'l' });
    for await (const r of records) {
      expect(r.value).toBe('a.com');
      break;
    }
  });

  it('accepts string chunks (a stream with an encoding set)', async () => {
    const r = await openInput(Readable.from(['domain\n', 'bücher.example\n']), { fileName: 's' });
    const out: string[] = [];
    for await (const x of r.records) out.push(x.value);
    expect(out).toEqual(['bücher.example']);
  });
});

describe('openInput: records in arrays (chunks)', () => {
  it('gives CSV records in arrays holding exactly what `records` gives one at a time', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? '' : `${i},"h${i}.example","note\n${i}"`));
    const text = `id,domain,note\n${rows.join('\n')}\n`;
    for (const chunk of [0, 7, 4096]) {
      const one = await readAll(text, {}, chunk);
      const opened = await openInput(source(text, chunk), { fileName: 'in.csv' });
      const arrays: unknown[][] = [];
      for await (const a of opened.chunks ?? []) arrays.push(a);
      expect(arrays.flat()).toEqual(one.records);
      expect(one.records.length).toBe(rows.filter((r) => r !== '').length);
      if (chunk !== 7) expect(arrays.length).toBeLessThan(one.records.length / 10); // arrays, not one record each
    }
  });

  it('fails in arrays with the same line as one at a time', async () => {
    const text = `domain\n${Array.from({ length: 2000 }, (_, i) => `h${i}.example`).join('\n')}\n"open\nx.com\n`;
    const opened = await openInput(Readable.from([Buffer.from(text)]), { fileName: 'in.csv' });
    let seen = 0;
    const err = await (async () => {
      try {
        for await (const a of opened.chunks ?? []) seen += a.length;
      } catch (e) {
        return e as { line?: number; code?: string };
      }
      return null;
    })();
    expect(seen).toBe(2000);
    expect(err).toMatchObject({ line: 2002, code: 'bad_quote' });
  });
});

describe('openInput: BOM and line ends, noted for the output', () => {
  const shapeOf = async (text: string, chunk = 0, format?: 'csv' | 'tsv' | 'lines') =>
    (await readAll(text, format === undefined ? {} : { format }, chunk)).shape;

  it('notes a BOM, however the first bytes are split, and keeps it out of the first header', async () => {
    for (const chunk of [0, 1, 2, 3, 4]) {
      const r = await readAll('\ufeffdomain,n\r\na.com,1\r\n', {}, chunk);
      expect(r.shape).toMatchObject({ headers: ['domain', 'n'], bom: true, eol: '\r\n' });
      expect(r.records.map((x) => x.cells)).toEqual([['a.com', '1']]);
    }
    expect(await shapeOf('domain,n\na.com,1\n')).toMatchObject({ bom: false, eol: '\n' });
    // A BOM-like character later in the file is data, not a BOM.
    expect(await shapeOf('a.com\n\ufeffb.com\n')).toMatchObject({ format: 'lines', bom: false });
    expect(await shapeOf('\ufeffa.com')).toMatchObject({ format: 'lines', bom: true });
  });

  it('takes the line end from the header, outside quotes: a header cell with its own LF does not decide', async () => {
    for (const chunk of [0, 1, 5]) {
      // (A comma on the first physical line, so the file is taken for CSV.)
      expect(await shapeOf('id,"dom\nain",domain\r\n1,a.com,b.com\r\n', chunk)).toMatchObject({ format: 'csv', eol: '\r\n' });
      expect(await shapeOf('id,"x\r\ny",domain\n1,a,b.com\n', chunk)).toMatchObject({ format: 'csv', eol: '\n' });
      // Ending in a quoted field, CR before the LF.
      expect(await shapeOf('n,"domain"\r\n1,a.com\r\n', chunk)).toMatchObject({ eol: '\r\n' });
    }
  });

  it('takes it from the first row only: blank and # lines before the header, and a mixed file', async () => {
    expect(await shapeOf('# export\n\ndomain,n\r\na.com,1\n')).toMatchObject({ eol: '\r\n' });
    expect(await shapeOf('# export\r\n\r\ndomain,n\na.com,1\r\n')).toMatchObject({ eol: '\n' });
    expect(await shapeOf('domain\tn\r\na.com\t1\r\n')).toMatchObject({ format: 'tsv', eol: '\r\n' });
  });

  it('lists: the first line decides; a single line without a break is LF unless it ends in CR', async () => {
    expect(await shapeOf('a.com\r\nb.com\r\n')).toMatchObject({ format: 'lines', eol: '\r\n' });
    expect(await shapeOf('\n# c\r\na.com\r\nb.com\n')).toMatchObject({ format: 'lines', eol: '\r\n' });
    expect(await shapeOf('a.com\nb.com\r\n')).toMatchObject({ format: 'lines', eol: '\n' });
    expect(await shapeOf('a.com')).toMatchObject({ eol: '\n' });
    expect(await shapeOf('a.com\r')).toMatchObject({ eol: '\r\n' });
    expect(await shapeOf('domain')).toMatchObject({ format: 'csv', eol: '\n' });
    expect(await shapeOf('domain\r')).toMatchObject({ format: 'csv', eol: '\r\n' });
    expect(await shapeOf('domain,x\r\n', 0, 'lines')).toMatchObject({ format: 'lines', eol: '\r\n' });
  });
});
