// A store URL as it may be shown (messages, `config show`, `store status`): its password masked, as keys are
// (config/keys.ts). Only the password goes; user, host, database and options stay, so the line still says
// which store it is.

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
