import { describe, expect, it } from 'vitest';
import type { DomainProfile, EmployeesResult, TrafficHistory } from '../../src/api/types.js';
import { employeeValues, profileValues, trafficValues } from '../../src/domain/fields.js';
import { columnsFor } from '../../src/domain/flatten.js';
import type { EnrichedRow, RunKind } from '../../src/domain/types.js';

function row<K extends RunKind>(kind: K, data: unknown): EnrichedRow<K> {
  return { kind, line: 1, cells: ['x'], value: 'x', status: 'found', host: 'x.example', reason: null, data: data as never, cached: false, fetchedAt: null };
}

describe('fields', () => {
  it('each builder gives exactly its kind’s columns, in order, common fields first', () => {
    expect(Object.keys(profileValues(row('profile', null)))).toEqual(columnsFor('profile'));
    expect(Object.keys(trafficValues(row('traffic', null)))).toEqual(columnsFor('traffic'));
    expect(Object.keys(employeeValues(row('employees', null)))).toEqual(columnsFor('employees'));
    for (const kind of ['profile', 'traffic', 'employees'] as const) expect(columnsFor(kind).slice(0, 3)).toEqual(['status', 'host', 'reason']);
  });

  it('reads nested answers and leaves what is unknown null', () => {
    const p = { domain: 'x.example', traffic: { estimated_monthly_visits: 5, band: 'low', as_of: '2026-01' }, employees: null } as unknown as DomainProfile;
    expect(profileValues(row('profile', p))).toMatchObject({ traffic_visits: 5, traffic_band: 'low', employees_low: null, registrar: null });
    const t = { estimated_monthly_visits: 9, band: 'b', as_of: '2026-02', history: [{ month: '2026-01', visits: 3 }] } as TrafficHistory;
    expect(trafficValues(row('traffic', t)).traffic_history).toEqual([{ month: '2026-01', visits: 3 }]);
    const e = { apex: 'x.example', estimated_employees: { low: 1, high: 9, point: 4 }, as_of: '2026-03-01' } as EmployeesResult;
    expect(employeeValues(row('employees', e))).toMatchObject({ apex: 'x.example', employees_point: 4, employees_as_of: '2026-03-01' });
  });
});
