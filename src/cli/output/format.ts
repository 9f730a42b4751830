// Small number, time and quota formatters shared by the renderers. All output is plain text (no colour), in a
// fixed locale so tests and logs read the same on every machine.
import type { QuotaInfo } from '../../api/types.js';
import { sanitizeForTerminal, truncateToWidth } from './terminal.js';

// The first Intl.NumberFormat loads ICU's locale data (20 ms and more): it is made on first need only, and
// whole numbers (the quota line of every lookup, counts) are grouped without it, to the same text.
let grouped: Intl.NumberFormat | undefined;

/** A number with thousands separators: 49812 -> '49,812'; null/undefined -> '?'. */
export function groupedNumber(n: number | null | undefined): string {
  if (n === null || n === undefined) return '?';
  if (!Number.isFinite(n)) return String(n);
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  grouped ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
  return grouped.format(n);
}

const UNITS = ['', 'k', 'M', 'B', 'T'] as const;

/** A short human figure: 950 -> '950', 34_500 -> '34.5k', 1_234_567 -> '1.2M'. */
export function humanNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const sign = n < 0 ? '-' : '';
  let value = Math.abs(n);
  if (value < 1000) return sign + String(Math.round(value));
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  // One decimal below 100 of a unit, none above; rounding can carry into the next unit (999.96k -> 1M).
  let text = value < 99.95 ? value.toFixed(1) : value.toFixed(0);
  if (Number(text) >= 1000 && unit < UNITS.length - 1) {
    unit++;
    text = (Number(text) / 1000).toFixed(1);
  }
  return sign + text.replace(/\.0$/, '') + UNITS[unit];
}

/** A duration: '350ms', '4.2s', '3m 05s', '1h 02m', '2d 03h'. */
export function humanDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  if (ms < 999.5) return `${Math.round(ms)}ms`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) {
    return `${Math.floor(totalSeconds / 60)}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  }
  const totalMinutes = Math.round(ms / 60_000);
  if (totalMinutes < 24 * 60) {
    return `${Math.floor(totalMinutes / 60)}h ${String(totalMinutes % 60).padStart(2, '0')}m`;
  }
  const totalHours = Math.round(ms / 3_600_000);
  return `${Math.floor(totalHours / 24)}d ${String(totalHours % 24).padStart(2, '0')}h`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const AGE_UNITS: [string, number][] = [
  ['minute', MINUTE],
  ['hour', HOUR],
  ['day', DAY],
  ['month', 30 * DAY],
  ['year', 365 * DAY],
];

/** How long ago an age in ms was: '5 minutes ago'; a negative age reads as the future: 'in 8 days'. */
export function relativeAge(ms: number): string {
  const future = ms < 0;
  const abs = Math.abs(ms);
  if (!Number.isFinite(abs)) return '?';
  if (abs < 45_000) return future ? 'in a moment' : 'just now';
  let phrase = '';
  for (let i = 0; i < AGE_UNITS.length; i++) {
    const [name, size] = AGE_UNITS[i]!;
    const count = Math.max(1, Math.round(abs / size));
    const next = AGE_UNITS[i + 1];
    // Move up a unit once the rounded count reaches it, so 59.7 minutes reads '1 hour', not '60 minutes'.
    if (next && count * size >= next[1]) continue;
    phrase = `${count} ${name}${count === 1 ? '' : 's'}`;
    break;
  }
  return future ? `in ${phrase}` : `${phrase} ago`;
}

/** The reset part of a quota line: '2026-12-01 (in 8 days)', the raw header text, or '?'. */
export function formatReset(quota: Pick<QuotaInfo, 'reset' | 'resetRaw'>, now?: number): string {
  if (quota.reset && !Number.isNaN(quota.reset.getTime())) {
    // The allowance renews on the first of the month (spec §8.2), so the date says enough; UTC keeps it stable.
    const date = quota.reset.toISOString().slice(0, 10);
    return now === undefined ? date : `${date} (${relativeAge(now - quota.reset.getTime())})`;
  }
  // The header's format is undocumented: show what the service sent, made inert and kept short.
  if (quota.resetRaw) return truncateToWidth(sanitizeForTerminal(quota.resetRaw), 40);
  return '?';
}

/** One stderr line about the quota: 'quota: 49,812 / 50,000 lookups left · resets 2026-12-01 (in 8 days)'. */
export function formatQuotaLine(quota: QuotaInfo, now: number): string {
  return `quota: ${groupedNumber(quota.remaining)} / ${groupedNumber(quota.limit)} lookups left` + ` · resets ${formatReset(quota, now)}`;
}
