import { describe, expect, it } from 'vitest';
import { columnsFor, flatten } from '../../src/output/write.js';
import { employees, profile, row, traffic } from '../run/helpers.js';

describe('columnsFor and flatten', () => {
  it('lists our columns per kind', () => {
    expect(columnsFor('profile')).toEqual([
      'status',
      'host',
      'reason',
      'resolves',
      'technologies',
      'network',
      'platform',
      'registrar',
      'age_days',
      'country_iso',
      'lang_norm',
      'http_status',
      'redirect_to',
      'traffic_visits',
      'traffic_band',
      'traffic_as_of',
      'employees_low',
      'employees_high',
      'employees_point',
      'employees_as_of',
      'fetched_at',
    ]);
    expect(columnsFor('traffic')).toEqual(['status', 'host', 'reason', 'traffic_visits', 'traffic_band', 'traffic_as_of', 'traffic_history', 'fetched_at']);
    expect(columnsFor('employees')).toEqual([
      'status',
      'host',
      'reason',
      'apex',
      'employees_low',
      'employees_high',
      'employees_point',
      'employees_as_of',
      'fetched_at',
    ]);
  });

  it('flattens a profile, keeping nulls', () => {
    const flat = flatten(row('profile', { status: 'found', data: profile }));
    expect(Object.keys(flat)).toEqual(columnsFor('profile'));
    expect(flat).toMatchObject({
      status: 'found',
      host: 'example.com',
      reason: null,
      resolves: true,
      technologies: 'Nginx;WordPress',
      platform: null,
      age_days: 9000,
      traffic_visits: 12345,
      traffic_band: '10k-100k',
      employees_point: null,
      employees_high: 50,
    });
  });

  it('flattens traffic history and employee estimates', () => {
    expect(flatten(row('traffic', { status: 'found', data: traffic })).traffic_history).toBe('2024-04:200;2024-05:300');
    expect(flatten(row('employees', { status: 'found', data: employees }))).toMatchObject({
      apex: 'example.com',
      employees_low: 1,
      employees_high: null,
      employees_point: 7,
      employees_as_of: '2024-01-31',
    });
  });

  it('gives every data column null when there is no data', () => {
    const flat = flatten(row('profile', { status: 'invalid', host: null, reason: 'too short' }));
    expect(Object.entries(flat).filter(([, v]) => v !== null)).toEqual([
      ['status', 'invalid'],
      ['reason', 'too short'],
    ]);
  });
});
