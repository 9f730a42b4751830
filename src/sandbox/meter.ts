// The account's meter: monthly quota with packs (§8.1, §8.2), the per-window request limit, and the charge
// log tests read to prove a lookup was never paid for twice.
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

/** First instant of the month after `now`, UTC: when the allowance renews (§8.2). */
function nextMonthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

function monthKey(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

export class Meter {
  readonly rpm: number;
  readonly windowMs: number;
  private readonly allowance: number;
  private readonly clock: () => number;
  private month: string;
  private packs = 0;
  private used = 0;
  private windowStart = -1;
  private windowCount = 0;
  private log = Meter.emptyLog();

  constructor(options: MeterOptions) {
    this.allowance = options.allowance;
    this.rpm = options.rpm;
    this.windowMs = options.windowMs;
    this.clock = options.clock;
    this.month = monthKey(this.clock());
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
    const month = monthKey(this.clock());
    if (month !== this.month) {
      this.month = month;
      this.used = 0;
      this.packs = 0;
    }
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

  setRemaining(n: number): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`remaining must be a non-negative integer, got ${n}`);
    this.used = this.limit() - n;
  }

  /** The three quota headers (§8.5); the reset is the ISO 8601 instant the next month starts. */
  quotaHeaders(): Record<string, string> {
    return {
      'x-quota-limit': String(this.limit()),
      'x-quota-remaining': String(this.remaining()),
      'x-quota-reset': new Date(nextMonthStart(this.clock())).toISOString(),
    };
  }

  /**
   * Counts one request against the current fixed window (aligned to multiples of windowMs on the clock).
   * Returns null when admitted, or the epoch ms at which the window ends when the limit is reached.
   * Refused requests are not counted: the window is full either way.
   */
  admit(): number | null {
    if (this.rpm <= 0) return null;
    const now = this.clock();
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.windowCount = 0;
    }
    if (this.windowCount >= this.rpm) {
      this.log.rateLimited += 1;
      return start + this.windowMs;
    }
    this.windowCount += 1;
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

  countRequest(): void {
    this.log.requests += 1;
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
