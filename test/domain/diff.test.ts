// The one comparison of two answers about a host (diff.ts): by the columns the CLI writes, named as the CSV
// names them; status changes alone for gone/back; lists compared item by item.
import { describe, expect, it } from 'vitest';
import { added, answerColumns, diffAnswers, sameValue } from '../../src/domain/diff.js';
import { KINDS } from '../../src/domain/kinds.js';

const profile = (over: Record<string, unknown> = {}) => ({
  domain: 'a.example',
  resolves: true,
  technologies: ['HubSpot', 'Nginx'],
  traffic: { estimated_monthly_visits: 1000, band: '1k-10k', as_of: '2025-10' },
  employees: { low: 10, high: 50, point: 20, as_of: '2025-10' },
  redirect_to: null,
  ...over,
});
const found = (body: unknown) => ({ status: 'found' as const, body });
const missing = { status: 'missing' as const, body: null };

describe('diffAnswers', () => {
  const spec = KINDS.profile;

  it('is new when nothing was held, same for the same answer, found or missing', () => {
    expect(diffAnswers(spec, 'a.example', null, found(profile()))).toEqual({ change: 'new', fields: [] });
    expect(diffAnswers(spec, 'a.example', null, missing)).toEqual({ change: 'new', fields: [] });
    expect(diffAnswers(spec, 'a.example', found(profile()), found(profile()))).toEqual({ change: 'same', fields: [] });
    expect(diffAnswers(spec, 'a.example', missing, missing)).toEqual({ change: 'same', fields: [] });
  });

  it('names the columns that differ, in column order, with their values as the CSV has them (lists kept)', () => {
    const after = profile({
      technologies: ['Nginx', 'Shopify'],
      traffic: { estimated_monthly_visits: 20000, band: '10k-100k', as_of: '2025-10' },
      redirect_to: 'b.example',
    });
    expect(diffAnswers(spec, 'a.example', found(profile()), found(after))).toEqual({
      change: 'changed',
      fields: [
        { field: 'technologies', from: ['HubSpot', 'Nginx'], to: ['Nginx', 'Shopify'] },
        { field: 'redirect_to', from: null, to: 'b.example' },
        { field: 'traffic_visits', from: 1000, to: 20000 },
        { field: 'traffic_band', from: '1k-10k', to: '10k-100k' },
      ],
    });
  });

  it('says gone and back with the status change alone, whatever else moved', () => {
    expect(diffAnswers(spec, 'a.example', found(profile()), missing)).toEqual({ change: 'gone', fields: [{ field: 'status', from: 'found', to: 'missing' }] });
    expect(diffAnswers(spec, 'a.example', missing, found(profile()))).toEqual({ change: 'back', fields: [{ field: 'status', from: 'missing', to: 'found' }] });
  });

  it("ignores what the columns do not show, and the row's own fields", () => {
    expect(answerColumns(spec, 'a.example', found(profile()))).not.toHaveProperty('fetched_at');
    expect(answerColumns(spec, 'a.example', found(profile()))).not.toHaveProperty('host');
    expect(diffAnswers(spec, 'a.example', found(profile()), found(profile({ unknown_extra: 1 })))).toEqual({ change: 'same', fields: [] });
  });

  it('compares traffic months by value and employees per row host', () => {
    const series = (visits: number) => ({ estimated_monthly_visits: visits, band: '1k-10k', as_of: '2025-10', history: [{ month: '2025-09', visits }] });
    expect(diffAnswers(KINDS.traffic, 'a.example', found(series(5)), found(series(5))).change).toBe('same');
    expect(diffAnswers(KINDS.traffic, 'a.example', found(series(5)), found(series(6))).fields.map((f) => f.field)).toEqual([
      'traffic_visits',
      'traffic_history',
    ]);
    const staff = (high: number) => ({ apex: 'a.example', estimated_employees: { low: 1, high, point: 2 }, as_of: '2025-10' });
    expect(diffAnswers(KINDS.employees, 'www.a.example', found(staff(9)), found(staff(12))).fields).toEqual([{ field: 'employees_high', from: 9, to: 12 }]);
  });
});

describe('dates of figures (issue 29)', () => {
  const spec = KINDS.profile;
  const dated = (visits: number, month: string, high: number, day: string) =>
    profile({ traffic: { estimated_monthly_visits: visits, band: '1k-10k', as_of: month }, employees: { low: 10, high, point: null, as_of: day } });

  it('a new month on the same figures is no change: a confirmation', () => {
    expect(diffAnswers(spec, 'a.example', found(dated(1000, '2025-10', 50, '2025-09-14')), found(dated(1000, '2025-11', 50, '2025-11-14')))).toEqual({
      change: 'same',
      fields: [],
    });
  });

  it('a figure that moves is one change, its date moving along with it, never a change of its own', () => {
    const diff = diffAnswers(spec, 'a.example', found(dated(1000, '2025-10', 50, '2025-09-14')), found(dated(1500, '2025-11', 200, '2025-11-02')));
    expect(diff).toEqual({
      change: 'changed',
      fields: [
        { field: 'traffic_visits', from: 1000, to: 1500 },
        { field: 'employees_high', from: 50, to: 200 },
      ],
    });
    // The same figure restated under the same date is a change too: the date is not what decides.
    expect(diffAnswers(spec, 'a.example', found(dated(1000, '2025-10', 50, '2025-09-14')), found(dated(900, '2025-10', 50, '2025-09-14'))).fields).toEqual([
      { field: 'traffic_visits', from: 1000, to: 900 },
    ]);
    expect(Object.keys(answerColumns(spec, 'a.example', found(profile())))).not.toContain('traffic_as_of');
    expect(Object.keys(answerColumns(KINDS.employees, 'a.example', found({ apex: 'a.example', estimated_employees: {}, as_of: '2025-10-01' })))).not.toContain(
      'employees_as_of',
    );
  });

  it("a traffic series that gained the release's month (and lost its oldest) on the same figure is the same; a month restated is a change", () => {
    const months = (from: number, visits: number[]) => visits.map((v, i) => ({ month: `2025-${String(from + i).padStart(2, '0')}`, visits: v }));
    const series = (asOf: string, history: { month: string; visits: number }[]) => ({
      estimated_monthly_visits: history.at(-1)?.visits,
      band: '1k-10k',
      as_of: asOf,
      history,
    });
    const before = found(series('2025-10', months(8, [700, 800, 900])));
    expect(diffAnswers(KINDS.traffic, 'a.example', before, found(series('2025-11', months(9, [800, 900, 900])))).change).toBe('same');
    const moved = diffAnswers(KINDS.traffic, 'a.example', before, found(series('2025-11', months(9, [800, 900, 1200]))));
    expect(moved.fields.map((f) => f.field)).toEqual(['traffic_visits']);
    const restated = diffAnswers(KINDS.traffic, 'a.example', before, found(series('2025-11', months(9, [850, 900, 900]))));
    expect(restated.fields.map((f) => f.field)).toEqual(['traffic_history']);
    expect(diffAnswers(KINDS.traffic, 'a.example', found(series('2025-10', [])), found(series('2025-10', months(10, [5])))).fields.map((f) => f.field)).toEqual(
      ['traffic_visits'],
    );
  });
});

describe('sameValue and added', () => {
  it('compares lists item by item and scalars exactly', () => {
    expect(sameValue(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameValue(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameValue(['a'], ['a', 'b'])).toBe(false);
    expect(sameValue([{ month: '2025-09', visits: 1 }], [{ month: '2025-09', visits: 1 }])).toBe(true);
    expect(sameValue([{ month: '2025-09', visits: 1 }], [{ month: '2025-09', visits: 2 }])).toBe(false);
    expect(sameValue(null, null)).toBe(true);
    expect(sameValue(1, '1')).toBe(false);
    expect(sameValue(null, [])).toBe(false);
  });

  it('lists what one list adopted over another (swapped: what it dropped)', () => {
    expect(added(['HubSpot', 'Nginx'], ['Nginx', 'Shopify'])).toEqual(['Shopify']);
    expect(added(['Nginx', 'Shopify'], ['HubSpot', 'Nginx'])).toEqual(['HubSpot']);
    expect(added(null, ['Nginx'])).toEqual(['Nginx']);
    expect(added(['Nginx'], null)).toEqual([]);
  });
});
