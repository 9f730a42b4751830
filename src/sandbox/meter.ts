// The account's meter: monthly quota with packs (§8.1, §8.2), the per-window request limit, and the charge
// log tests read to prove a lookup was never paid for twice.
import type { Readings } from './readings.js';
import type { ChargeReport } from './types.js';

/** Lookups an add-on pack adds (§8.1). */
export const PACK_SIZE = 25_000;

export interface MeterOptions {
  allowance: number;
  /** Requests per window; 0 means unlimited. */
  rpm: number;
  windowMs: number;
  clock: () => number;
}

/** The month of `now` (UTC) as a count of months, `ahead` months on (forced rollovers). */
function monthIndex(now: number, ahead: number): number {
  const date = new Date(now);
  return date.getUTCFullYear() * 12 + date.getUTCMonth() + ahead;
}

/** X-Quota-Reset in each reading of its format (§8.5 does not show one). */
function resetText(at: number, style: Readings['quotaResetStyle']): string {
  switch (style) {
    case 'iso':
      return new Date(at).toISOString();
    case 'date':
      return new Date(at).toISOString().slice(0, 10);
    case 'epoch-s':
      return String(Math.floor(at / 1000));
    case 'http-date':
      // toUTCString() is RFC 7231's IMF-fixdate: "Tue, 01 Dec 2026 00:00:00 GMT".
      return new Date(at).toUTCString();
  }
}

export class Meter {
  readonly rpm: number;
  readonly windowMs: number;
  private allowance: number;
  private readonly clock: () => number;
  private month: number;
  /** Months the account's calendar runs ahead of the clock, one per forced rollover. */
  private ahead = 0;
  private packs = 0;
  private used = 0;
  private windowStart = -1;
  private windowCount = 0;
  /** Times of the requests admitted within the last windowMs, oldest first (the sliding window). */
  private recent: number[] = [];
  private log = Meter.emptyLog();

  constructor(options: MeterOptions) {
    this.allowance = options.allowance;
    this.rpm = options.rpm;
    this.windowMs = options.windowMs;
    this.clock = options.clock;
    this.month = monthIndex(this.clock(), 0);
  }

  private static emptyLog() {
    return {
      total: 0,
      byHost: new Map<string, number>(),
      byEndpoint: new Map<string, number>(),
      requests: 0,
      rateLimited: 0,
      quotaExhausted: 0,
      unavailable: 0,
    };
  }

  /** The allowance renews on the first of the month; packs are taken to last one month too (not shown). */
  private rollover(): void {
    const month = monthIndex(this.clock(), this.ahead);
    if (month !== this.month) {
      this.month = month;
      this.used = 0;
      this.packs = 0;
    }
  }

  /** Ends the month now: the allowance renews, packs lapse and X-Quota-Reset moves on a month. */
  endMonth(): void {
    this.ahead += 1;
    this.rollover();
  }

  /** First instant of the account's next month (UTC): when the allowance renews (§8.2). */
  private resetAt(): number {
    const month = monthIndex(this.clock(), this.ahead) + 1;
    return Date.UTC(Math.floor(month / 12), month % 12, 1);
  }

  limit(): number {
    this.rollover();
    return this.allowance + this.packs * PACK_SIZE;
  }

  remaining(): number {
    return Math.max(0, this.limit() - this.used);
  }

  addPack(): void {
    this.rollover();
    this.packs += 1;
  }

  /**
   * Sets the plan's monthly allowance from now on, this month included (a plan downgraded, or a limit
   * corrected): X-Quota-Limit drops, and what was used this month stays used.
   */
  setAllowance(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`allowance must be a non-negative integer, got ${n}`);
    this.rollover();
    this.allowance = n;
  }

  setRemaining(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`remaining must be a non-negative integer, got ${n}`);
    this.used = this.limit() - n;
  }

  /** The three quota headers (§8.5), read now; the reset is when the next month starts, in `style`. */
  quotaHeaders(style: Readings['quotaResetStyle']): Record<string, string> {
    return {
      'x-quota-limit': String(this.limit()),
      'x-quota-remaining': String(this.remaining()),
      'x-quota-reset': resetText(this.resetAt(), style),
    };
  }

  /**
   * Counts one request against the limit: in fixed windows aligned to multiples of windowMs on the clock, or
   * over the last windowMs (sliding). Both tallies are kept, so the reading can change at run time.
   * Returns null when admitted, or the epoch ms at which a slot frees: the fixed window's end, or when the
   * oldest counted request leaves the sliding one. Refused requests are not counted.
   */
  admit(window: Readings['window']): number | null {
    if (this.rpm <= 0) return null;
    const now = this.clock();
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.windowCount = 0;
    }
    while (this.recent.length > 0 && (this.recent[0] as number) <= now - this.windowMs) this.recent.shift();
    const full = window === 'fixed' ? this.windowCount >= this.rpm : this.recent.length >= this.rpm;
    if (full) {
      this.log.rateLimited += 1;
      return window === 'fixed' ? start + this.windowMs : (this.recent[this.recent.length - this.rpm] as number) + this.windowMs;
    }
    this.windowCount += 1;
    this.recent.push(now);
    // Only the last rpm times can ever decide a refusal.
    if (this.recent.length > this.rpm) this.recent.shift();
    return null;
  }

  /** True when `cost` lookups can be paid now. */
  canSpend(cost: number): boolean {
    return this.remaining() > 0 && cost <= this.remaining();
  }

  /** Spends one lookup per host for `operation`. */
  charge(operation: string, hosts: readonly string[]): void {
    this.rollover();
    this.used += hosts.length;
    this.log.total += hosts.length;
    this.log.byEndpoint.set(operation, (this.log.byEndpoint.get(operation) ?? 0) + hosts.length);
    for (const host of hosts) this.log.byHost.set(host, (this.log.byHost.get(host) ?? 0) + 1);
  }

  /** Counts one API request; returns its 1-based number since the last resetCounters(). */
  countRequest(): number {
    this.log.requests += 1;
    return this.log.requests;
  }

  countQuotaExhausted(): void {
    this.log.quotaExhausted += 1;
  }

  countUnavailable(): void {
    this.log.unavailable += 1;
  }

  report(): ChargeReport {
    return {
      total: this.log.total,
      byHost: Object.fromEntries(this.log.byHost),
      byEndpoint: Object.fromEntries(this.log.byEndpoint),
      requests: this.log.requests,
      rateLimited: this.log.rateLimited,
      quotaExhausted: this.log.quotaExhausted,
      unavailable: this.log.unavailable,
      remaining: this.remaining(),
      limit: this.limit(),
    };
  }

  /** Clears the charge log, not the quota. */
  resetCounters(): void {
    this.log = Meter.emptyLog();
  }
}
