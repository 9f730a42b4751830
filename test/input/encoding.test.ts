// Encodings (encoding.ts, decode.ts): UTF-16 by its BOM or --encoding, Windows-1252 read when the bytes are not
// UTF-8 and look like it (noted in the shape), latin1 as ISO-8859-1; every cell comes out UTF-8.
import { describe, expect, it } from 'vitest';
import { readAll } from '../run/helpers.js';

const cells = 'domain\tcity\r\nzürich.example\tZürich “Altstadt”\r\n';

describe('encodings', () => {
  it('UTF-16LE and UTF-16BE by their BOM, split anywhere: cells decoded, BOM noted', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(cells, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(cells, 'utf16le').swap16()]);
    for (const [bytes, encoding] of [
      [le, 'utf-16le'],
      [be, 'utf-16be'],
    ] as const) {
      for (const chunk of [0, 1, 3]) {
        const r = await readAll(bytes, {}, chunk);
        expect(r.shape).toMatchObject({ format: 'tsv', bom: true, encoding, eol: '\r\n' });
        expect(r.records[0]!.cells).toEqual(['zürich.example', 'Zürich “Altstadt”']);
      }
    }
    // Without a BOM, --encoding says it.
    const r = await readAll(Buffer.from(cells, 'utf16le'), { encoding: 'utf-16le' });
    expect(r.records[0]!.value).toBe('zürich.example');
  });

  it('Windows-1252 read when not UTF-8 and like it, noted with the first such line; latin1 is ISO-8859-1', async () => {
    const bytes = Buffer.concat([Buffer.from('domain,city\na.example,Paris\nzürich.example,'), Buffer.from([0x93, 0x5a, 0xfc, 0x94]), Buffer.from('\n')]);
    bytes[bytes.indexOf(0xc3)] = 0xfc; // the ü of the host, as one byte
    bytes.copyWithin(bytes.indexOf(0xfc) + 1, bytes.indexOf(0xfc) + 2);
    const text = bytes.subarray(0, bytes.length - 1);
    for (const chunk of [0, 2, 7]) {
      const r = await readAll(text, {}, chunk);
      expect(r.records[1]!.cells).toEqual(['zürich.example', '“Zü”']);
      expect(r.shape).toMatchObject({ encoding: 'windows-1252', guessedAt: 3 });
    }
    const forced = await readAll(text, { encoding: 'windows-1252' });
    expect(forced.shape.guessedAt).toBeUndefined();
    expect((await readAll(text, { encoding: 'latin1' })).records[1]!.cells[1]).toBe('\u0093Zü\u0094');
  });
});
