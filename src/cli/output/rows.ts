// Writing enriched rows and small tables of values from a command to stdout.
import type { Writable } from 'node:stream';
import type { EnrichedRow, RunKind } from '../../domain/types.js';
import { createRowWriter, flatten, neutraliseCell } from '../../output/write.js';
import { fieldValues } from '../../domain/flatten.js';
import type { Context } from '../context.js';
import type { EnrichCommand } from '../options/table.js';
import { renderTable, type Column } from './table.js';
import { sanitizeForTerminal, type Style } from './terminal.js';

/** CSV cells written to a terminal are cleaned of escapes and control characters (not so into a file or pipe). */
export function terminalCells(ctx: Context, stream: NodeJS.WritableStream): { cleanCell?: (cell: string) => string } {
  return stream === ctx.io.stdout && ctx.io.stdout.isTTY === true ? { cleanCell: sanitizeForTerminal } : {};
}

/** Writes rows through the pipeline's writer (the same columns and rules as `batch`; a workbook through output/workbook.ts). */
export async function writeRows(
  ctx: Context<EnrichCommand>,
  opts: { kind: RunKind; format: 'csv' | 'json' | 'ndjson' | 'xlsx'; rows: EnrichedRow[]; stream?: Writable },
): Promise<void> {
  const stream = opts.stream ?? ctx.io.stdout;
  const options = {
    kind: opts.kind,
    shape: { format: 'lines' as const, headers: null, hostColumn: 0 },
    ...(ctx.opts.prefix === undefined ? {} : { prefix: ctx.opts.prefix }),
    ...(ctx.opts.fields === undefined ? {} : { fields: ctx.opts.fields }),
    raw: ctx.opts.raw === true,
    neutraliseInput: ctx.opts.neutraliseInput === true,
    bom: ctx.opts.bom === true,
  };
  // The spreadsheet writer (and exceljs) loads only when a workbook is asked for.
  const writer =
    opts.format === 'xlsx'
      ? (await import('../../output/workbook.js')).createXlsxWriter(stream, options)
      : createRowWriter(stream, { ...options, format: opts.format, ...terminalCells(ctx, stream) });
  for (const row of opts.rows) await writer.write(row);
  await writer.end();
}

/** Writes a small CSV (header and rows) to stdout, neutralising formula-like cells unless --raw. */
export async function writeCsv(ctx: Context<'tech' | 'catalog'>, header: string[], rows: (string | number)[][]): Promise<void> {
  // Loaded here, not with the module: a single lookup's JSON goes through writeRows and needs none of it.
  const { stringify } = await import('csv-stringify/sync');
  const clean = terminalCells(ctx, ctx.io.stdout).cleanCell ?? ((s: string) => s);
  const safe = (v: string | number) => (typeof v === 'number' ? v : clean(ctx.opts.raw === true ? v : neutraliseCell(v)));
  ctx.io.stdout.write(stringify([header, ...rows.map((r) => r.map(safe))], { record_delimiter: '\n' }));
}

// The host (and the organisation an employees row is counted at) is what a row is about: a key, never cut;
// figures never cut; the status, a country code and a date are short words read whole (keys too). Only the
// technologies and the reason are free text, which wraps on a narrow terminal, or goes under its row (table.ts).
const TABLE_COLUMNS: Record<RunKind, Column[]> = {
  profile: [
    { key: 'host', kind: 'key' },
    { key: 'status', kind: 'key' },
    { key: 'technologies', short: 'tech', max: 40, kind: 'text' },
    { key: 'country_iso', header: 'country', short: 'cc', kind: 'key' },
    { key: 'traffic_visits', header: 'visits/mo', short: 'visits', align: 'right', kind: 'number' },
    { key: 'employees', header: 'employees', short: 'empl.', align: 'right', kind: 'number' },
    { key: 'reason', max: 40, kind: 'text' },
  ],
  traffic: [
    { key: 'host', kind: 'key' },
    { key: 'status', kind: 'key' },
    { key: 'traffic_visits', header: 'visits/mo', short: 'visits', align: 'right', kind: 'number' },
    { key: 'traffic_band', header: 'band', kind: 'key' },
    { key: 'traffic_as_of', header: 'as of', kind: 'key' },
    { key: 'reason', max: 40, kind: 'text' },
  ],
  employees: [
    { key: 'host', kind: 'key' },
    { key: 'status', kind: 'key' },
    { key: 'apex', header: 'organisation', short: 'org', kind: 'key' },
    { key: 'employees', short: 'empl.', align: 'right', kind: 'number' },
    { key: 'employees_as_of', header: 'as of', kind: 'key' },
    { key: 'reason', max: 40, kind: 'text' },
  ],
};

/** Rows as an aligned table for a terminal. */
export function renderRowsTable(rows: EnrichedRow[], kind: RunKind, style: Style, width?: number): string {
  const view = rows.map((row) => {
    const f = flatten(row);
    const low = f.employees_low;
    const high = f.employees_high;
    const employees = f.employees_point ?? (low === null || low === undefined ? null : high === null ? `${String(low)}+` : `${String(low)}–${String(high)}`);
    // Technologies as a list (`a, b`), so they wrap between names; CSV's `a;b` has no space to wrap at.
    return { ...f, host: row.host ?? row.value, employees, technologies: fieldValues(row).technologies ?? null };
  });
  return renderTable(view, TABLE_COLUMNS[kind], { style, ...(width === undefined ? {} : { width }) });
}
