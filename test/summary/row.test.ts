// Rows as each writer shapes them reduce to the same SummaryRow: CSV cells, a whole JSON row, --fields' flat
// object (lists as arrays), and a traffic or employees run's answer.
import { describe, expect, it } from 'vitest';
import { fieldsRow, objectRow } from '../../src/summary/row.js';

const profile = {
  domain: 'a.com',
  resolves: false,
  technologies: ['Nginx', 'React'],
  network: 'N',
  platform: null,
  registrar: 'R',
  age_days: 3,
  country_iso: 'DE',
  lang_norm: 'de',
  http_status: 301,
  redirect_to: 'https://b.com/',
  traffic: { estimated_monthly_visits: 1234, band: '1K-10K', as_of: '2026-10' },
  employees: { low: 10001, high: null, point: 12000, as_of: '2026-10' },
};
const want = {
  status: 'found',
  host: 'a.com',
  technologies: ['Nginx', 'React'],
  platform: null,
  network: 'N',
  country: 'DE',
  language: 'de',
  band: '1K-10K',
  visits: 1234,
  employeesLow: 10001,
  employeesHigh: null,
  httpStatus: 301,
  redirect: true,
  resolves: false,
};

describe('summary rows', () => {
  it('reads the same from CSV cells, a whole JSON row and a flat --fields object', () => {
    const cells: Record<string, string> = {
      status: 'found',
      host: 'a.com',
      resolves: 'false',
      technologies: 'Nginx;React',
      network: 'N',
      platform: '',
      country_iso: 'DE',
      lang_norm: 'de',
      http_status: '301',
      redirect_to: 'https://b.com/',
      traffic_visits: '1234',
      traffic_band: '1K-10K',
      employees_low: '10001',
      employees_high: '',
    };
    expect(fieldsRow((c) => cells[c])).toEqual(want);
    expect(objectRow({ line: 2, input: {}, status: 'found', host: 'a.com', reason: null, data: profile, fetched_at: null })).toEqual(want);
    expect(objectRow({ ...cells, technologies: ['Nginx', 'React'], resolves: false, platform: null, employees_high: null })).toEqual(want);
  });

  it('reads a traffic or employees run answer, and a row without one as bare', () => {
    const traffic = objectRow({
      status: 'found',
      host: 't.com',
      data: { host: 't.com', estimated_monthly_visits: 5, band: '<1K', as_of: '2026-10', history: [] },
    });
    expect([traffic.band, traffic.visits]).toEqual(['<1K', 5]);
    const employees = objectRow({
      status: 'found',
      host: 'e.com',
      data: { apex: 'e.com', estimated_employees: { low: 11, high: 50, point: 30 }, as_of: '2026-10' },
    });
    expect([employees.employeesLow, employees.employeesHigh]).toEqual([11, 50]);
    const error = objectRow({ status: 'error', host: 'x.com', data: null });
    expect([error.status, error.host, error.technologies]).toEqual(['error', 'x.com', []]);
  });
});
