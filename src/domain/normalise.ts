// Turns whatever a person pasted into a spreadsheet cell into the hostname the service is asked about, or
// says why the cell names no website. Every lookup is paid for, found or not (SERVICE.md §8.6), so a value
// that cannot be a website is refused here, with its reason, and never sent.
//
// Choices, and why:
// - Rule 2.9 is necessary, not sufficient (issue 15 reverses the earlier "2.9 exactly and nothing stricter").
//   2.9 lets through "TBD", "www", "localhost", "12345" and "192.0.2.1", and each cost a lookup: 32 rows of a
//   2,000-row CRM export. Beyond 2.9 a name must have a dot, not be an IP address (the WHATWG parser reads
//   "123", "0x7f.1" and "2130706433" as IPv4, and refuses "foo.123": a last label that is a number is never
//   a website), not be localhost or under .localhost, have no empty label, none over 63 characters, none
//   starting or ending with a hyphen, and not be a known placeholder (placeholders.ts, the one list).
//   `.example` names pass: the sandbox and the tests use them. `anyName` (the CLI's --allow-any-name) turns
//   these checks off and sends every name 2.9 accepts, for a service that holds intranet names; a number is
//   then sent as written ("123", not the parser's "0.0.0.123"). That rewriting was why `new URL()` was once
//   avoided; with numbers refused (or kept as written) it invents no host, and its percent-decoding gives
//   the host a browser would visit.
// - A label mixing Latin, Cyrillic and Greek letters (`exаmple.com` with a Cyrillic `а`, `раураl.example`) is
//   a look-alike (issue 29): what browsers refuse to show as text, and no website anyone means to look up. It is
//   invalid ("mixed scripts"), never sent, unless `anyName`. Scripts are Unicode's (\p{Script=...}), read from
//   the name as the service would get it (punycode decoded), so `xn--` typed in is judged the same. A label in
//   one script (`пример.рф`, `ελλάδα.gr`), or mixing others (Japanese with Latin), stays valid.
// - How a value is read does not change with `anyName`. A URL is parsed as a browser parses it (WHATWG
//   `URL`): a backslash ends the host like a slash, userinfo runs to the last '@', the host is
//   percent-decoded, mapped (UTS 46) and turned into punycode. `https://site12.example\@evil.example/` is
//   site12.example, as a browser shows it. Any scheme is read as a web address's (`ssh://`, `git://` hosts
//   are hostnames too). A bare value (no scheme) is read as an address bar reads one typed into it: `http://`
//   put in front, then the same parse; except a bare value with an '@' before any '/', '\', '?' or '#',
//   which is an e-mail address: exactly one '@', something before it and a domain after it, else invalid
//   ("user@@example.com" is not an address, and is no longer looked up as example.com).
// - The authority is cut out by hand, by the split the parser makes for a web URL (it ends at '/', '\',
//   '?' or '#'; userinfo runs to the last '@'; a port follows the last ':'), and the host alone goes through
//   `new URL()`: a port out of range or an odd path does not make a cell invalid, and when the parser
//   refuses a host the reason is found in the host as written. Whitespace inside the host is refused before
//   parsing: the parser drops tabs and newlines, but a cell with a space in its name is a mistake.
// - `www.` is kept: the service holds one profile per hostname (SERVICE.md §1), so www.x.com and x.com
//   are different records. One trailing dot (the DNS root) is dropped. Lengths (2.9's 3 to 253, 63 a label)
//   apply to the name sent, after punycode.
import { domainToUnicode } from 'node:url';
import { isPlausibleHostname } from '../api/hostname.js';
import { isPlaceholder, isPlaceholderName } from './placeholders.js';
import { escapeChar } from './safe-text.js';

export type NormaliseResult = { ok: true; host: string } | { ok: false; reason: string };

export interface NormaliseOptions {
  /** Send every name rule 2.9 accepts: no check beyond it (single names, IP addresses, placeholders). */
  anyName?: boolean;
}

// Zero-width characters survive copy-paste from web pages and are invisible in a spreadsheet.
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const MAILTO = /^mailto:/i;
// "John Doe <john@example.com>" and Slack-style "<https://example.com>".
const ANGLE = /^[^<>]*<([^<>]*)>$/;
const QUOTE_PAIRS = ['""', "''", '``', '“”', '‘’', '«»'];
const NON_ASCII = /[^\x00-\x7f]/;
const OUTSIDE_2_9 = /[^a-z0-9.-]/u;
// Where the WHATWG parser ends a web URL's authority.
const AUTHORITY_END = /[/\\?#]/;
// A last label the WHATWG parser reads as a number, making the host an IPv4 address (or refusing it).
const NUMBER_LABEL = /^(\d+|0x[0-9a-f]*)$/i;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;
// Two or more labels of 1 to 63 letters, digits and hyphens, none starting or ending with a hyphen.
const SOUND_LABELS = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const PLAIN_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?$/i;
// An IPv6 address pasted without its brackets ("2001:db8::1").
const IPV6 = /^[\da-f]*:[\da-f]*:[\da-f:.]*$/i;

/** Reduces a cell (host, URL, e-mail address, IDN) to the hostname to look up, or a reason; never throws. */
export function normaliseHost(value: string, options: NormaliseOptions = {}): NormaliseResult {
  try {
    return normalise(String(value), options.anyName === true);
  } catch {
    // Defensive only: nothing below is expected to throw, but a bad cell must never abort a run.
    return fail('not a hostname');
  }
}

// The cells most lists hold, in plain ASCII with nothing around them: a bare name or a web URL (a path,
// query or fragment after it), or an e-mail address. Their host as written is the capture, exactly what
// read() would cut out of them: nothing to trim, unwrap or strip, no port, no userinfo. A property test holds
// the two ways equal (test/domain/normalise.test.ts); anything else takes the long way.
const QUICK_WEB = /^(?:https?:\/\/)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?:[/?#][\x21\x23-\x26\x28-\x3b\x3d\x3f-\x5b\x5d-\x5f\x61-\x7e]*)?$/i;
const QUICK_MAIL = /^[a-z0-9._%+-]+@([a-z0-9-]+(?:\.[a-z0-9-]+)+)$/i;

function normalise(value: string, anyName: boolean): NormaliseResult {
  const quick = QUICK_WEB.exec(value) ?? QUICK_MAIL.exec(value);
  const cleaned = quick === null ? unwrap(value.replace(ZERO_WIDTH, '').trim()) : value;
  if (cleaned === '') return fail('empty value');
  const r = quick === null ? read(cleaned, anyName) : hostOf(quick[1] as string, anyName);
  // Under anyName a placeholder is sent when 2.9 takes it; when it does not, its reason is still the clearest.
  if ((!anyName || !r.ok) && (isPlaceholder(cleaned) || (r.ok && isPlaceholderName(r.host)))) return fail('a placeholder, not a website');
  return r;
}

function read(cleaned: string, anyName: boolean): NormaliseResult {
  let rest = cleaned;
  const scheme = SCHEME.exec(rest);
  const mailto = !scheme && MAILTO.test(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  else if (rest.startsWith('//')) rest = rest.slice(2);
  else if (mailto) rest = rest.slice('mailto:'.length);
  const authority = rest.split(AUTHORITY_END, 1)[0] ?? '';
  const at = authority.lastIndexOf('@');
  if (mailto || (!scheme && !cleaned.startsWith('//') && at >= 0)) {
    const parts = authority.split('@');
    if (at < 0) return fail('no @ in the e-mail address');
    if (parts.length > 2) return fail('more than one @');
    if (parts[0] === '') return fail('nothing before @');
  }
  const hostPort = authority.slice(at + 1);
  const written = hostPort.replace(/:\d*$/, '');
  if (written === '') return fail(at >= 0 ? 'no domain after @' : 'no host name');
  if (written.startsWith('[') || IPV6.test(hostPort)) return fail('an IPv6 address, not a website');
  if (/\s/.test(written)) return fail('contains spaces');
  return hostOf(written, anyName);
}

/** The host a cell names, from its host as written (no userinfo, no port), judged. */
function hostOf(written: string, anyName: boolean): NormaliseResult {
  let host: string;
  if (plainName(written)) {
    // What the WHATWG parser makes of a plain ASCII name (letters, digits, hyphens, dots) is the name lower-
    // cased: parsing it would cost ~1.5 us a row, most of a 1,000,000-row run's normalising (measured: 2.1 s
    // against 0.65 s). Numbers (an IPv4 form) and punycode, which the parser checks, take the long way.
    host = written.toLowerCase();
  } else {
    try {
      // Only the host is wanted: it alone is parsed, so a port out of range or an odd path costs nothing.
      host = new URL(`http://${written}`).hostname;
    } catch {
      return refused(written.toLowerCase(), anyName);
    }
  }
  if (IPV4.test(host)) return anyName ? judge(dropDot(written.toLowerCase())) : fail('an IP address, not a website');
  host = dropDot(host);
  const verdict = judge(host);
  return !verdict.ok || anyName ? verdict : plausible(host);
}

/** A name the parser would only lower-case: ASCII letters, digits and hyphens in dot-separated labels, its last
 * label no number (the parser's IPv4 rule) and no label punycode (the parser decodes and checks those). */
function plainName(written: string): boolean {
  if (!PLAIN_NAME.test(written) || /xn--/i.test(written)) return false;
  const name = written.endsWith('.') ? written.slice(0, -1) : written;
  return !NUMBER_LABEL.test(name.slice(name.lastIndexOf('.') + 1));
}

// One trailing dot is the DNS root ("example.com."); the service's records never carry it.
function dropDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** Why the WHATWG parser refused a host (as written, lower-cased), or, under anyName, a number as written. */
function refused(written: string, anyName: boolean): NormaliseResult {
  const host = dropDot(written);
  if (NUMBER_LABEL.test(host.slice(host.lastIndexOf('.') + 1))) {
    return anyName ? judge(host) : fail('ends in a number: not a website');
  }
  if (NON_ASCII.test(host) || host.includes('xn--')) return fail('not a valid internationalised name');
  // Past the cases above the parser refuses only what 2.9 refuses too ('%', '^', '|'...): its reason stands.
  const verdict = judge(host);
  return verdict.ok ? fail('not a hostname') : verdict;
}

// Peels quotes and angle brackets that spreadsheets and mail clients wrap around values.
function unwrap(value: string): string {
  let s = value;
  for (let i = 0; i < 4; i++) {
    const angle = ANGLE.exec(s);
    if (angle) {
      s = (angle[1] ?? '').trim();
      continue;
    }
    const pair = s.length >= 2 ? s[0]! + s[s.length - 1]! : '';
    if (!QUOTE_PAIRS.includes(pair)) break;
    s = s.slice(1, -1).trim();
  }
  return s;
}

/** Rule 2.9, with a reason for each way of failing it. */
function judge(host: string): NormaliseResult {
  if (host === '') return fail('no host name');
  const bad = OUTSIDE_2_9.exec(host);
  if (bad) return fail(`invalid character '${escapeChar(bad[0])}'`);
  const n = host.length;
  if (n < 3) return fail(`too short (${n} character${n === 1 ? '' : 's'}; at least 3)`);
  if (n > 253) return fail(`too long (${n} characters; at most 253)`);
  // The checks above mirror rule 2.9 to give reasons; the rule itself stays the single authority.
  return isPlausibleHostname(host) ? { ok: true, host } : fail('not a plausible hostname');
}

/** The checks beyond rule 2.9, on a name that passed it. */
function plausible(host: string): NormaliseResult {
  const mixed = host.includes('xn--') ? mixedScripts(host) : null;
  if (mixed !== null) return fail(`mixed scripts (${mixed} letters in one label: a look-alike name)`);
  if (host === 'localhost' || host.endsWith('.localhost')) return fail('localhost, not a website');
  // Most names pass every label rule: one expression says so; the loop below finds the reason otherwise.
  if (SOUND_LABELS.test(host)) return { ok: true, host };
  if (!host.includes('.')) return fail('no dot: a single name, not a website');
  for (const label of host.split('.')) {
    if (label === '') return fail('an empty label (two dots together, or a leading dot)');
    if (label.length > 63) return fail(`a label of ${label.length} characters (at most 63)`);
    if (label.startsWith('-') || label.endsWith('-')) return fail(`a label starts or ends with a hyphen ('${label}')`);
  }
  return { ok: true, host };
}

// The scripts look-alike names are made of: a label holding letters of two of them is refused.
const SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
];

/** The scripts of the first label of `host` (punycode) that mixes them ('Latin and Cyrillic'), or null. */
function mixedScripts(host: string): string | null {
  for (const label of domainToUnicode(host).split('.')) {
    const found = SCRIPTS.filter(([, letters]) => letters.test(label)).map(([name]) => name);
    if (found.length > 1) return found.join(' and ');
  }
  return null;
}

function fail(reason: string): NormaliseResult {
  return { ok: false, reason };
}
