// Horizontal bar charts as inline SVG, drawn by our own few lines rather than a charting library: the report
// is one static file, every chart in it is a sorted list of (label, number), and a bar per row is the whole
// need. A library (Chart.js, ECharts, Vega) would inline 200 KB-1 MB of script into every report, draw only
// once scripts run (a blank page for anyone who opens it with scripts off, or in a mail preview), and add a
// dependency to keep current; SVG made here is text the tests can read, prints as vectors and loads nothing.
import { clip, escapeHtml } from './text.js';

/** One bar: what it is, its length, the figure written after it, and the tooltip. */
export interface Bar {
  label: string;
  value: number;
  note: string;
  title: string;
}

export interface ChartOptions {
  /** What the chart shows, for screen readers. */
  name: string;
  /** 'log' for figures spread over orders of magnitude (visits), so small ones still show a bar. */
  scale?: 'linear' | 'log';
}

// Geometry in SVG units; the element scales to its column through the viewBox.
const WIDTH = 760;
const LABEL_END = 200; // labels are right-aligned to this x
const BAR_START = 210;
const BAR_SPAN = 420; // the longest bar; the figure after it needs the ~120 units left
const ROW = 24;
const BAR_HEIGHT = 16;
const LABEL_CHARS = 30; // what fits in LABEL_END at the 12 px font

function lengthOf(value: number, max: number, scale: 'linear' | 'log'): number {
  if (value <= 0 || max <= 0) return 0;
  const fraction = scale === 'log' ? Math.log10(value + 1) / Math.log10(max + 1) : value / max;
  // A non-zero figure always gets a visible sliver, however small against the largest.
  return Math.max(2, Math.round(fraction * BAR_SPAN * 10) / 10);
}

/** An SVG bar chart, one row per bar in the order given; an empty list draws nothing (the caller says so). */
export function barChart(bars: readonly Bar[], options: ChartOptions): string {
  if (bars.length === 0) return '';
  const scale = options.scale ?? 'linear';
  const max = Math.max(...bars.map((b) => b.value));
  const height = bars.length * ROW + 8;
  const rows = bars.map((bar, i) => {
    const top = 4 + i * ROW;
    const baseline = top + ROW / 2 + 4;
    const length = lengthOf(bar.value, max, scale);
    return (
      `<g class="bar"><title>${escapeHtml(bar.title)}</title>` +
      `<text class="label" x="${LABEL_END}" y="${baseline}" text-anchor="end">${escapeHtml(clip(bar.label, LABEL_CHARS))}</text>` +
      `<rect x="${BAR_START}" y="${top + (ROW - BAR_HEIGHT) / 2}" width="${length}" height="${BAR_HEIGHT}" rx="2"/>` +
      `<text class="value" x="${BAR_START + length + 6}" y="${baseline}">${escapeHtml(bar.note)}</text></g>`
    );
  });
  return (
    `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(options.name)}">` +
    `${rows.join('')}</svg>`
  );
}
