// A one-line picture of a monthly series, for `traffic` on a terminal: the shape matters more than the
// figures, which are given beside it (min, max, latest) in humanised form.
import type { TrafficMonth } from '../../api/types.js';
import { humanNumber } from './format.js';
import { PLAIN, type Style, sanitizeForTerminal } from './terminal.js';

const BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;
// A flat series has no shape to show; a row of middle bars says "steady" better than a row of floor bars.
const MID = BARS[3];

/** Bars scaled between the series' min and max: flat series -> middle bars, empty -> '', non-finite -> ' '. */
export function sparkline(values: number[]): string {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return values.map(() => ' ').join('');
  const min = finite.reduce((a, b) => Math.min(a, b));
  const max = finite.reduce((a, b) => Math.max(a, b));
  const span = max - min;
  return values
    .map((v) => {
      if (!Number.isFinite(v)) return ' ';
      if (span === 0) return MID;
      return BARS[Math.round(((v - min) / span) * (BARS.length - 1))]!;
    })
    .join('');
}

export interface ChartOptions {
  style?: Style;
}

/** 'first-month ▁▃▅█ last-month  min 34.5k · max 1.2M · last 1.1M' for a monthly history; no trailing newline. */
export function renderHistoryChart(history: TrafficMonth[], opts: ChartOptions = {}): string {
  const style = opts.style ?? PLAIN;
  if (history.length === 0) return style.dim('no history');
  // YYYY-MM sorts lexically; the service's order is not promised, and a chart must run oldest to newest.
  const months = [...history].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
  const visits = months.map((m) => m.visits);
  const finite = visits.filter((v) => Number.isFinite(v));
  const first = sanitizeForTerminal(months[0]!.month);
  const last = sanitizeForTerminal(months[months.length - 1]!.month);
  const figures =
    finite.length === 0
      ? '?'
      : [
          `min ${humanNumber(finite.reduce((a, b) => Math.min(a, b)))}`,
          `max ${humanNumber(finite.reduce((a, b) => Math.max(a, b)))}`,
          `last ${humanNumber(visits[visits.length - 1]!)}`,
        ].join(' · ');
  return `${style.dim(first)} ${style.cyan(sparkline(visits))} ${style.dim(last)}  ${figures}`;
}
