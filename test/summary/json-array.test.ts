// The JSON array reader: elements cut at top-level commas only, whatever the chunking, and a file cut short or
// not an array refused naming its line.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/api/errors.js';
import { jsonArrayElements } from '../../src/summary/json-array.js';

async function all(chunks: string[], size?: number): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const c of jsonArrayElements(
    (async function* () {
      yield* chunks.map((s) => Buffer.from(s));
    })(),
    'f.json',
    size,
  ))
    out.push(c);
  return out;
}

const rows = [
  { a: 'x, y', b: [1, [2, 3]], c: { d: '}]' } },
  { a: 'quote \\" and \\\\', b: [], c: null },
  { a: 'ünïcödé ✓', b: [{ e: ',' }], c: '[' },
];

describe('jsonArrayElements', () => {
  it('gives back every element, whatever the chunk boundaries (one byte at a time too)', async () => {
    const text = ` \n${JSON.stringify(rows, null, 2)}\n`;
    expect((await all([text])).flat()).toEqual(rows);
    const bytes = Buffer.from(text);
    const oneByOne = await (async () => {
      const out: unknown[] = [];
      for await (const c of jsonArrayElements(
        (async function* () {
          for (const b of bytes) yield Buffer.from([b]);
        })(),
        'f.json',
      ))
        out.push(...c);
      return out;
    })();
    expect(oneByOne).toEqual(rows);
  });

  it('yields in chunks of the size asked', async () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ i }));
    const chunks = await all([JSON.stringify(many).slice(0, 30), JSON.stringify(many).slice(30)], 4);
    expect(chunks.flat()).toEqual(many);
    expect(chunks.every((c) => c.length > 0)).toBe(true);
    expect(chunks.length).toBeLessThan(many.length);
  });

  it('reads an empty array as no rows', async () => {
    expect((await all(['[]\n'])).flat()).toEqual([]);
  });

  it('refuses what is not an array, a cut-short array and trailing text, naming the line', async () => {
    await expect(all(['{"a":1}'])).rejects.toThrow(/not a JSON array/);
    await expect(all(['[\n{"a":1},\n{"a":'])).rejects.toThrow(InputError);
    await expect(all(['[\n{"a":1},\n{"a":'])).rejects.toThrow(/cut short \(line 3\)/);
    await expect(all(['[1] x'])).rejects.toThrow(/after the end/);
    await expect(all(['[{"a":1}, {oops}]'])).rejects.toThrow(/not JSON/);
  });
});
