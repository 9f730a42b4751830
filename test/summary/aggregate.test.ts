// The aggregator on rows built here: rows counted by status, hosts once (the first row that found them), a
// host found after an error counted as found, shares of found hosts, the orders of each list, categories from
// the catalog given.
import { describe, expect, it } from 'vitest';
import { createAggregator } from '../../src/summary/aggregate.js';
import { bareRow, type SummaryRow } from '../../src/summary/row.js';

const found = (host: string, extra: Partial<SummaryRow> = {}): SummaryRow => ({ ...bareRow('found', host), ...extra });
const at = new Date('2026-11-24T10:20:30.456Z');

describe('createAggregator', () => {
  it('counts rows by status and each found host once', () => {
    const a = createAggregator();
    a.add([
      found('a.com', { technologies: ['React', 'React', 'Nginx'], country: 'US', redirect: true, resolves: true }),
      found('a.com', { technologies: ['Vue'], country: 'FR' }),
      bareRow('error', 'b.com'),
      bareRow('invalid', null),
      bareRow('missing', 'c.com'),
      bareRow('unknown', 'd.com'),
    ]);
    a.add([found('b.com', { technologies: ['Nginx'], country: 'FR', resolves: false })]);
    const s = a.finish({ name: 'x.csv', format: 'csv' }, at);
    expect(s.input).toEqual({ name: 'x.csv', format: 'csv', rows: 7 });
    expect(s.generatedAt).toBe('2026-11-24T10:20:30Z');
    expect(s.rows).toEqual({ found: 3, missing: 1, invalid: 1, error: 1, unknown: 1 });
    expect(s.hosts).toEqual({ distinct: 4, found: 2 });
    expect(s.technologies).toEqual([
      { value: 'Nginx', count: 2, share: 1 },
      { value: 'React', count: 1, share: 0.5 },
    ]);
    expect(s.countries).toEqual([
      { value: 'FR', count: 1, share: 0.5 },
      { value: 'US', count: 1, share: 0.5 },
    ]);
    expect(s.redirects).toBe(1);
    expect(s.resolves).toEqual({ yes: 1, no: 1, unknown: 0 });
    expect(s.categories).toEqual([]);
    expect(s.visits).toBeNull();
  });

  it('orders bands by band, employee ranges and status codes by number', () => {
    const a = createAggregator();
    const hosts = [
      found('1.com', { band: '10M+', employeesLow: 10001, employeesHigh: null, httpStatus: 500 }),
      found('2.com', { band: '<1K', employeesLow: 51, employeesHigh: 200, httpStatus: 200 }),
      found('3.com', { band: '<1K', employeesLow: 1, employeesHigh: 10, httpStatus: 301 }),
      found('4.com', { band: '1K-10K', employeesLow: 11, employeesHigh: 50, httpStatus: 200 }),
    ];
    a.add(hosts);
    const s = a.finish({ name: 'x', format: 'ndjson' }, at);
    expect(s.trafficBands.map((c) => [c.value, c.count])).toEqual([
      ['<1K', 2],
      ['1K-10K', 1],
      ['10M+', 1],
    ]);
    expect(s.employees.map((c) => c.value)).toEqual(['1-10', '11-50', '51-200', '10001+']);
    expect(s.httpStatus.map((c) => [c.value, c.count])).toEqual([
      ['200', 2],
      ['301', 1],
      ['500', 1],
    ]);
  });

  it('counts a category once per host, from the catalog given', () => {
    const a = createAggregator({
      categories: new Map([
        ['WordPress', 'cms'],
        ['Drupal', 'cms'],
        ['Nginx', 'web-servers'],
      ]),
    });
    a.add([found('a.com', { technologies: ['WordPress', 'Drupal', 'Nginx', 'Unlisted'] }), found('b.com', { technologies: ['Drupal'] })]);
    const s = a.finish({ name: 'x', format: 'json' }, at);
    expect(s.categories).toEqual([
      { value: 'cms', count: 2, share: 1 },
      { value: 'web-servers', count: 1, share: 0.5 },
    ]);
  });
});
