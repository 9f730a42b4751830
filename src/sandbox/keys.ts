// API keys of the sandbox's one account. Like the service (§5.3), only a hash of each key is stored.
import { createHash, randomBytes } from 'node:crypto';
import { Rng } from './random.js';

const KEY_PREFIX = 'di_live_';
const KEY_SHAPE = /^di_live_[0-9a-f]{48}$/;
// RFC 9110: the scheme is case-insensitive; one or more spaces separate it from the token.
const BEARER = /^bearer +(\S+)$/i;

const bearer = (authorization: string | undefined): string | undefined => (authorization === undefined ? undefined : BEARER.exec(authorization.trim())?.[1]);

const digest = (key: string): string => createHash('sha256').update(key).digest('hex');

export class KeyRing {
  private readonly live = new Set<string>();
  private readonly revoked = new Set<string>();
  /** The first key, derived from the seed so a restarted sandbox keeps accepting a stored key. */
  readonly primary: string;

  constructor(seed: number | string) {
    this.primary = KEY_PREFIX + Rng.for(seed, 'key').hex(48);
    this.live.add(digest(this.primary));
  }

  /** Registers and returns a fresh random key. */
  create(): string {
    const key = KEY_PREFIX + randomBytes(24).toString('hex');
    this.live.add(digest(key));
    return key;
  }

  revoke(key: string): void {
    const hash = digest(key);
    this.live.delete(hash);
    this.revoked.add(hash);
  }

  /** True when the Authorization header carries the primary key (revoked or not). */
  isPrimary(authorization: string | undefined): boolean {
    return bearer(authorization) === this.primary;
  }

  /** True when the Authorization header carries a well-formed, registered, unrevoked bearer key. */
  accepts(authorization: string | undefined): boolean {
    const key = bearer(authorization);
    if (key === undefined || !KEY_SHAPE.test(key)) return false;
    const hash = digest(key);
    return this.live.has(hash) && !this.revoked.has(hash);
  }
}
