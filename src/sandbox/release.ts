// Data releases: the sandbox's dataset moves with time, so a change feed can be tested and shown. The first
// release is the dataset as it always was (every existing test runs on it, unchanged); each later month
// applies that month's events to the one before, so a release is the previous one plus a few changes, not a
// fresh draw (a fresh draw would change every host between any two releases, and nothing real moves so).
// Every event comes from a stream keyed by (seed, month, host), so a release is the same on every machine
// and whatever order hosts are asked in.
import type { EmployeeEstimate, TrafficHistory, TrafficMonth } from '../api/types.js';
import { compareNames, TECHNOLOGIES } from './catalog.js';
import { FIRST_RELEASE, monthsFrom, shiftMonth } from './months.js';
import { Rng } from './random.js';

export { FIRST_RELEASE, releaseOffset, shiftMonth } from './months.js';

// Per host and month, at most one event, in this order of the draw; the rates make "some" and "a few" of
// 5,000 hosts a month: ~20 leave, ~125 adopt a technology, ~75 drop one, ~115 change traffic band, ~20 start
// redirecting. A host that left comes back with this chance each month, as it was when it left.
const EVENTS = [
  ['gone', 0.004],
  ['adopt', 0.025],
  ['drop', 0.015],
  ['move', 0.03],
  ['redirect', 0.006],
] as const;
const BACK = 0.2;

/** The month's event for a draw in [0, 1), or null: the rates laid end to end. */
function eventFor(r: number): (typeof EVENTS)[number][0] | null {
  let below = 0;
  for (const [event, rate] of EVENTS) {
    below += rate;
    if (r < below) return event;
  }
  return null;
}
/** New hosts a month, per host of the first release (20 a month for 5,000). */
const NEW_PER_HOST = 0.004;
/** Per organisation and month: its headcount range grows, or shrinks. */
const GROWS = 0.012;
const SHRINKS = 0.006;

/** Headcount buckets [low, high, weight]; high null is open-ended. */
export const HEADCOUNTS: readonly (readonly [number, number | null, number])[] = [
  [1, 10, 30],
  [11, 50, 25],
  [51, 200, 18],
  [201, 500, 10],
  [501, 1000, 7],
  [1001, 5000, 6],
  [5001, 10000, 2],
  [10001, null, 2],
];
const BANDS: readonly (readonly [number, string])[] = [
  [1_000, '<1K'],
  [10_000, '1K-10K'],
  [100_000, '10K-100K'],
  [1_000_000, '100K-1M'],
  [10_000_000, '1M-10M'],
];
/** The lowest visits of each band, for drawing a figure inside one ('<1K' from 100: a site that moves has some). */
const BAND_FLOORS = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

export function band(visits: number): string {
  for (const [below, label] of BANDS) if (visits < below) return label;
  return '10M+';
}

const bandIndex = (visits: number): number => {
  const i = BANDS.findIndex(([below]) => visits < below);
  return i === -1 ? BANDS.length : i;
};

/** How many hosts appear each month in a dataset of `hosts` first-release hosts (none in an empty one). */
export function newHostsPerMonth(hosts: number): number {
  return hosts === 0 ? 0 : Math.max(1, Math.round(hosts * NEW_PER_HOST));
}

/** A host's state at a release: what the months since its first appearance made of it. */
export interface HostCourse {
  held: boolean;
  technologies: string[] | null;
  traffic: TrafficHistory | null;
  /** Where it started redirecting, or null; applied only to a profile that answered and did not redirect. */
  redirectTo: string | null;
}

export interface HostStart {
  technologies: string[] | null;
  traffic: TrafficHistory | null;
  /** Months after the first release when the host appears (0: held from the first release). */
  appearsAt: number;
  /** Apexes a host may start redirecting to (its own excluded by the caller's pick). */
  elsewhere: (rng: Rng) => string;
}

/** The host after `offset` months of events. */
export function hostCourse(seed: number | string, host: string, offset: number, start: HostStart): HostCourse {
  const course: HostCourse = { held: start.appearsAt === 0, technologies: start.technologies, traffic: start.traffic, redirectTo: null };
  for (let k = Math.max(1, start.appearsAt); k <= offset; k++) {
    if (k === start.appearsAt) {
      course.held = true;
      continue;
    }
    const month = shiftMonth(FIRST_RELEASE, k);
    const rng = Rng.for(seed, 'release', month, host);
    const r = rng.float();
    // Gone hosts are frozen: they come back as they left (their organisation's headcount may have moved).
    if (!course.held) {
      if (r < BACK) course.held = true;
      continue;
    }
    const event = eventFor(r);
    const techs = course.technologies;
    // Unknown lists (null) stay unknown: a change from "not known" is not a change a feed should report.
    if (event === 'gone') course.held = false;
    else if (event === 'adopt' && techs !== null) {
      const candidates = TECHNOLOGIES.filter((tech) => tech.weight > 0 && !techs.includes(tech.name));
      if (candidates.length > 0) course.technologies = [...techs, rng.weighted(candidates, (tech) => tech.weight).name].sort(compareNames);
    } else if (event === 'drop' && techs !== null && techs.length > 0) {
      const dropped = rng.pick(techs);
      course.technologies = techs.filter((name) => name !== dropped);
    } else if (event === 'move' && course.traffic !== null) course.traffic = moveBand(course.traffic, month, rng);
    else if (event === 'redirect' && course.redirectTo === null) course.redirectTo = `https://${start.elsewhere(rng)}/`;
  }
  return course;
}

/**
 * The series after a move to the next band up or down, measured at `month`: the months since its last figure
 * filled on a geometric path to the new one (a series has no gaps), the oldest dropped past 24 months.
 */
function moveBand(traffic: TrafficHistory, month: string, rng: Rng): TrafficHistory {
  const from = bandIndex(traffic.estimated_monthly_visits);
  const up = from === 0 || (from < BAND_FLOORS.length - 1 && rng.chance(0.5));
  const floor = BAND_FLOORS[from + (up ? 1 : -1)] as number;
  // Inside the band, away from its edges, so the band read back is the band drawn.
  const visits = Math.round(floor * 10 ** (0.1 + rng.float() * 0.8));
  const last = traffic.estimated_monthly_visits;
  const gap = monthsFrom(traffic.as_of, month);
  const history: TrafficMonth[] = [...traffic.history];
  for (let i = 1; i <= gap; i++) {
    history.push({
      month: shiftMonth(traffic.as_of, i),
      visits: i === gap ? visits : Math.round(Math.max(last, 1) * (visits / Math.max(last, 1)) ** (i / gap)),
    });
  }
  return { host: traffic.host, estimated_monthly_visits: visits, band: band(visits), as_of: month, history: history.slice(-24) };
}

/** An organisation's headcount after `offset` months: now and then its range moves a bucket up or down. */
export function employeesCourse(seed: number | string, apex: string, offset: number, start: EmployeeEstimate | null): EmployeeEstimate | null {
  if (start === null) return null;
  let figure = start;
  for (let k = 1; k <= offset; k++) {
    const month = shiftMonth(FIRST_RELEASE, k);
    const rng = Rng.for(seed, 'release', month, 'org', apex);
    const r = rng.float();
    if (r >= GROWS + SHRINKS) continue;
    // Each bucket's high is distinct (the open-ended one is null), so it names the bucket.
    const at = HEADCOUNTS.findIndex(([, high]) => high === figure.high);
    const to = HEADCOUNTS[at + (r < GROWS ? 1 : -1)];
    if (at === -1 || to === undefined) continue;
    // An upper bound only stays one; a point figure is not known for the new range.
    const day = String(rng.int(1, 28)).padStart(2, '0');
    figure = { apex, low: figure.low === null ? null : to[0], high: to[1], point: null, as_of: `${month}-${day}` };
  }
  return figure;
}
