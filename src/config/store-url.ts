// A store URL as it may be shown (messages, `config show`, `store status`): its password masked, as keys are
// (config/keys.ts). Only the password goes; user, host, database and options stay, so the line still says
// which store it is.
import { UsageError } from '../api/errors.js';

/** The password in a URL's user part or in a `password=` parameter replaced by `***`; the rest as given. */
export function maskUrl(url: string): string {
  // Greedy up to the last '@' before the path: a password with a raw '@' in it is masked whole.
  const userPart = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i.exec(url);
  let out = url;
  if (userPart !== null) {
    const [whole, scheme, user = ''] = userPart;
    const colon = user.indexOf(':');
    if (colon >= 0) out = `${scheme}${user.slice(0, colon)}:***@${url.slice(whole.length)}`;
  }
  return out.replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** What `--store`, DOMAIN_INTEL_STORE and `config set store` take for the default: SQLite in the cache directory. */
const LOCAL_STORE = 'sqlite';

/**
 * A store URL as given, checked for its form only (which backend serves its scheme is store/open.ts's word):
 * `scheme://…`, or `sqlite` for the default. Returns null for the default; throws UsageError
 * without the value.
 */
export function checkStoreUrl(url: string): string | null {
  const text = url.trim();
  if (text.toLowerCase() === LOCAL_STORE) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\/./i.test(text)) {
    // Not echoed: what is not a URL cannot be told apart from a password in it.
    throw new UsageError(
      'not a store URL: it reads postgres://USER@HOST:PORT/DATABASE (the password in PGPASSWORD or ~/.pgpass), or sqlite for the local cache',
      'bad_store',
    );
  }
  return text;
}
