// Horizontal bar charts, specified in Vega-Lite and rendered by Vega to static SVG here, in Node, when the report
// is written. A declarative grammar, kept by the UW Interactive Data Lab, says what a chart is (a bar per row,
// its label, the figure after it, the scale) and leaves the drawing to a library we need not maintain. Rendered
// at run time rather than in the browser, the report keeps what a script-drawn chart would lose: it is one file
// with no script for its charts (nothing blank with scripts off or in a mail preview), it loads nothing, prints
// as vectors, and the tests read every bar out of the markup. Vega is loaded only when a report is rendered.
import type { TopLevelSpec } from 'vega-lite';
import { escapeHtml, xmlSafe } from './text.js';

/** One bar: what it is, its length, the figure written after it, and the sentence a screen reader hears. */
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

// Geometry in SVG units; the element scales to its column through the viewBox. Fixed, not fitted to the
// labels: Vega measures text in Node by an estimate (0.8 em a character), so fitting would leave a gap.
const LABEL_SPACE = 210; // labels are right-aligned 8 units left of the bars
const BAR_SPAN = 430; // the longest bar; the figure after it needs the ~120 units left of 760
const FIGURE_SPACE = 120;
const ROW = 24;
const BAR_HEIGHT = 16;
// In Vega's estimate units: about 30 characters at 12 px, about 195 px as a browser draws them.
const LABEL_LIMIT = 290;

// The page's light colours; its style sheet overrides them (dark mode) and sets the page's font by the marks'
// classes. Vega writes the font on every text: the generic name keeps that short (a few KB a report).
const FONT = 'sans-serif';
const COLOURS = { fg: '#1d2430', muted: '#5b6573', bar: '#3567d4' };

/** The Vega-Lite specification of a chart: bars in the order given, each labelled and followed by its figure. */
function barSpec(bars: readonly Bar[], options: ChartOptions): TopLevelSpec {
  // Values came from the input file: made safe for XML (Vega escapes markup, not control bytes). Rows are keyed
  // by position, not label, so two labels alike cannot share a band, and the order is the caller's.
  // A non-zero figure always gets a visible sliver (half a percent of the longest bar), however small against
  // the largest: a count of 1 beside 1,000 would otherwise draw under half a unit, as if it were none.
  const floor = Math.max(0, ...bars.map((b) => b.value)) * 0.005;
  const values = bars.map((b, i) => ({
    i,
    label: xmlSafe(b.label),
    value: b.value,
    shown: b.value > 0 && options.scale !== 'log' ? Math.max(b.value, floor) : b.value,
    note: xmlSafe(b.note),
    title: xmlSafe(b.title),
  }));
  // log10(v + 1), the symmetric log with constant 1: visits from tens to billions, and a zero still drawable.
  const scale = options.scale === 'log' ? { type: 'symlog' as const, constant: 1 } : { type: 'linear' as const };
  return {
    description: xmlSafe(options.name),
    width: BAR_SPAN,
    height: { step: ROW },
    autosize: { type: 'none' },
    padding: { left: LABEL_SPACE, right: FIGURE_SPACE, top: 4, bottom: 4 },
    background: 'transparent',
    config: { view: { stroke: null }, font: FONT, text: { fontSize: 12 } },
    data: { values },
    encoding: {
      y: { field: 'i', type: 'ordinal', sort: null, axis: null, scale: { paddingInner: 1 - BAR_HEIGHT / ROW, paddingOuter: (1 - BAR_HEIGHT / ROW) / 2 } },
      x: { field: 'shown', type: 'quantitative', axis: null, scale: { ...scale, nice: false } },
    },
    layer: [
      { name: 'bars', mark: { type: 'bar', color: COLOURS.bar }, encoding: { description: { field: 'title' } } },
      // Labels sit in the left padding, so they take no x from the data.
      {
        name: 'labels',
        mark: { type: 'text', align: 'right', limit: LABEL_LIMIT, color: COLOURS.fg, aria: false },
        encoding: { x: { value: -8 }, text: { field: 'label' } },
      },
      { name: 'notes', mark: { type: 'text', align: 'left', dx: 6, color: COLOURS.muted, aria: false }, encoding: { text: { field: 'note' } } },
    ],
  };
}

type Libraries = [typeof import('vega-lite'), typeof import('vega')];
let libraries: Promise<Libraries> | undefined;

/** A chart as static SVG in a container naming it, in the order given; an empty list draws nothing. */
export async function barChart(bars: readonly Bar[], options: ChartOptions): Promise<string> {
  if (bars.length === 0) return '';
  // Imported here, once: every other command, and CLI start-up, never pays for Vega.
  libraries ??= Promise.all([import('vega-lite'), import('vega')]);
  const [vl, vega] = await libraries;
  const view = new vega.View(vega.parse(vl.compile(barSpec(bars, options)).spec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return `<div class="chart" role="img" aria-label="${escapeHtml(options.name)}">${svg}</div>`;
  } finally {
    view.finalize();
  }
}
