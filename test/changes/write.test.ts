// The feed's formats: NDJSON lines, a JSON array written as it goes, CSV as batch writes cells (lists joined,
// formulas neutralised unless raw), and the input hosts read, deduplicated and counted as batch would.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/changes/events.js';
import { type InputCounts, inputHosts } from '../../src/changes/hosts.js';
import { createEventWriter } from '../../src/changes/write.js';
import { openInput } from '../../src/input/read.js';

const at = Date.parse('2026-11-24T03:04:05.678Z');
const events: ChangeEvent[] = [
  { host: 'a.example', field: 'technologies', from: ['Nginx'], to: ['Nginx', 'Shopify'], at, added: ['Shopify'], removed: [] },
  { host: 'a.example', field: 'redirect_to', from: null, to: '=HYPERLINK("x")', at },
];

async function written(format: 'csv' | 'json' | 'ndjson', batches: ChangeEvent[][], raw = false): Promise<string> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString('utf8')));
  const writer = createEventWriter(out, { format, raw });
  for (const b of batches) await writer.write(b);
  await writer.end();
  return text;
}

describe('event formats', () => {
  it('NDJSON: one event a line, `at` to the second in UTC, technologies with added and removed', async () => {
    expect(await written('ndjson', [events])).toBe(
      '{"host":"a.example","field":"technologies","from":["Nginx"],"to":["Nginx","Shopify"],"at":"2026-11-24T03:04:05Z","added":["Shopify"],"removed":[]}\n' +
        '{"host":"a.example","field":"redirect_to","from":null,"to":"=HYPERLINK(\\"x\\")","at":"2026-11-24T03:04:05Z"}\n',
    );
  });

  it('JSON: one array across batches, parsing to the NDJSON records', async () => {
    const lines = (await written('ndjson', [events]))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(JSON.parse(await written('json', [[events[0] as ChangeEvent], [events[1] as ChangeEvent]]))).toEqual(lines);
    expect(await written('json', [])).toBe('[]\n');
  });

  it('CSV: host, field, from, to, at, added, removed; lists joined with ";"; formula cells neutralised unless raw', async () => {
    expect(await written('csv', [events])).toBe(
      'host,field,from,to,at,added,removed\na.example,technologies,Nginx,Nginx;Shopify,2026-11-24T03:04:05Z,Shopify,\na.example,redirect_to,,"\'=HYPERLINK(""x"")",2026-11-24T03:04:05Z,,\n',
    );
    expect(await written('csv', [events], true)).toContain(',"=HYPERLINK(""x"")",');
    expect(await written('csv', [])).toBe('host,field,from,to,at,added,removed\n');
  });

  it('reads the input as batch does: the host column, URLs cut down to hosts, repeats once, invalid rows counted', async () => {
    const opened = await openInput(Readable.from([Buffer.from('id,website\n1,https://A.example/x\n2,a.example\n3,not a host\n4,b.example\n')]), {
      fileName: 'crm.csv',
    });
    const counts: InputCounts = { invalid: 0, duplicates: 0 };
    const hosts: string[] = [];
    for await (const h of inputHosts(opened.chunks ?? opened.records, counts)) hosts.push(h);
    expect(hosts).toEqual(['a.example', 'b.example']);
    expect(counts).toEqual({ invalid: 1, duplicates: 1 });
  });
});
