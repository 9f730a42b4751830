// The CSV row template (output/csv-row.ts) against the general path it replaces (every cell through one rule
// and csvLine, which write.test.ts holds equal to csv-stringify): byte for byte the same text for any rows,
// answers shared between rows or not, any --fields choice and order, --changes, raw, neutraliseInput,
// delimiter and row end. A terminal cleaner forces the general path, so the identity cleaner gives the reference.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnsFor } from '../../src/domain/flatten.js';
import type { EnrichedRow, InputShape, RowChange, RunKind } from '../../src/domain/types.js';
import { createRowWriter, type RowWriterOptions } from '../../src/output/write.js';
import { sink } from '../run/helpers.js';

async function render(opts: RowWriterOptions, rows: EnrichedRow[]): Promise<string> {
  const out = sink();
  const w = createRowWriter(out, opts);
  for (const r of rows) await w.write(r);
  await w.end();
  return out.text();
}

const piece = fc.constantFrom('a', 'example.com', ' ', 'é', '=1', '-', '+', '@x', "'", ';', '|', '', ',', '\t', '"', '\r', '\n', '-5', '1e3');
const text = fc.array(piece, { maxLength: 4 }).map((p) => p.join(''));
const num = fc.oneof(fc.integer({ min: -100000, max: 100000 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const profileBody = fc.record({
  domain: text,
  resolves: maybe(fc.boolean()),
  technologies: maybe(fc.array(text, { maxLength: 3 })),
  network: maybe(text),
  platform: maybe(text),
  registrar: maybe(text),
  age_days: maybe(num),
  country_iso: maybe(text),
  lang_norm: maybe(text),
  http_status: maybe(num),
  redirect_to: maybe(text),
  traffic: maybe(fc.record({ estimated_monthly_visits: maybe(num), band: maybe(text), as_of: maybe(text) })),
  employees: maybe(fc.record({ low: maybe(num), high: maybe(num), point: maybe(num), as_of: maybe(text) })),
});
const trafficBody = fc.record({
  host: text,
  estimated_monthly_visits: maybe(num),
  band: maybe(text),
  as_of: maybe(text),
  history: maybe(fc.array(fc.record({ month: text, visits: num }), { maxLength: 3 })),
});
const employeesBody = fc.record({
  host: text,
  apex: maybe(text),
  estimated_employees: maybe(fc.record({ low: maybe(num), high: maybe(num), point: maybe(num) })),
  as_of: maybe(text),
});
const bodies: Record<RunKind, fc.Arbitrary<unknown>> = { profile: profileBody, traffic: trafficBody, employees: employeesBody };

const change: fc.Arbitrary<RowChange> = fc.record({
  change: fc.constantFrom('new', 'same', 'changed', 'gone', 'back'),
  fields: fc.array(text, { maxLength: 3 }),
  techAdded: fc.array(text, { maxLength: 2 }),
  techRemoved: fc.array(text, { maxLength: 2 }),
  bandWas: maybe(text),
  previousAt: maybe(fc.integer({ min: 0, max: 4e12 })),
  second: fc.nat(),
});

const second = fc.integer({ min: 0, max: 4_000_000_000 }).map((s) => s * 1000);

function scenario(kind: RunKind) {
  return fc
    .record({
      bodies: fc.array(bodies[kind], { minLength: 1, maxLength: 3 }),
      changes: fc.array(change, { minLength: 1, maxLength: 3 }),
      rows: fc.array(
        fc.record({
          status: fc.constantFrom('found', 'missing', 'invalid', 'error'),
          body: fc.nat(2),
          change: maybe(fc.nat(2)),
          cells: fc.array(text, { maxLength: 5 }),
          host: maybe(text),
          reason: maybe(text),
          fetchedAt: maybe(second),
        }),
        { maxLength: 8 },
      ),
      width: fc.integer({ min: 0, max: 3 }),
      list: fc.boolean(),
      delimiter: fc.constantFrom(',', ';', '\t', '|'),
      eol: fc.constantFrom('\n', '\r\n', '\r'),
      raw: fc.boolean(),
      neutraliseInput: fc.boolean(),
      withChanges: fc.boolean(),
      fields: fc.option(fc.shuffledSubarray(columnsFor(kind, true), { minLength: 1 }), { nil: undefined }),
    })
    .map((s) => {
      const withChanges = s.withChanges || (s.fields?.some((f) => !columnsFor(kind).includes(f)) ?? false);
      const shape: InputShape = s.list
        ? { format: 'lines', headers: null, hostColumn: 0, eol: s.eol }
        : { format: 'csv', headers: Array.from({ length: s.width }, (_, i) => `h${i}`), hostColumn: 0, delimiter: s.delimiter, eol: s.eol };
      const rows = s.rows.map((r, i): EnrichedRow => {
        const answered = r.status === 'found' || r.status === 'missing';
        const c = r.change === null ? undefined : s.changes[r.change % s.changes.length];
        return {
          kind,
          line: i + 2,
          cells: r.cells,
          value: r.cells[0] ?? '',
          status: r.status,
          host: r.host,
          reason: r.reason,
          // Rows of one answer share its object, as a host's rows do in a run.
          data: r.status === 'found' ? (s.bodies[r.body % s.bodies.length] as never) : null,
          cached: false,
          fetchedAt: answered ? r.fetchedAt : null,
          ...(answered && withChanges && c ? { change: c } : {}),
        };
      });
      const opts: RowWriterOptions = { format: 'csv', kind, shape, raw: s.raw, neutraliseInput: s.neutraliseInput, changes: withChanges, fields: s.fields };
      return { opts, rows };
    });
}

describe('CSV rows from the template', () => {
  it.each(['profile', 'traffic', 'employees'] as const)('%s: byte for byte what the general path writes', async (kind) => {
    await fc.assert(
      fc.asyncProperty(scenario(kind), async ({ opts, rows }) => {
        const general = await render({ ...opts, cleanCell: (c) => c }, rows);
        expect(await render(opts, rows)).toBe(general);
      }),
      { numRuns: 1500 },
    );
  });

  it('an answer rendered once is not rendered stale for a row of another host, status or time', async () => {
    const body = { domain: 'a.com', resolves: true, technologies: ['=x'], traffic: null, employees: null } as never;
    const rows: EnrichedRow[] = [
      { kind: 'profile', line: 2, cells: ['a'], value: 'a', status: 'found', host: 'a.com', reason: null, data: body, cached: false, fetchedAt: 0 },
      { kind: 'profile', line: 3, cells: ['b'], value: 'b', status: 'found', host: 'b.com', reason: null, data: body, cached: true, fetchedAt: 1000 },
    ];
    const text = await render(
      { format: 'csv', kind: 'profile', shape: { format: 'lines', headers: null, hostColumn: 0 }, fields: ['host', 'technologies', 'fetched_at'] },
      rows,
    );
    expect(text).toBe("input,host,technologies,fetched_at\na,a.com,'=x,1970-01-01T00:00:00Z\nb,b.com,'=x,1970-01-01T00:00:01Z\n");
  });
});
