// The asOf reading (issue 29): what an estimate's date says. Spec §2.2 gives traffic's `as_of` as "month of
// the figure" and §2.3 the employee estimate's as its date, and does not say whether a release that measures
// the same figure again moves them. 'figure' (the default: the dataset as it always was) dates a figure when
// it was measured, so a date moves only with its figure. 'release' is a service restating every estimate with
// each monthly release: the traffic figure is as of the release month and its series runs to it (the months
// since filled with the figure standing), the headcount dated on its day in that month. The figures are the
// release's either way: under 'release' a release in which nothing moved moves every date, and nothing else.
import type { DomainProfile, EmployeeEstimate, EmployeesResult, TrafficHistory } from '../api/types.js';
import { monthsFrom, shiftMonth } from './months.js';

/** A YYYY-MM-DD date moved into `month` (its day kept), when it is from before it. */
function restatedDay(date: string, month: string): string {
  return monthsFrom(date.slice(0, 7), month) > 0 ? `${month}${date.slice(7)}` : date;
}

/** A traffic series (the traffic endpoint's answer) as restated at release `month`. */
export function restatedTraffic(traffic: TrafficHistory | null, month: string): TrafficHistory | null {
  const gap = traffic === null ? 0 : monthsFrom(traffic.as_of, month);
  if (traffic === null || gap <= 0) return traffic;
  const history = [...traffic.history];
  for (let i = 1; i <= gap; i++) history.push({ month: shiftMonth(traffic.as_of, i), visits: traffic.estimated_monthly_visits });
  return { ...traffic, as_of: month, history: history.slice(-24) };
}

/** An employees answer as restated at release `month`. */
export function restatedEmployees(answer: EmployeesResult | null, month: string): EmployeesResult | null {
  return answer === null ? null : { ...answer, as_of: restatedDay(answer.as_of, month) };
}

/** A profile's embedded estimates as restated at release `month`. */
export function restatedProfile(profile: DomainProfile | null, month: string): DomainProfile | null {
  if (profile === null) return null;
  const traffic = profile.traffic;
  const employees: EmployeeEstimate | null = profile.employees;
  return {
    ...profile,
    traffic: traffic && (monthsFrom(traffic.as_of, month) > 0 ? { ...traffic, as_of: month } : traffic),
    employees: employees && { ...employees, as_of: restatedDay(employees.as_of, month) },
  };
}
