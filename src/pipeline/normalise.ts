// Turns whatever a person pasted into a spreadsheet cell into the hostname the service is asked about.
//
// Choices, and why:
// - URLs and e-mail addresses are cut down by hand (scheme, userinfo, port, path) instead of through
//   `new URL()`: the WHATWG parser rewrites hosts it considers numeric ("123" -> "0.0.0.123", "0x7f.1")
//   and percent-decodes, which would invent hosts the user never wrote.
// - `www.` is kept: the service holds one profile per hostname (SERVICE.md §1), so www.x.com and x.com
//   are different records.
// - The verdict is rule 2.9 exactly (isPlausibleHostname) and nothing stricter. Values such as "none",
//   "localhost" or "a..b" pass 2.9 and are sent; the service is the judge of whether it holds them, and
//   a stricter local rule would silently disagree with it. IPv4 literals ("192.0.2.1") pass 2.9 too and
//   are kept for the same reason; IPv6 literals cannot pass (':' is outside 2.9) and get a clear reason.
import { domainToASCII } from 'node:url';
import { isPlausibleHostname } from '../api/hostname.js';
import { escapeChar } from './show.js';

export type NormaliseResult = { ok: true; host: string } | { ok: false; reason: string };

// Zero-width characters survive copy-paste from web pages and are invisible in a spreadsheet.
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const MAILTO = /^mailto:/i;
// "John Doe <john@example.com>" and Slack-style "<https://example.com>".
const ANGLE = /^[^<>]*<([^<>]*)>$/;
const QUOTE_PAIRS = ['""', "''", '``', '“”', '‘’', '«»'];
const NON_ASCII = /[^\x00-\x7f]/;
const OUTSIDE_2_9 = /[^a-z0-9.-]/u;

/** Reduces a cell (host, URL, e-mail address, IDN) to a hostname judged by rule 2.9; never throws. */
export function normaliseHost(value: string): NormaliseResult {
  try {
    return normalise(String(value));
  } catch {
    // Defensive only: nothing below is expected to throw, but a bad cell must never abort a run.
    return fail('not a hostname');
  }
}

function normalise(value: string): NormaliseResult {
  const cleaned = unwrap(value.replace(ZERO_WIDTH, '').trim());
  if (cleaned === '') return fail('empty value');

  let rest = cleaned;
  const scheme = SCHEME.exec(rest);
  if (scheme) rest = rest.slice(scheme[0].length);
  else if (rest.startsWith('//')) rest = rest.slice(2);
  else if (MAILTO.test(rest)) rest = rest.slice('mailto:'.length);

  const authority = rest.split(/[/?#]/, 1)[0] ?? '';
  const at = authority.lastIndexOf('@');
  let host = at >= 0 ? authority.slice(at + 1) : authority;
  if (host === '') return fail(at >= 0 ? 'no domain after @' : 'no host name');
  if (host.startsWith('[')) return fail('an IPv6 address, not a hostname');
  host = host.replace(/:\d*$/, '');
  if (/\s/.test(host)) return fail('contains spaces');

  if (NON_ASCII.test(host)) {
    const ascii = domainToASCII(host);
    if (ascii === '') return fail('not a valid internationalised name');
    host = ascii;
  }
  host = host.toLowerCase();
  // One trailing dot is the DNS root ("example.com."); the service's records never carry it.
  if (host.endsWith('.')) host = host.slice(0, -1);
  return judge(host);
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

function fail(reason: string): NormaliseResult {
  return { ok: false, reason };
}
