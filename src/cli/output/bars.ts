// A Summary as the terminal shows it: a heading and aligned horizontal bars per section, as wide as the
// terminal (80 columns off one), the top N of each section and a line saying how many more there are.
// Values come from the input file and the service, so each is made inert (sanitizeForTerminal) before it is
// measured or padded.
import { percent } from '../../summary/figures.js';
import type { Count, Summary } from '../../summary/types.js';
import { SCALES } from '../options/summarize.js';
import { groupedNumber as n } from './format.js';
import { wrapLine } from './wrap.js';
import { displayWidth, padToWidth, PLAIN, type Style, sanitizeForTerminal, truncateToWidth } from './terminal.js';

type ListKey = 'technologies' | 'categories' | 'platforms' | 'networks' | 'countries' | 'languages' | 'trafficBands' | 'employees' | 'httpStatus';

/** The sections in the order shown, with their headings. */
const SECTIONS: readonly (readonly [ListKey, string])[] = [
  ['technologies', 'Technologies'],
  ['categories', 'Categories'],
  ['platforms', 'Platforms'],
  ['networks', 'Networks'],
  ['countries', 'Countries'],
  ['languages', 'Languages'],
  ['trafficBands', 'Traffic (monthly visits)'],
  ['employees', 'Employees'],
  ['httpStatus', 'Homepage status'],
];

export interface BarsOptions {
  top: number;
  /** Only this section, in full. */
  by?: ListKey | undefined;
  width?: number | undefined;
  style?: Style;
}

// Eighths of a block, so a bar's end is drawn to an eighth of a column.
const PARTS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** The summary as text for a terminal (or a pipe: the same text, no colour). */
export function renderSummary(s: Summary, o: BarsOptions): string {
  const style = o.style ?? PLAIN;
  const width = Math.max(40, o.width ?? 80);
  const out: string[] = [];
  // Headings are cut to the width (bars are laid out to it); lines of figures wrap between words on a terminal,
  // so no figure is cut off (at 60 columns the rows line lost its error count to an ellipsis).
  const clip = (text: string) => truncateToWidth(text, width);
  const wrap = (text: string) => wrapLine(text, o.width === undefined ? undefined : width);
  if (o.by === undefined) {
    out.push(style.bold(clip(`${sanitizeForTerminal(s.input.name)} (${s.input.format}), ${s.generatedAt}`)));
    const r = s.rows;
    out.push(
      wrap(
        `rows       ${n(s.input.rows)}: ${n(r.found)} found, ${n(r.missing)} missing, ${n(r.invalid)} invalid, ${n(r.error)} error${r.unknown > 0 || s.input.format === 'hosts' ? `, ${n(r.unknown)} ${s.input.format === 'hosts' ? 'not in the cache' : 'not looked up'}` : ''}`,
      ),
    );
    out.push(wrap(`hosts      ${n(s.hosts.distinct)} distinct, ${n(s.hosts.found)} found (shares below are of found hosts)`));
  }
  for (const [key, title] of SECTIONS) {
    if (o.by !== undefined && o.by !== key) continue;
    const list = s[key];
    if (list.length === 0) continue;
    // The scales are in their own order (band, range, code): their first N would be no "top", so they are whole.
    const shown = o.by === key || SCALES.has(key) ? list : list.slice(0, o.top);
    out.push('', style.bold(wrap(`${title}${shown.length < list.length ? `, top ${shown.length} of ${n(list.length)}` : ''}${coverage(s, key)}`)));
    out.push(...bars(shown, width, style));
    if (shown.length < list.length) out.push(style.dim(clip(`  ... ${n(list.length - shown.length)} more (--by ${byName(key)})`)));
    if (key === 'trafficBands' && s.visits !== null && o.by === undefined) {
      const v = s.visits;
      out.push(wrap(`  visits, ${n(v.count)} hosts: min ${n(v.min)}, p25 ${n(v.p25)}, median ${n(v.p50)}, p75 ${n(v.p75)}, p90 ${n(v.p90)}, max ${n(v.max)}`));
    }
  }
  if (o.by === undefined) {
    out.push('', wrap(`redirects  ${n(s.redirects)} of ${n(s.hosts.found)} found hosts`));
    out.push(wrap(`resolves   ${n(s.resolves.yes)} yes, ${n(s.resolves.no)} no, ${n(s.resolves.unknown)} unknown`));
  }
  return `${out.join('\n')}\n`;
}

/**
 * How many found hosts a one-value-a-host section covers, when not all: its shares then do not add up to 100%,
 * and this says why (a host with no traffic estimate has no band). Technologies and categories are several a
 * host, so their counts say nothing of coverage.
 */
function coverage(s: Summary, key: ListKey): string {
  if (key === 'technologies' || key === 'categories') return '';
  const covered = s[key].reduce((sum, c) => sum + c.count, 0);
  return covered < s.hosts.found ? ` (${n(covered)} of ${n(s.hosts.found)} found hosts)` : '';
}

/** One line a value: label, bar, count, share; the bars scaled to the section's largest count. */
function bars(list: Count[], width: number, style: Style): string[] {
  const labels = list.map((c) => sanitizeForTerminal(c.value));
  const labelWidth = Math.min(Math.max(...labels.map(displayWidth)), Math.floor(width / 3));
  const counts = list.map((c) => n(c.count));
  const countWidth = Math.max(...counts.map((c) => c.length));
  const barWidth = Math.max(4, width - labelWidth - countWidth - 13);
  const max = Math.max(...list.map((c) => c.count), 1);
  return list.map((c, i) => {
    const label = truncateToWidth(labels[i] as string, labelWidth);
    const eighths = Math.round((c.count / max) * barWidth * 8);
    const bar = '█'.repeat(Math.floor(eighths / 8)) + PARTS[eighths % 8];
    const share = percent(c.share);
    return `  ${padToWidth(label, labelWidth, 'left')} ${padToWidth(bar, barWidth, 'left', style.cyan(bar))} ${(counts[i] as string).padStart(countWidth)} ${share.padStart(6)}`;
  });
}

function byName(key: ListKey): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
