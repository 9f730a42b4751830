// A PostgreSQL store URL, in libpq's conventions (postgres:// or postgresql://, with the PG* variables and
// the password file for whatever it leaves out), plus two parameters of ours, taken out before pg sees the URL:
// `schema`, the namespace the store's tables live in (default domain_intel), and `lease`, how long a silent run
// is taken for alive (default 30s; see presence.ts).
import { maskUrl } from '../../config/store-url.js';
import { parseDuration } from '../../config/values.js';
import { StoreUnavailableError } from '../errors.js';

/** The schema the tables live in when neither the URL (`?schema=`) nor the options name one. */
const DEFAULT_SCHEMA = 'domain_intel';

/**
 * How long a run's claims and slots outlive its last heartbeat, unless the URL says otherwise (`?lease=5s`).
 * 30 s: three heartbeats (every third of the lease) may be missed (a busy event loop, a slow statement) before
 * a live run is taken for dead, and a killed one blocks others at most this long. Every machine on a store must
 * give it the same lease: one with a shorter lease takes the others for dead sooner than they beat. A shorter
 * lease is for tests that kill a machine (e2e/machines-kill.test.ts), which would otherwise wait 30 s.
 */
export const LEASE_MS = 30_000;
/** The shortest lease a URL may give: a heartbeat every third of it must still fit a loaded machine's stalls. */
const MIN_LEASE_MS = 1000;

/** A store URL taken apart: what pg connects with, the schema, and the URL as it may be shown. */
export interface StoreUrl {
  /** The URL for pg, without our `schema` parameter. */
  connectionString: string;
  schema: string;
  /** How long a run's claims and slots outlive its last heartbeat (`?lease=`, default LEASE_MS). */
  leaseMs: number;
  /** The URL with its password masked. */
  shown: string;
}

// Lower case, so the name needs no quoting anywhere and reads the same in psql; 63 bytes is PostgreSQL's limit.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Whether `url` names a PostgreSQL store (postgres:// or postgresql://). */
const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:\/\//i.test(url);

/** Takes `url` apart; `schema` (options) wins over the URL's. A URL that is not PostgreSQL's, or a bad schema name, is refused. */
export function parseStoreUrl(url: string, schema?: string): StoreUrl {
  const shown = maskUrl(url);
  if (!isPostgresUrl(url))
    throw new StoreUnavailableError(shown, `not a PostgreSQL URL: ${shown} (it starts postgres:// or postgresql://)`, { code: 'bad_store' });
  const query = url.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
  const chosen = schema ?? params.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(chosen)) {
    throw new StoreUnavailableError(
      shown,
      `the schema name ${JSON.stringify(chosen)} in ${shown} is not usable: lower-case letters, digits and _ (not first), up to 63`,
      {
        code: 'bad_store',
      },
    );
  }
  params.delete('schema');
  const leaseMs = leaseOf(params.get('lease'), shown);
  params.delete('lease');
  // sslmode as libpq means it (require: encrypted, not verified; verify-full: verified), which pg follows
  // only when asked to; unasked, it takes prefer, require and verify-ca for verify-full, and warns on stderr.
  if (params.has('sslmode') && !params.has('uselibpqcompat')) params.set('uselibpqcompat', 'true');
  const rest = params.toString();
  const base = query < 0 ? url : url.slice(0, query);
  return { connectionString: rest === '' ? base : `${base}?${rest}`, schema: chosen, leaseMs, shown };
}

/** The URL's `lease` (a duration such as 30s) in ms; LEASE_MS when it gives none. */
function leaseOf(given: string | null, shown: string): number {
  if (given === null) return LEASE_MS;
  let ms: number | null = null;
  try {
    ms = parseDuration(given);
  } catch {}
  if (ms === null || ms < MIN_LEASE_MS)
    throw new StoreUnavailableError(shown, `the lease ${JSON.stringify(given)} in ${shown} is not usable: a duration of at least 1s, such as 30s`, {
      code: 'bad_store',
    });
  return ms;
}
