// How single answers are shown: a readable table on a terminal, JSON when piped, or what --format asks
// (chosen in format-choice.ts, which loads without the table renderer).
import type { CatalogCategory, DomainProfile, EmployeesResult, TechnologyCount, TrafficHistory } from '../../api/types.js';
import { groupedNumber } from './format.js';
import { renderHistoryChart } from './sparkline.js';
import { renderKeyValue, renderTable } from './table.js';
import type { Style } from './terminal.js';

/**
 * Records as the row writer lays them out: a JSON array of one record per line, or NDJSON (one per line). An
 * array even for one record, so a script reads every command's JSON the same way.
 */
export function recordsJson(records: readonly unknown[], format: 'json' | 'ndjson'): string {
  const lines = records.map((r) => JSON.stringify(r));
  if (format === 'ndjson') return lines.map((l) => `${l}\n`).join('');
  return lines.length === 0 ? '[]\n' : `[\n${lines.join(',\n')}\n]\n`;
}

function range(low: number | null, high: number | null, point: number | null): string {
  if (point !== null) return groupedNumber(point);
  if (low === null && high === null) return '—';
  if (high === null) return `${groupedNumber(low)}+`;
  return `${groupedNumber(low)}–${groupedNumber(high)}`;
}

/** A profile as label: value lines. */
export function profileView(p: DomainProfile, style: Style, width?: number): string {
  const t = p.traffic;
  const e = p.employees;
  return renderKeyValue(
    [
      ['host', p.domain, 'key'],
      ['resolves', p.resolves],
      ['technologies', p.technologies],
      ['network', p.network],
      ['platform', p.platform],
      ['registrar', p.registrar],
      ['age', p.age_days === null ? null : `${groupedNumber(p.age_days)} days`],
      ['country', p.country_iso],
      ['language', p.lang_norm],
      ['http status', p.http_status],
      ['redirects to', p.redirect_to],
      ['traffic', t === null ? null : `${groupedNumber(t.estimated_monthly_visits)} visits/month (${t.band}, ${t.as_of})`],
      ['employees', e === null ? null : `${range(e.low, e.high, e.point)} at ${e.apex} (${e.as_of})`],
    ],
    { style, ...(width === undefined ? {} : { width }) },
  );
}

/** Traffic with its monthly chart. */
export function trafficView(t: TrafficHistory, style: Style): string {
  const kv = renderKeyValue(
    [
      ['host', t.host],
      ['visits/month', t.estimated_monthly_visits],
      ['band', t.band],
      ['as of', t.as_of],
    ],
    { style },
  );
  return t.history.length > 0 ? `${kv}\n${renderKeyValue([['history', renderHistoryChart(t.history, { style })]], { style })}` : kv;
}

/** An employee estimate. */
export function employeesView(e: EmployeesResult, style: Style): string {
  const x = e.estimated_employees;
  return renderKeyValue(
    [
      ['host', e.host],
      ['organisation', e.apex],
      ['employees', range(x.low, x.high, x.point)],
      ['as of', e.as_of],
    ],
    { style },
  );
}

/** A technology count. */
export function technologyView(t: TechnologyCount, style: Style): string {
  return renderKeyValue(
    [
      ['technology', t.tech],
      ['domains', t.domains],
    ],
    { style },
  );
}

/** The catalog as one table of category, technology, domains. */
export function catalogView(categories: CatalogCategory[], style: Style, width?: number): string {
  const rows = categories.flatMap((c) => c.technologies.map((t) => ({ category: c.category, tech: t.tech, domains: t.domains })));
  return renderTable(
    rows,
    [
      { key: 'category', kind: 'key' },
      { key: 'tech', header: 'technology', kind: 'key' },
      { key: 'domains', align: 'right', kind: 'number' },
    ],
    {
      style,
      ...(width === undefined ? {} : { width }),
    },
  );
}
