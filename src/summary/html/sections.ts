// The report's sections, in the terminal's order: each a heading, a chart and the table of the same figures.
import type { Count, Summary } from '../types.js';
import { type Bar, barChart } from './chart.js';
import { type Cell, sortableTable } from './table.js';
import { escapeHtml, grouped, percent, shareOf } from './text.js';

export interface SectionOptions {
  /** Most values a by-count section shows; undefined shows every value. Ordered scales always show whole. */
  top?: number;
}

interface CountSection {
  id: keyof Summary & string;
  title: string;
  column: string;
  /** Scales (bands, ranges, codes) keep the Summary's order and are shown whole; the rest are by count. */
  ordered: boolean;
  empty: string;
}

const COUNT_SECTIONS: readonly CountSection[] = [
  { id: 'technologies', title: 'Technologies', column: 'Technology', ordered: false, empty: 'No technologies in this file.' },
  {
    id: 'categories',
    title: 'Technology categories',
    column: 'Category',
    ordered: false,
    empty: 'No catalog is cached, so technologies are not grouped: `domain-intel catalog` fetches it.',
  },
  { id: 'platforms', title: 'Platforms', column: 'Platform', ordered: false, empty: 'No platforms in this file.' },
  { id: 'networks', title: 'Networks', column: 'Network', ordered: false, empty: 'No networks in this file.' },
  { id: 'countries', title: 'Countries', column: 'Country', ordered: false, empty: 'No countries in this file.' },
  { id: 'languages', title: 'Languages', column: 'Language', ordered: false, empty: 'No languages in this file.' },
  { id: 'trafficBands', title: 'Traffic bands', column: 'Monthly visits', ordered: true, empty: 'No traffic bands in this file.' },
  { id: 'employees', title: 'Employees', column: 'Employees', ordered: true, empty: 'No employee ranges in this file.' },
  { id: 'httpStatus', title: 'Homepage status', column: 'HTTP status', ordered: true, empty: 'No homepage statuses in this file.' },
];

function section(id: string, title: string, body: string): string {
  return `<section id="${id}" data-section="${id}"><h2>${escapeHtml(title)}</h2>\n${body}\n</section>`;
}

function note(text: string): string {
  return `<p class="note">${escapeHtml(text)}</p>`;
}

/** Most bars a by-count chart draws when no --top is given. */
const CHART_BARS = 30;

const countCell = (n: number): Cell => ({ text: grouped(n), sort: n });
const shareCell = (share: number): Cell => ({ text: percent(share), sort: share });

async function countsSection(spec: CountSection, counts: readonly Count[], options: SectionOptions, lead = ''): Promise<string> {
  if (counts.length === 0) return section(spec.id, spec.title, [lead, note(spec.empty)].filter(Boolean).join('\n'));
  const shown = spec.ordered || options.top === undefined ? counts : counts.slice(0, options.top);
  // Without --top the table holds every value (that is what sorting is for), but a chart of hundreds of bars
  // is read by nobody: it shows the largest CHART_BARS. Scales are short and always drawn whole.
  const drawn = spec.ordered ? shown : shown.slice(0, CHART_BARS);
  const bars: Bar[] = drawn.map((c) => ({
    label: c.value,
    value: c.count,
    note: `${grouped(c.count)} · ${percent(c.share)}`,
    title: `${c.value}: ${grouped(c.count)} hosts, ${percent(c.share)} of found hosts`,
  }));
  const table = sortableTable(
    spec.id,
    [
      { header: spec.column, numeric: false },
      { header: 'Hosts', numeric: true },
      { header: 'Share of found hosts', numeric: true },
    ],
    shown.map((c) => [{ text: c.value }, countCell(c.count), shareCell(c.share)]),
  );
  const more =
    shown.length < counts.length
      ? note(`The top ${grouped(shown.length)} of ${grouped(counts.length)} values.`)
      : drawn.length < shown.length
        ? note(`The chart shows the top ${grouped(drawn.length)}; the table has all ${grouped(shown.length)} values.`)
        : '';
  const chart = await barChart(bars, { name: `${spec.title} by hosts` });
  return section(spec.id, spec.title, [lead, chart, more, table].filter(Boolean).join('\n'));
}

// A fixed order, whatever order the object's keys were built in: the good news first.
const ROW_STATUSES = ['found', 'missing', 'invalid', 'error', 'unknown'] as const;

/** A section of fixed parts of a whole: each part's bar (figure and share) and a table of the same. */
interface PartsSpec {
  id: string;
  title: string;
  /** The chart's name for screen readers. */
  chart: string;
  /** The table's headers: the part, its figure, its share. */
  headers: [string, string, string];
  parts: [string, number][];
  whole: number;
  /** A bar's sentence for a screen reader and its tooltip. */
  sentence: (label: string, n: number) => string;
}

async function partsSection(p: PartsSpec): Promise<string> {
  const bars = p.parts.map(([label, n]) => ({ label, value: n, note: `${grouped(n)} · ${percent(shareOf(n, p.whole))}`, title: p.sentence(label, n) }));
  const table = sortableTable(
    p.id,
    [
      { header: p.headers[0], numeric: false },
      { header: p.headers[1], numeric: true },
      { header: p.headers[2], numeric: true },
    ],
    p.parts.map(([label, n]) => [{ text: label }, countCell(n), shareCell(shareOf(n, p.whole))]),
  );
  return section(p.id, p.title, [await barChart(bars, { name: p.chart }), table].join('\n'));
}

function rowsSection(summary: Summary): Promise<string> {
  const whole = summary.input.rows;
  return partsSection({
    id: 'rows',
    title: 'Rows by status',
    chart: 'Rows by status',
    headers: ['Status', 'Rows', 'Share of rows'],
    parts: ROW_STATUSES.map((status): [string, number] => [status, summary.rows[status]]),
    whole,
    sentence: (status, n) => `${status}: ${grouped(n)} rows, ${percent(shareOf(n, whole))} of the file's rows`,
  });
}

const PERCENTILES = [
  ['min', 'lowest'],
  ['p25', '25th percentile'],
  ['p50', 'median'],
  ['p75', '75th percentile'],
  ['p90', '90th percentile'],
  ['max', 'highest'],
] as const;

async function visitsSection(summary: Summary): Promise<string> {
  const visits = summary.visits;
  if (visits === null) return section('visits', 'Monthly visits', note('No visits figures in this file.'));
  const bars = PERCENTILES.map(([key, label]) => ({
    label,
    value: visits[key],
    note: grouped(visits[key]),
    title: `${label}: ${grouped(visits[key])} visits a month`,
  }));
  const table = sortableTable(
    'visits',
    [
      { header: 'Percentile', numeric: false },
      { header: 'Visits', numeric: true },
    ],
    PERCENTILES.map(([key, label]) => [{ text: label }, countCell(visits[key])]),
  );
  // Visits run from tens to billions: on a linear scale everything below the top few would be a sliver.
  const chart = await barChart(bars, { name: 'Monthly visits percentiles', scale: 'log' });
  const about = note(`Of ${grouped(visits.count)} hosts with a visits figure; bars on a logarithmic scale.`);
  return section('visits', 'Monthly visits', [chart, about, table].join('\n'));
}

function resolvesSection(summary: Summary): Promise<string> {
  const parts: [string, number][] = [
    ['resolves', summary.resolves.yes],
    ['does not resolve', summary.resolves.no],
    ['unknown', summary.resolves.unknown],
  ];
  return partsSection({
    id: 'resolves',
    title: 'Resolves',
    chart: 'Hosts by whether they resolve',
    headers: ['DNS', 'Hosts', 'Share'],
    parts,
    whole: parts.reduce((sum, [, n]) => sum + n, 0),
    sentence: (label, n) => `${label}: ${grouped(n)} hosts`,
  });
}

/** Every section of the report, as HTML, in the terminal's order. */
export async function renderSections(summary: Summary, options: SectionOptions): Promise<string> {
  const byId = (id: string, lead = ''): Promise<string> => {
    const spec = COUNT_SECTIONS.find((s) => s.id === id)!;
    return countsSection(spec, summary[spec.id] as Count[], options, lead);
  };
  const redirects = `<p class="figure" data-figure="redirects"><strong>${grouped(summary.redirects)}</strong> found hosts redirect (${percent(
    shareOf(summary.redirects, summary.hosts.found),
  )}).</p>`;
  const sections = await Promise.all([
    rowsSection(summary),
    ...['technologies', 'categories', 'platforms', 'networks', 'countries', 'languages', 'trafficBands'].map((id) => byId(id)),
    visitsSection(summary),
    byId('employees'),
    byId('httpStatus', redirects),
    resolvesSection(summary),
  ]);
  return sections.join('\n');
}
