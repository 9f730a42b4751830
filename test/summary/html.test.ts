// The HTML report read back: well-formed, nothing external, every section there, and the figures in its
// tables and charts equal to the Summary's, written out here by our own formatting, not the report's.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/summary/html/report.js';
import type { Count, Summary } from '../../src/summary/types.js';
import { type El, findAll, findOne, parseReport, textOf } from './html-parse.js';
import { emptySummary, sampleSummary } from './html-sample.js';

const COUNT_SECTIONS = ['technologies', 'categories', 'platforms', 'networks', 'countries', 'languages', 'trafficBands', 'employees', 'httpStatus'] as const;
const ALL_SECTIONS = ['rows', ...COUNT_SECTIONS.slice(0, 7), 'visits', 'employees', 'httpStatus', 'resolves'];

const number = (n: number): string => n.toLocaleString('en-US');
const PERCENT = new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
const pct = (share: number): string => PERCENT.format(share);

function sectionOf(doc: El, id: string): El {
  return findOne(doc, (e) => e.name === 'section' && e.attrs['data-section'] === id);
}

/** A table's body rows as [text, data-sort] per cell. */
function tableRows(doc: El, id: string): { text: string; sort: string | undefined }[][] {
  const table = findOne(doc, (e) => e.name === 'table' && e.attrs['data-table'] === id);
  const body = findOne(table, (e) => e.name === 'tbody');
  return findAll(body, (e) => e.name === 'tr').map((tr) =>
    findAll(tr, (e) => e.name === 'td').map((td) => ({ text: textOf(td), sort: td.attrs['data-sort'] })),
  );
}

/** The texts of one of a chart's named Vega layers ('labels', 'notes'), in the order drawn. */
function layerTexts(svg: El, layer: string): string[] {
  const group = findOne(svg, (e) => e.name === 'g' && (e.attrs.class ?? '').split(' ').includes(`${layer}_marks`));
  return findAll(group, (e) => e.name === 'text').map(textOf);
}

/** A bar's length: Vega draws a bar as a path 'M x,y h WIDTH v HEIGHT h -WIDTH Z'. */
function widthOf(bar: El): number {
  const m = /^M[-\d.e]+,[-\d.e]+h([-\d.e]+)v[-\d.e]+h[-\d.e]+Z$/.exec(bar.attrs.d ?? '');
  if (!m) throw new Error(`a bar drawn as ${bar.attrs.d}`);
  return Number(m[1]);
}

/** A chart's bars as Vega drew them: the sentence on the bar, the label left of it, the figure after it, its length. */
function bars(section: El): { title: string; label: string; note: string; width: number }[] {
  const container = findOne(section, (e) => e.name === 'div' && e.attrs.class === 'chart');
  expect(container.attrs.role).toBe('img');
  expect(container.attrs['aria-label']).toMatch(/\w/);
  const svg = findOne(container, (e) => e.name === 'svg');
  const drawn = findAll(svg, (e) => e.attrs['aria-roledescription'] === 'bar');
  const labels = layerTexts(svg, 'labels');
  const notes = layerTexts(svg, 'notes');
  expect([labels.length, notes.length]).toEqual([drawn.length, drawn.length]);
  return drawn.map((bar, i) => ({ title: bar.attrs['aria-label']!, label: labels[i]!, note: notes[i]!, width: widthOf(bar) }));
}

/** A label as the chart shows it: whole, or cut with an ellipsis when too long for the label column. */
function expectLabel(shown: string, value: string): void {
  if (shown === value) return;
  expect(shown.endsWith('…') && shown.length >= 20 && value.startsWith(shown.slice(0, -1)), `label ${shown} for ${value}`).toBe(true);
}

function expectCounts(doc: El, id: string, counts: readonly Count[]): void {
  const rows = tableRows(doc, id);
  expect(rows.map((r) => [r[0]!.text, Number(r[1]!.sort), Number(r[2]!.sort)])).toEqual(
    counts.map((c) => [c.value.replace(/\x07/g, '\ufffd'), c.count, c.share]),
  );
  expect(rows.map((r) => [r[1]!.text, r[2]!.text])).toEqual(counts.map((c) => [number(c.count), pct(c.share)]));
  const drawn = bars(sectionOf(doc, id));
  expect(drawn.map((b) => b.note)).toEqual(counts.map((c) => `${number(c.count)} · ${pct(c.share)}`));
  expect(drawn.map((b) => b.title)).toEqual(
    counts.map((c) => `${c.value.replace(/\x07/g, '\ufffd')}: ${number(c.count)} hosts, ${pct(c.share)} of found hosts`),
  );
  for (const [i, b] of drawn.entries()) expectLabel(b.label, counts[i]!.value.replace(/\x07/g, '\ufffd'));
  // Bar lengths follow the counts: the largest is the full span, and a larger count never draws shorter.
  const largest = Math.max(...counts.map((c) => c.count));
  drawn.forEach((b, i) => {
    expect(b.width).toBeGreaterThan(0);
    if (counts[i]!.count === largest) expect(b.width).toBe(430);
    drawn.forEach((o, j) => {
      // Counts under half a percent of the largest all draw the same sliver.
      if (counts[i]!.count > counts[j]!.count) expect(b.width).toBeGreaterThanOrEqual(o.width);
      if (counts[i]!.count > counts[j]!.count && counts[i]!.count > largest * 0.005) expect(b.width).toBeGreaterThan(o.width);
    });
  });
}

describe('renderReport', async () => {
  const summary = sampleSummary();
  const html = await renderReport(summary);
  const doc = parseReport(html);

  it('is one well-formed document that references nothing outside itself', () => {
    expect(doc.name).toBe('html');
    expect(findAll(doc, (e) => 'src' in e.attrs || 'href' in e.attrs || 'xlink:href' in e.attrs || 'action' in e.attrs)).toEqual([]);
    expect(findAll(doc, (e) => ['link', 'img', 'iframe', 'object', 'embed', 'base', 'form'].includes(e.name))).toEqual([]);
    expect(html).not.toMatch(/<script[^>]*\ssrc/i);
    expect(html).not.toMatch(/<link[\s>]/i);
    expect(html).not.toMatch(/url\(|@import/i);
    // The only URLs in the file are the XML namespaces (Vega's SVG declares xlink's, and uses it for nothing),
    // which name a vocabulary and are never fetched.
    const urls = [...html.matchAll(/https?:\/\/[^\s"'<>]*/g)].map((m) => m[0]);
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/1999/xhtml', 'http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink']));
    expect(findAll(doc, (e) => Object.keys(e.attrs).some((a) => a.startsWith('xlink:')))).toEqual([]);
    // Its charts are drawn already: no script of their own, and no style attribute the policy would refuse.
    expect(findAll(doc, (e) => e.name === 'script')).toHaveLength(1);
    expect(findAll(doc, (e) => 'style' in e.attrs)).toEqual([]);
    expect(findAll(doc, (e) => e.name === 'svg').length).toBe(ALL_SECTIONS.length);
  });

  it('lets the browser run its own style and script only (their hashes in the policy)', () => {
    const policy = findOne(doc, (e) => e.name === 'meta' && e.attrs['http-equiv'] === 'Content-Security-Policy').attrs.content!;
    const hash = (el: El): string => `'sha256-${createHash('sha256').update(textOf(el)).digest('base64')}'`;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`style-src ${hash(findOne(doc, (e) => e.name === 'style'))};`);
    expect(policy).toContain(`script-src ${hash(findOne(doc, (e) => e.name === 'script'))};`);
  });

  it('uses the width of a 1280 px page: the table beside the chart, not 40% of the page left empty', () => {
    const style = textOf(findOne(doc, (e) => e.name === 'style'));
    const page = 1280;
    const maxWidth = Number(/header, main \{ max-width: (\d+)px;[^}]*padding: 0 (\d+)px/.exec(style)?.[1]);
    const padding = Number(/header, main \{[^}]*padding: 0 (\d+)px/.exec(style)?.[1]);
    const content = Math.min(page, maxWidth) - 2 * padding;
    // At this width the sections are grids: the chart's column, then the table's beside it.
    const wide = /@media screen and \(min-width: (\d+)px\) \{([\s\S]*?)\n\}/.exec(style);
    expect(Number(wide?.[1])).toBeLessThanOrEqual(page);
    const rules = wide?.[2] ?? '';
    expect(rules).toMatch(/section \{ display: grid; grid-template-columns: minmax\(0, 760px\) minmax\(0, 1fr\);/);
    expect(rules).toMatch(/section > \.scroll \{ grid-column: 2;[^}]*max-width: none; \}/);
    const gap = Number(/column-gap: (\d+)px/.exec(rules)?.[1]);
    const tableColumn = content - 760 - gap;
    expect(tableColumn).toBeGreaterThanOrEqual(300);
    expect(content / page).toBeGreaterThan(0.9);
    // Every section's table follows its heading in the markup, so it may stand beside the chart from row 2.
    for (const section of findAll(doc, (e) => e.name === 'section')) expect((section.children[0] as El | undefined)?.name).toBe('h2');
  });

  it('has every section, in the terminal order, with the input name and date', () => {
    expect(findAll(doc, (e) => e.name === 'section').map((s) => s.attrs['data-section'])).toEqual(ALL_SECTIONS);
    expect(textOf(findOne(doc, (e) => e.name === 'h1'))).toBe(summary.input.name);
    expect(textOf(findOne(doc, (e) => e.attrs.class === 'meta'))).not.toContain(' from ');
    const head = findOne(doc, (e) => e.name === 'head');
    expect(textOf(findOne(head, (e) => e.name === 'title'))).toContain(summary.input.name);
    expect(findOne(doc, (e) => e.name === 'time').attrs.datetime).toBe(summary.generatedAt);
    expect(textOf(findOne(doc, (e) => e.name === 'time'))).toBe('2026-11-24 04:30:00 UTC');
    const figure = (name: string): string => textOf(findOne(doc, (e) => e.attrs['data-figure'] === name && e.name === 'div'));
    expect(figure('rows')).toBe(`Rows${number(summary.input.rows)}`);
    expect(figure('distinct')).toBe(`Distinct hosts${number(summary.hosts.distinct)}`);
    expect(figure('found')).toBe(`Found hosts${number(summary.hosts.found)}`);
  });

  it.each(COUNT_SECTIONS)('shows every %s value with the Summary figures, in the Summary order', (id) => {
    expect(summary[id].length).toBeGreaterThan(1);
    expectCounts(doc, id, summary[id]);
  });

  it('shows rows by status as shares of the rows', () => {
    const statuses = ['found', 'missing', 'invalid', 'error', 'unknown'] as const;
    expect(tableRows(doc, 'rows').map((r) => r.map((c) => c.text))).toEqual(
      statuses.map((s) => [s, number(summary.rows[s]), pct(summary.rows[s] / summary.input.rows)]),
    );
    expect(bars(sectionOf(doc, 'rows')).map((b) => [b.label, b.title.split(':')[0], b.note])).toEqual(
      statuses.map((s) => [s, s, `${number(summary.rows[s])} · ${pct(summary.rows[s] / summary.input.rows)}`]),
    );
  });

  it('shows the visits percentiles, the redirects and how many resolve', () => {
    const v = summary.visits!;
    expect(tableRows(doc, 'visits').map((r) => [r[0]!.text, Number(r[1]!.sort), r[1]!.text])).toEqual(
      (
        [
          ['lowest', v.min],
          ['25th percentile', v.p25],
          ['median', v.p50],
          ['75th percentile', v.p75],
          ['90th percentile', v.p90],
          ['highest', v.max],
        ] as const
      ).map(([label, n]) => [label, n, number(n)]),
    );
    expect(textOf(sectionOf(doc, 'visits'))).toContain(`Of ${number(v.count)} hosts with a visits figure`);
    // On the log scale too, the highest is the full span and each percentile's bar is no shorter than the last.
    const visits = bars(sectionOf(doc, 'visits'));
    expect(visits.map((b) => b.note)).toEqual([v.min, v.p25, v.p50, v.p75, v.p90, v.max].map(number));
    expect(visits.at(-1)!.width).toBe(430);
    for (let i = 1; i < visits.length; i++) expect(visits[i]!.width).toBeGreaterThanOrEqual(visits[i - 1]!.width);
    expect(visits[0]!.width).toBeGreaterThan(430 / 10);
    const redirects = textOf(findOne(doc, (e) => e.attrs['data-figure'] === 'redirects'));
    expect(redirects).toBe(`${number(summary.redirects)} found hosts redirect (${pct(summary.redirects / summary.hosts.found)}).`);
    const { yes, no, unknown } = summary.resolves;
    const all = yes + no + unknown;
    expect(tableRows(doc, 'resolves').map((r) => r.map((c) => c.text))).toEqual([
      ['resolves', number(yes), pct(yes / all)],
      ['does not resolve', number(no), pct(no / all)],
      ['unknown', number(unknown), pct(unknown / all)],
    ]);
  });

  it('shows hostile values as text: no markup from the data, control bytes replaced', () => {
    const hostile = summary.technologies.find((t) => t.value.includes('onerror'))!;
    expect(hostile).toBeDefined();
    expect(tableRows(doc, 'technologies').some((r) => r[0]!.text === hostile.value.replace('\x07', '\ufffd'))).toBe(true);
    expect(findAll(doc, (e) => 'onerror' in e.attrs)).toEqual([]);
    // A long label is cut in the chart (full in the tooltip and the table), so it cannot run into its bar.
    const long = summary.technologies.find((t) => t.value.length > 40)!;
    const bar = bars(sectionOf(doc, 'technologies')).find((b) => b.title.startsWith(long.value))!;
    expect(bar.title).toContain(long.value);
    expect(bar.label).toMatch(/^A technology with .*…$/);
    expect(bar.label.length).toBeLessThan(long.value.length);
    const shown = bars(sectionOf(doc, 'technologies')).find((b) => b.title.startsWith(hostile.value.replace('\x07', '\ufffd')))!;
    expect(shown.label.startsWith('<img src=x onerror=')).toBe(true);
  });
});

describe('renderReport --top', async () => {
  const summary = sampleSummary();
  const doc = parseReport(await renderReport(summary, { top: 3 }));

  it('shows the top N of each by-count section and says how many there are', () => {
    for (const id of ['technologies', 'countries', 'languages'] as const) {
      expectCounts(doc, id, summary[id].slice(0, 3));
      expect(textOf(sectionOf(doc, id))).toContain(`The top 3 of ${summary[id].length} values.`);
    }
  });

  it('draws a visible sliver for a count however small against the largest', async () => {
    const tiny = sampleSummary();
    tiny.platforms = [
      { value: 'Big', count: 1000, share: 0.9 },
      { value: 'Tiny', count: 1, share: 0.0009 },
    ];
    const drawn = bars(sectionOf(parseReport(await renderReport(tiny)), 'platforms'));
    expect(drawn.map((b) => b.label)).toEqual(['Big', 'Tiny']);
    expect(drawn[0]!.width).toBe(430);
    expect(drawn[1]!.width).toBeCloseTo(430 * 0.005, 1); // 2.15 units, where the count alone draws 0.43
  });

  it('shows scales (traffic bands, employee ranges, status codes) whole', () => {
    for (const id of ['trafficBands', 'employees', 'httpStatus'] as const) {
      expect(summary[id].length).toBeGreaterThan(3);
      expectCounts(doc, id, summary[id]);
    }
  });
});

describe('renderReport of a file named by its path', () => {
  it('heads the page with the file name and gives the path below it', async () => {
    for (const path of ['/home/ana/exports/crm-enriched.csv', 'C:\\Users\\ana\\crm-enriched.csv']) {
      const doc = parseReport(await renderReport({ ...emptySummary(), input: { name: path, format: 'csv', rows: 0 } }));
      expect(textOf(findOne(doc, (e) => e.name === 'h1'))).toBe('crm-enriched.csv');
      expect(findOne(doc, (e) => e.name === 'h1').attrs['data-input']).toBe(path);
      expect(textOf(findOne(doc, (e) => e.attrs.class === 'path'))).toBe(path);
    }
  });
});

describe('renderReport of a long list', async () => {
  // 1,000 technologies, counts falling from 1,000: the table keeps every one, the chart the largest 30.
  const summary: Summary = { ...emptySummary(), hosts: { distinct: 1000, found: 1000 } };
  summary.technologies = Array.from({ length: 1000 }, (_, i) => ({ value: `tech-${String(i).padStart(4, '0')}`, count: 1000 - i, share: (1000 - i) / 1000 }));
  const doc = parseReport(await renderReport(summary));

  it('tables every value and charts the largest 30, saying so', () => {
    const rows = tableRows(doc, 'technologies');
    expect(rows.length).toBe(1000);
    expect(rows.map((r) => Number(r[1]!.sort))).toEqual(summary.technologies.map((t) => t.count));
    const drawn = bars(sectionOf(doc, 'technologies'));
    expect(drawn.map((b) => b.title.split(':')[0])).toEqual(summary.technologies.slice(0, 30).map((t) => t.value));
    expect(textOf(sectionOf(doc, 'technologies'))).toContain('The chart shows the top 30; the table has all 1,000 values.');
  });
});

describe('renderReport of short hostile labels', async () => {
  // Short enough to be drawn whole, so the chart's own text carries the markup and the control byte.
  const values = ['<script>&"', 'a\x07b', "it's"];
  const summary: Summary = { ...emptySummary(), hosts: { distinct: 3, found: 3 } };
  summary.technologies = values.map((value, i) => ({ value, count: 3 - i, share: (3 - i) / 3 }));
  const html = await renderReport(summary);

  it('draws them as text, escaped and well-formed', () => {
    const doc = parseReport(html);
    expect(bars(sectionOf(doc, 'technologies')).map((b) => b.label)).toEqual(['<script>&"', 'a\ufffdb', "it's"]);
    expect(findAll(doc, (e) => e.name === 'script')).toHaveLength(1);
    expect(html).not.toContain('<script>&');
  });
});

describe('renderReport of an empty file', async () => {
  const summary: Summary = emptySummary();
  const doc = parseReport(await renderReport(summary));

  it('still has every section, each saying it has nothing rather than drawing empty charts', () => {
    expect(findAll(doc, (e) => e.name === 'section').map((s) => s.attrs['data-section'])).toEqual(ALL_SECTIONS);
    expect(textOf(sectionOf(doc, 'categories'))).toContain('No catalog is cached');
    expect(textOf(sectionOf(doc, 'visits'))).toContain('No visits figures in this file.');
    for (const id of COUNT_SECTIONS) expect(findAll(sectionOf(doc, id), (e) => e.name === 'svg')).toEqual([]);
    expect(tableRows(doc, 'rows').map((r) => r[2]!.text)).toEqual(['0.0%', '0.0%', '0.0%', '0.0%', '0.0%']);
  });
});

describe('parseReport (the test reader) refuses what is not well-formed', () => {
  it.each([
    ['an unclosed tag', '<!DOCTYPE html>\n<html><body></html>'],
    ['a bare ampersand', '<!DOCTYPE html>\n<html>a & b</html>'],
    ['an unquoted attribute', '<!DOCTYPE html>\n<html lang=en></html>'],
    ['a stray <', '<!DOCTYPE html>\n<html>1 < 2</html>'],
    ['a control byte', '<!DOCTYPE html>\n<html>\x07</html>'],
  ])('%s', (_, doc) => {
    expect(() => parseReport(doc)).toThrow();
  });
});
