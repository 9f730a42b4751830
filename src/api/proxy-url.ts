// A proxy URL as it may be shown: its password masked (`http://ana:***@proxy:3128`), in messages, `config
// show` and errors alike; and the password itself, kept off every message as the key is.

/** A proxy URL with its password masked (`http://ana:***@proxy:3128`): the only form ever shown. */
export function maskProxy(url: string): string {
  try {
    const u = new URL(url);
    if (u.password === '') return url;
    return `${u.protocol}//${u.username}:***@${u.host}`;
  } catch {
    return '(a proxy URL)';
  }
}

/** The proxy's password, when it has one (kept off every message as the key is). */
export function proxyPassword(url: string | null): string | null {
  if (url === null) return null;
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? null : password;
  } catch {
    return null;
  }
}
