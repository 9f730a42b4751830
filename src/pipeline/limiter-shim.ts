// SHIM until LIMITER's branch lands (contracts C1, C2): `release` and `resetAnnounced`. Removed at rebase.
import { RateLimitedError } from '../api/errors.js';
import { RateLimiter, type Ticket } from './schedule.js';

declare module './schedule.js' {
  interface RateLimiter {
    release(ticket: Ticket): void;
    rateLimit(resumeAt: number | null): void;
  }
}
declare module '../api/errors.js' {
  interface RateLimitedError {
    readonly resetAnnounced: boolean;
  }
}
if (!('release' in RateLimiter.prototype)) {
  Object.defineProperty(RateLimiter.prototype, 'release', {
    value(this: RateLimiter, ticket: Ticket) {
      this.settle(ticket, true);
    },
  });
}
if (!('resetAnnounced' in RateLimitedError.prototype)) {
  Object.defineProperty(RateLimitedError.prototype, 'resetAnnounced', { get: () => true });
}
