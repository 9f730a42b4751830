// Each bad-input case documented at the top of src/input/read.ts, with the error it must give.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/api/errors.js';
import { openInput } from '../../src/input/read.js';
import { readAll, readError } from '../run/helpers.js';

/** Asserts the one-line `<file>:<line>: <what>` form and the matching properties. */
function expectInputError(err: unknown, line: number, code: string, what: RegExp | string) {
  expect(err).toBeInstanceOf(InputError);
  const e = err as InputError;
  expect({ file: e.file, line: e.line, code: e.code }).toEqual({ file: 'in.csv', line, code });
  expect(e.message.startsWith(`in.csv:${line}: `)).toBe(true);
  expect(e.message).not.toMatch(/\n/);
  expect(e.message).toMatch(what);
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');

describe('openInput: bad input', () => {
  it('empty file: zero records, shape lines, no error', async () => {
    for (const text of ['', '\ufeff', '\n\n', '# nothing here\n  \n']) {
      // A BOM alone is still noted: the header an empty run writes keeps it.
      const bom = text.startsWith('\ufeff');
      expect(await readAll(text)).toEqual({ shape: { format: 'lines', headers: null, hostColumn: 0, bom, eol: '\n' }, records: [] });
    }
  });

  it('a header alone: zero records', async () => {
    expect(await readAll('id,domain\n')).toEqual({
      shape: { format: 'csv', headers: ['id', 'domain'], hostColumn: 1, delimiter: ',', bom: false, eol: '\n', ragged: { rows: 0, lines: [] } },
      records: [],
    });
    expect((await readAll('domain')).records).toEqual([]);
  });

  it('unclosed quote: InputError on the line where the quoted field starts', async () => {
    const text = 'domain,note\na.com,ok\nb.com,"never closed\nc.com,x\nd.com,y\n';
    for (const chunk of [0, 1, 9]) expectInputError(await readError(text, {}, chunk), 3, 'bad_quote', /unclosed quote/);
  });

  it('unclosed quote after a quoted CRLF and blank lines still names the right line', async () => {
    const text = 'domain,note\r\na.com,"x\r\ny"\r\n\r\n\r\nb.com,"open\r\nmore\r\n';
    expectInputError(await readError(text), 6, 'bad_quote', /unclosed quote/);
  });

  it('unclosed quote in the header: line 1', async () => {
    expectInputError(await readError('"domain,note\na.com,b\n'), 1, 'bad_quote', /unclosed quote/);
  });

  it('NUL bytes near the start: the file looks binary', async () => {
    expectInputError(await readError(Buffer.from('domain\nx.com\n\0\0\0\u0001')), 3, 'binary_input', /looks like a binary file/);
    expectInputError(await readError(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])), 3, 'binary_input', /binary/);
  });

  it('control bytes that are not UTF-8: the file looks binary', async () => {
    const junk = Buffer.from(Array.from({ length: 400 }, (_, i) => [0x01, 0x9c, 0x02, 0xff, 0x13][i % 5]!));
    expectInputError(await readError(junk), 1, 'binary_input', /looks like a binary file.*not valid UTF-8/);
  });

  it('an old Excel .xls (a Compound File): named as such, with the way out, whether its first bytes hold NULs or not', async () => {
    const ole2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
    const why = /^in\.csv:1: an old Excel \.xls workbook \(or another Office file of before 2007\), which is not read: save it as \.xlsx or CSV$/;
    expectInputError(await readError(Buffer.from([...ole2, 0, 0, 0, 0, 0x3e, 0, 3, 0])), 1, 'binary_input', why);
    expectInputError(await readError(Buffer.from([...ole2, 0xff, 0xfe, 0x9c])), 1, 'binary_input', why);
  });

  it('a ZIP / Excel workbook: says so', async () => {
    const xlsx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.alloc(100, 7)]);
    for (const chunk of [0, 1]) expectInputError(await readError(xlsx, {}, chunk), 1, 'binary_input', /Excel workbook.*save it as CSV/);
  });

  it('UTF-16 without its byte-order mark: names the --encoding to pass', async () => {
    expectInputError(
      await readError(Buffer.from('domain\nx.com\n', 'utf16le')),
      1,
      'bad_encoding',
      /UTF-16LE text without a byte-order mark; pass --encoding utf-16le/,
    );
    const be = Buffer.from('domain\nx.com\n', 'utf16le').swap16();
    expectInputError(await readError(be), 1, 'bad_encoding', /pass --encoding utf-16be/);
  });

  it('a BOM that says another encoding than --encoding: refused', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('domain\nx.com\n', 'utf16le')]);
    expectInputError(await readError(utf16, { encoding: 'utf-8' }), 1, 'bad_encoding', /UTF-16LE byte-order mark, but --encoding utf-8/);
  });

  it('bytes that are not UTF-8 after UTF-8 text: the file mixes encodings, refused on the right line', async () => {
    const text = Buffer.concat([Buffer.from('domain,city\na.com,Zürich\n'), latin1('café.fr,Besançon\n')]);
    for (const chunk of [0, 1, 2, 5]) {
      expectInputError(await readError(text, {}, chunk), 3, 'bad_encoding', /not valid UTF-8 \(byte 0xE9\).*mixes encodings.*--encoding windows-1252/);
    }
  });

  it('--encoding utf-8 far into a large file: found while streaming, line still exact, naming windows-1252', async () => {
    const head = Buffer.from(`domain\n${'example.com\n'.repeat(50_000)}`);
    const err = await readError(Buffer.concat([head, latin1('zürich.ch\n')]), { encoding: 'utf-8' }, 65536);
    expectInputError(err, 50_002, 'bad_encoding', /0xFC.*pass --encoding windows-1252/);
  });

  it('a multi-byte character cut off at the end of a UTF-8 file', async () => {
    expectInputError(await readError(Buffer.concat([Buffer.from('é.com\nb'), Buffer.from([0xc3])])), 2, 'bad_encoding', /not valid UTF-8/);
  });

  it('high bytes in runs (a legacy Cyrillic file) are not taken for Windows-1252', async () => {
    const cp1251 = Buffer.concat([Buffer.from('domain,name\na.com,'), Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), Buffer.from('\n')]);
    expectInputError(await readError(cp1251), 2, 'bad_encoding', /nor like Windows-1252 text; pass --encoding/);
  });

  it('a quote left open mid-file that a later quote closes mid-cell: refused where it opens', async () => {
    const text = 'domain,note\na.com,ok\nb.com,"open\nc.com,x\nd.com,"y"\ne.com,z\n';
    for (const chunk of [0, 1, 7]) expectInputError(await readError(text, {}, chunk), 3, 'bad_quote', /unbalanced quote.*runs to line 5/);
    // In the host column too (today's "empty value" row), and under CR-only line ends.
    expectInputError(await readError('domain,n\r"a.com,1\rb.com,2\r"c.com",3\r'), 2, 'bad_quote', /unbalanced quote.*line 4/);
  });

  it('a 5 MB line: refused, in lists and in CSV, without waiting for the end', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    expectInputError(await readError(`a.com\n${big}\nb.com\n`, {}, 65536), 2, 'line_too_long', 'line longer than 1 MiB');
    expectInputError(await readError(`domain,n\na.com,1\n${big},2\n`, {}, 65536), 3, 'line_too_long', 'line longer than 1 MiB');
    expectInputError(await readError(`${big}\n`, {}, 65536), 1, 'line_too_long', 'line longer than 1 MiB');
  });

  it('a CSV quote left open over more than 1 MiB: refused, suggesting the open quote', async () => {
    const rest = 'y.com,ok\n'.repeat(200_000);
    const err = await readError(`domain,note\na.com,"oops\n${rest}`, {}, 65536);
    expectInputError(err, 2, 'line_too_long', 'line longer than 1 MiB (or a quote left open)');
  });

  it('an endless line does not hang or fill memory', async () => {
    let produced = 0;
    const endless = (header: string) =>
      Readable.from(
        (function* () {
          yield Buffer.from(header);
          for (;;) {
            produced++;
            yield Buffer.alloc(65536, 0x78);
          }
        })(),
      );
    for (const header of ['', 'domain,n\n', 'domain,n\na.com,"']) {
      produced = 0;
      const err = await (async () => {
        try {
          const { records } = await openInput(endless(header), { fileName: 'in.csv' });
          for await (const _ of records);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).code).toBe('line_too_long');
      expect(produced).toBeLessThan(40);
    }
  });

  it('ragged rows are not an error', async () => {
    const r = await readAll('a,b,domain\n1\n1,2,x.com,4,5\n');
    expect(r.records.map((x) => x.value)).toEqual(['', 'x.com']);
  });

  it('a NUL after the first 8 KiB is just a bad cell', async () => {
    const text = `domain\n${'a.com\n'.repeat(2000)}b\0c.com\n`;
    const r = await readAll(text);
    expect(r.records.at(-1)!.value).toBe('b\0c.com');
  });
});
