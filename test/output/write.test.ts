import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import type { DomainProfile } from '../../src/api/types.js';
import { columnsFor, createRowWriter, csvLine, neutraliseCell } from '../../src/output/write.js';
import type { RowWriterOptions } from '../../src/output/write.js';
import type { EnrichedRow, InputShape } from '../../src/domain/types.js';
import { employees, profile, row, sink, traffic } from '../run/helpers.js';

const lines: InputShape = { format: 'lines', headers: null, hostColumn: 0 };
const csv = (headers: string[], hostColumn = 0): InputShape => ({ format: 'csv', headers, hostColumn });

async function render(opts: RowWriterOptions, rows: EnrichedRow[]): Promise<string> {
  const out = sink();
  const w = createRowWriter(out, opts);
  for (const r of rows) await w.write(r);
  await w.end();
  return out.text();
}

describe('neutraliseCell', () => {
  it('prefixes formula starters with a quote', () => {
    for (const s of ['=1+2', '+cmd', '-1+2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil")', '-', '+', '-e1']) {
      expect(neutraliseCell(s)).toBe(`'${s}`);
    }
  });

  it('leaves plain numbers and ordinary text alone', () => {
    for (const s of ['-12', '+3.5', '-0.5e10', '-.5', '12', '', 'example.com', ' =x', "'=x", 'a=b']) expect(neutraliseCell(s)).toBe(s);
  });
});

describe('createRowWriter: CSV', () => {
  it('writes an input column for a newline list, then ours; null as empty, booleans as words', async () => {
    const text = await render({ format: 'csv', kind: 'profile', shape: lines }, [
      row('profile', { cells: ['  Example.com '], status: 'found', data: profile }),
      row('profile', { cells: ['bad_host'], status: 'invalid', host: null, reason: "invalid character '_'" }),
    ]);
    const [header, first, second] = parse(text) as string[][];
    expect(header).toEqual(['input', ...columnsFor('profile')]);
    expect(first!.slice(0, 8)).toEqual(['  Example.com ', 'found', 'example.com', '', 'true', 'Nginx;WordPress', 'Cloudflare', '']);
    expect(second!.slice(0, 4)).toEqual(['bad_host', 'invalid', '', "invalid character '_'"]);
    expect(text.endsWith('\n') && !text.includes('\r')).toBe(true);
  });

  it('keeps the input header and cells, and applies prefix and fields', async () => {
    const shape = csv(['Name', 'Domain'], 1);
    const text = await render({ format: 'csv', kind: 'profile', shape, prefix: 'di_', fields: ['technologies', 'status', 'age_days'] }, [
      row('profile', { cells: ['Acme, Inc.', 'example.com'], status: 'found', data: profile }),
    ]);
    expect(text).toBe('Name,Domain,di_technologies,di_status,di_age_days\n"Acme, Inc.",example.com,Nginx;WordPress,found,9000\n');
  });

  it('refuses unknown or repeated fields, listing the valid ones', () => {
    const make = (fields: string[]) => () => createRowWriter(sink(), { format: 'csv', kind: 'traffic', shape: lines, fields });
    expect(make(['status', 'registrar'])).toThrow(UsageError);
    expect(make(['status', 'registrar'])).toThrow(/unknown field registrar; valid fields for traffic: status, host, reason, traffic_visits/);
    expect(make([])).toThrow(UsageError);
    expect(make(['host', 'host'])).toThrow(/listed twice/);
  });

  it('keeps TSV as TSV', async () => {
    const text = await render({ format: 'csv', kind: 'employees', shape: { format: 'tsv', headers: ['a', 'url'], hostColumn: 1 } }, [
      row('employees', { cells: ['x\ty', 'www.example.com'], status: 'found', host: 'www.example.com', data: employees }),
    ]);
    expect(text.split('\n')[0]).toBe(['a', 'url', ...columnsFor('employees')].join('\t'));
    expect(text.split('\n')[1]).toBe('"x\ty"\twww.example.com\tfound\twww.example.com\t\texample.com\t1\t\t7\t2024-01-31\t');
  });

  it('pads short rows to the header width and moves extra cells after ours', async () => {
    const text = await render({ format: 'csv', kind: 'traffic', shape: csv(['id', 'domain', 'note'], 1), fields: ['status'] }, [
      row('traffic', { cells: ['1'], status: 'invalid', host: null, reason: 'empty value' }),
      row('traffic', { cells: ['2', 'a.com', 'n', 'extra1', 'extra2'] }),
    ]);
    expect(text).toBe('id,domain,note,status\n1,,,invalid\n2,a.com,n,missing,extra1,extra2\n');
  });

  it('writes the header alone when there are no rows', async () => {
    expect(await render({ format: 'csv', kind: 'traffic', shape: csv(['domain']), fields: ['status'] }, [])).toBe('domain,status\n');
  });

  describe('formulas', () => {
    const shape = csv(['=cmd', 'domain', 'n'], 1);
    const data: DomainProfile = { ...profile, registrar: '=HYPERLINK("http://evil")', age_days: -5 };
    // An extra cell past the header width is the user's too.
    const r = row('profile', { cells: ['@SUM(A1)', 'example.com', '+1 555 0100', '-VIP-'], status: 'found', data });
    const fields = ['registrar', 'age_days'];
    const rendered = async (more: Partial<RowWriterOptions>) =>
      parse(await render({ format: 'csv', kind: 'profile', shape, fields, ...more }, [r]), { relax_column_count: true }) as string[][];

    it('by default neutralises our cells only: input cells and the input header pass through as they were', async () => {
      expect(await rendered({})).toEqual([
        ['=cmd', 'domain', 'n', 'registrar', 'age_days'],
        ['@SUM(A1)', 'example.com', '+1 555 0100', '\'=HYPERLINK("http://evil")', '-5', '-VIP-'],
      ]);
    });

    it('neutraliseInput extends it to input cells and the input header, numbers still untouched', async () => {
      expect(await rendered({ neutraliseInput: true })).toEqual([
        ["'=cmd", 'domain', 'n', 'registrar', 'age_days'],
        ["'@SUM(A1)", 'example.com', "'+1 555 0100", '\'=HYPERLINK("http://evil")', '-5', "'-VIP-"],
      ]);
    });

    it('raw leaves every cell exact, and wins over neutraliseInput', async () => {
      const exact = [
        ['=cmd', 'domain', 'n', 'registrar', 'age_days'],
        ['@SUM(A1)', 'example.com', '+1 555 0100', '=HYPERLINK("http://evil")', '-5', '-VIP-'],
      ];
      expect(await rendered({ raw: true })).toEqual(exact);
      expect(await rendered({ raw: true, neutraliseInput: true })).toEqual(exact);
    });

    it("our column names are ours: a prefix that starts a formula is neutralised; a list's input column too", async () => {
      const [header] = parse(await render({ format: 'csv', kind: 'traffic', shape: lines, fields: ['status'], prefix: '=x_' }, [])) as string[][];
      expect(header).toEqual(['input', "'=x_status"]);
      const [, first] = parse(
        await render({ format: 'csv', kind: 'traffic', shape: lines, fields: ['status'] }, [row('traffic', { cells: ['@a.com'] })]),
      ) as string[][];
      expect(first).toEqual(['@a.com', 'missing']);
    });

    it('the terminal cleaner still runs over input cells (a terminal is not a file)', async () => {
      const text = await render({ format: 'csv', kind: 'traffic', shape: lines, fields: ['status'], cleanCell: (c) => c.replaceAll('\x1b', '?') }, [
        row('traffic', { cells: ['\x1b[2J=a'] }),
      ]);
      expect(text).toBe('input,status\n?[2J=a,missing\n');
    });
  });

  describe('BOM and line ends', () => {
    const crlf: InputShape = { ...csv(['domain', 'note']), eol: '\r\n' };
    const rows = [row('traffic', { cells: ['a.com', 'one\ntwo'] }), row('traffic', { cells: ['b.com', 'x'] })];

    it('ends rows as the input did (CRLF in, CRLF out), quoted line breaks inside cells kept as they were', async () => {
      const text = await render({ format: 'csv', kind: 'traffic', shape: crlf, fields: ['status'] }, rows);
      expect(text).toBe('domain,note,status\r\na.com,"one\ntwo",missing\r\nb.com,x,missing\r\n');
      const list = await render({ format: 'csv', kind: 'traffic', shape: { ...lines, eol: '\r\n' }, fields: ['status'] }, [row('traffic')]);
      expect(list).toBe('input,status\r\nexample.com,missing\r\n');
    });

    it("keeps the input's BOM, adds one with bom, never two; an empty run's header gets it too", async () => {
      const kept = await render({ format: 'csv', kind: 'traffic', shape: { ...crlf, bom: true }, fields: ['status'] }, rows.slice(1));
      expect(kept).toBe('\ufeffdomain,note,status\r\nb.com,x,missing\r\n');
      expect(await render({ format: 'csv', kind: 'traffic', shape: { ...crlf, bom: true }, fields: ['status'], bom: true }, rows.slice(1))).toBe(kept);
      expect(await render({ format: 'csv', kind: 'traffic', shape: csv(['domain']), fields: ['status'], bom: true }, [])).toBe('\ufeffdomain,status\n');
      expect(await render({ format: 'csv', kind: 'traffic', shape: csv(['domain']), fields: ['status'] }, [])).toBe('domain,status\n');
    });

    it('JSON and NDJSON get neither a BOM nor CRLF (bom does nothing there)', async () => {
      const shape: InputShape = { ...crlf, bom: true };
      for (const format of ['json', 'ndjson'] as const) {
        const text = await render({ format, kind: 'traffic', shape, bom: true, fields: ['status'] }, rows);
        expect(text.startsWith('\ufeff') || text.includes('\r\n')).toBe(false);
      }
    });
  });

  it('quotes cells holding CR so they survive reading back', async () => {
    const text = await render({ format: 'csv', kind: 'traffic', shape: lines, fields: ['status'], raw: true }, [row('traffic', { cells: ['a\r'] })]);
    expect(text).toBe('input,status\n"a\r",missing\n');
  });
});

describe('csvLine', () => {
  const piece = fc.constantFrom('a', 'example.com', ' ', 'é', '🙂', '=1', "'", ';', '', ',', '\t', '"', '\r', '\n', '\r\n', '""');
  const record = fc.array(
    fc.array(piece, { maxLength: 4 }).map((p) => p.join('')),
    { maxLength: 6 },
  );

  it.each([
    [',', '\n'],
    ['\t', '\n'],
    [',', '\r\n'],
    ['\t', '\r\n'],
  ] as const)('writes exactly what csv-stringify writes (delimiter %j, row end %j)', (delimiter, eol) => {
    const line = csvLine(delimiter, eol);
    // Any CR or LF quoted whatever the row end: a bare LF in a CRLF file is still a row end to most readers.
    const options = { delimiter, record_delimiter: eol, quoted_match: /[\r\n]/ };
    fc.assert(
      fc.property(record, (r) => {
        expect(line(r)).toBe(stringify([r], options));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads back as the same cells', () => {
    const line = csvLine(',');
    fc.assert(
      fc.property(
        record.filter((r) => r.length > 1),
        (r) => {
          expect(parse(line(r), { relax_column_count: true })).toEqual([r]);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('createRowWriter: JSON and NDJSON', () => {
  it('streams a JSON array of rows with input, status, host, reason and data', async () => {
    const text = await render({ format: 'json', kind: 'profile', shape: csv(['Domain', 'x', 'x', ''], 0) }, [
      row('profile', { line: 2, cells: ['example.com', '1', '2', '3', 'extra'], status: 'found', data: profile, fetchedAt: Date.UTC(2026, 10, 24, 1, 2, 3) }),
      row('profile', { line: 3, cells: ['nope'], status: 'missing', host: 'nope' }),
    ]);
    expect(text.startsWith('[\n{') && text.endsWith('}\n]\n')).toBe(true);
    const parsed = JSON.parse(text);
    expect(parsed[0]).toEqual({
      line: 2,
      input: { Domain: 'example.com', x: '1', x_2: '2', column_4: '3', column_5: 'extra' },
      status: 'found',
      host: 'example.com',
      reason: null,
      data: profile,
      fetched_at: '2026-11-24T01:02:03Z',
    });
    expect(parsed[1]).toEqual({
      line: 3,
      input: { Domain: 'nope', x: null, x_2: null, column_4: null, column_5: null },
      status: 'missing',
      host: 'nope',
      reason: null,
      data: null,
      fetched_at: null,
    });
  });

  it("writes [] for no rows, and a newline list's line as read as {input: line}, the name CSV gives its column", async () => {
    expect(await render({ format: 'json', kind: 'profile', shape: lines }, [])).toBe('[]\n');
    const text = await render({ format: 'ndjson', kind: 'profile', shape: lines }, [row('profile', { cells: [' A.com '] }), row('profile')]);
    const objs = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(objs).toHaveLength(2);
    expect(objs[0].input).toEqual({ input: ' A.com ' });
  });

  it('with fields: flat objects with exactly those keys plus line, arrays and numbers kept', async () => {
    const text = await render({ format: 'ndjson', kind: 'profile', shape: lines, prefix: 'di_', fields: ['technologies', 'age_days', 'platform', 'host'] }, [
      row('profile', { line: 7, status: 'found', data: profile }),
    ]);
    expect(JSON.parse(text)).toEqual({ line: 7, technologies: ['Nginx', 'WordPress'], age_days: 9000, platform: null, host: 'example.com' });
    const t = await render({ format: 'json', kind: 'traffic', shape: lines, fields: ['traffic_history'] }, [
      row('traffic', { status: 'found', data: traffic }),
    ]);
    expect(JSON.parse(t)[0].traffic_history).toEqual(traffic.history);
  });

  it('never neutralises JSON', async () => {
    const text = await render({ format: 'ndjson', kind: 'traffic', shape: lines }, [row('traffic', { cells: ['=1+2'] })]);
    expect(JSON.parse(text).input).toEqual({ input: '=1+2' });
  });
});

describe('createRowWriter: back-pressure', () => {
  it('waits for drain on a slow stream and still delivers every row in order', async () => {
    const received: string[] = [];
    let maxBuffered = 0;
    const slow = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _enc, cb) {
        received.push(chunk.toString());
        setTimeout(cb, 1);
      },
    });
    let drains = 0;
    slow.on('drain', () => drains++);
    const w = createRowWriter(slow, { format: 'ndjson', kind: 'traffic', shape: lines, fields: ['host'] });
    for (let i = 0; i < 200; i++) {
      await w.write(row('traffic', { line: i + 1, host: `h${i}.com` }));
      maxBuffered = Math.max(maxBuffered, slow.writableLength);
    }
    await w.end();
    await new Promise((r) => slow.end(r));
    expect(drains).toBeGreaterThan(10);
    expect(maxBuffered).toBeLessThan(64 + 100);
    const lines_ = received
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).line);
    expect(lines_).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('rejects writes once the output has failed', async () => {
    const broken = new Writable({
      highWaterMark: 1,
      write(_c, _e, cb) {
        cb(new Error('EPIPE'));
      },
    });
    const w = createRowWriter(broken, { format: 'csv', kind: 'traffic', shape: lines });
    await expect(w.write(row('traffic'))).rejects.toThrow('EPIPE');
    await expect(w.write(row('traffic'))).rejects.toThrow('EPIPE');
  });
});
