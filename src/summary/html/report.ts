// The HTML report of a summary (`summarize --html FILE`): one self-contained page, the terminal's sections
// as charts with a sortable table under each. A function of the Summary alone: it prints nothing and touches
// no file; the command writes what it returns. Asynchronous because Vega, which draws the charts as static SVG
// (chart.ts says why Vega-Lite), loads on first use and renders through promises.
import type { Summary } from '../types.js';
import { page } from './page.js';
import { renderSections } from './sections.js';
import { escapeHtml, grouped, percent, shareOf } from './text.js';

export interface ReportOptions {
  /** Most values each by-count section shows (`--top`); undefined shows every value. */
  top?: number;
}

// '2026-11-24T04:08:00Z' -> '2026-11-24 04:08:00 UTC': the date as written, with no locale or zone guessed.
function readableDate(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

function figure(name: string, label: string, value: string): string {
  return `<div data-figure="${name}"><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`;
}

function header(summary: Summary): string {
  const { input, hosts } = summary;
  // The file's own name heads the page; the path it was read from, when there is one, follows in the line below.
  const base = input.name.split(/[\\/]/).pop() || input.name;
  const name = escapeHtml(base);
  const from = base === input.name ? '' : ` from <span class="path">${escapeHtml(input.name)}</span>`;
  const date = escapeHtml(summary.generatedAt);
  const figures = [
    figure('rows', 'Rows', grouped(input.rows)),
    figure('distinct', 'Distinct hosts', grouped(hosts.distinct)),
    figure('found', 'Found hosts', grouped(hosts.found)),
    figure('found-share', 'Found of distinct', percent(shareOf(hosts.found, hosts.distinct))),
  ];
  return [
    '<header>',
    `<h1 data-input="${escapeHtml(input.name)}">${name}</h1>`,
    `<p class="meta">Summary of a ${escapeHtml(input.format.toUpperCase())} file${from}, made <time datetime="${date}">${escapeHtml(readableDate(summary.generatedAt))}</time>. Shares are of found hosts; a host on several rows counts once.</p>`,
    `<dl class="figures">${figures.join('')}</dl>`,
    '</header>',
  ].join('\n');
}

/** The report as one HTML document: no external references, well-formed as XML too. */
export async function renderReport(summary: Summary, options: ReportOptions = {}): Promise<string> {
  const body = `${header(summary)}\n<main>\n${await renderSections(summary, { top: options.top })}\n</main>`;
  return page(`${escapeHtml(summary.input.name)}: summary`, body);
}
