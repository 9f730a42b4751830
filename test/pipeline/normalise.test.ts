import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlausibleHostname } from '../../src/api/hostname.js';
import { normaliseHost } from '../../src/pipeline/normalise.js';

const ok = (value: string, host: string) => expect(normaliseHost(value), value).toEqual({ ok: true, host });
const bad = (value: string, reason: string | RegExp) => {
  const r = normaliseHost(value);
  expect(r.ok, value).toBe(false);
  if (!r.ok) expect(r.reason).toMatch(reason);
};

describe('normaliseHost', () => {
  it('lower-cases and trims, including NBSP and zero-width characters', () => {
    ok('Example.COM', 'example.com');
    ok('  example.com\t', 'example.com');
    ok('\u00a0example.com\u00a0', 'example.com');
    ok('\u200bexa\u200cmple.com\ufeff', 'example.com');
  });

  it('reduces URLs to their hostname, with or without scheme', () => {
    ok('https://Foo.com/path?q', 'foo.com');
    ok('http://foo.com', 'foo.com');
    ok('foo.com/path', 'foo.com');
    ok('foo.com?x=1#frag', 'foo.com');
    ok('//foo.com', 'foo.com');
    ok('http://user:pass@foo.com:8080/', 'foo.com');
    ok('ftp://files.example.org/pub', 'files.example.org');
    ok('example.com:8080', 'example.com');
    ok('HTTPS://WWW.Example.com/', 'www.example.com');
  });

  it('keeps www. and other subdomains: each is its own record', () => {
    ok('www.example.com', 'www.example.com');
    ok('shop.www.example.com', 'shop.www.example.com');
  });

  it('reduces e-mail addresses to their domain', () => {
    ok('john@Example.COM', 'example.com');
    ok('mailto:x@y.com', 'y.com');
    ok('MAILTO:x@y.com?subject=hello', 'y.com');
    ok('<a@b.com>', 'b.com');
    ok('"John Doe" <john.doe+tag@mail.example.org>', 'mail.example.org');
  });

  it('drops surrounding quotes and angle brackets', () => {
    ok('"example.com"', 'example.com');
    ok("'example.com'", 'example.com');
    ok('<https://example.com/>', 'example.com');
    ok('“example.com”', 'example.com');
  });

  it('drops one trailing dot', () => {
    ok('example.com.', 'example.com');
    ok('https://example.com./x', 'example.com');
  });

  it('turns internationalised names into punycode', () => {
    ok('bücher.example', 'xn--bcher-kva.example');
    ok('https://Bücher.Example/katalog', 'xn--bcher-kva.example');
    ok('ＥＸＡＭＰＬＥ。com', 'example.com');
    ok('例え.jp', 'xn--r8jz45g.jp');
  });

  it('refuses IPv4 and IPv6 literals with a reason', () => {
    bad('192.0.2.1', 'an IP address, not a website');
    bad('http://192.0.2.1:8080/', 'an IP address, not a website');
    bad('[2001:db8::1]', /IPv6/);
    bad('http://[::1]/', /IPv6/);
  });

  it('explains what is wrong', () => {
    bad('', 'empty value');
    bad('   ', 'empty value');
    bad('""', 'empty value');
    bad('exa mple.com', 'contains spaces');
    bad('ab', 'too short (2 characters; at least 3)');
    bad('q', 'too short (1 character; at least 3)');
    bad('a'.repeat(300), 'too long (300 characters; at most 253)');
    bad('foo_bar.com', "invalid character '_'");
    bad('foo!.com', "invalid character '!'");
    bad('a\u0000b.com', "invalid character '\\u0000'");
    bad('a\u0007b.com', "invalid character '\\u0007'");
    bad('john@', 'no domain after @');
    bad('http://', 'no host name');
    bad('exa\u2028mple.com', 'contains spaces');
  });

  it('accepts 3 and 253 characters, refuses 254', () => {
    ok('a.b', 'a.b');
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(long.length).toBe(253);
    ok(long, long);
    bad(`${long}e`, 'too long (254 characters; at most 253)');
  });

  it('never throws, and either passes rule 2.9 or gives a reason (any string)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const r = normaliseHost(s);
        if (r.ok) expect(isPlausibleHostname(r.host)).toBe(true);
        else expect(r.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 3000 },
    );
  });

  it('never throws on URL- and e-mail-shaped strings', () => {
    const part = fc.string({ unit: fc.constantFrom('a', 'Z', '-', '.', '@', ':', '/', '?', '#', '[', ']', '<', '>', '"', 'é', ' ', '%', '9'), maxLength: 20 });
    fc.assert(
      fc.property(fc.constantFrom('', 'http://', 'mailto:', '//', 'x://'), part, part, (scheme, a, b) => {
        const r = normaliseHost(`${scheme}${a}@${b}`);
        if (r.ok) expect(isPlausibleHostname(r.host)).toBe(true);
        else expect(r.reason).not.toBe('');
      }),
      { numRuns: 3000 },
    );
  });

  it('is idempotent on what it accepts', () => {
    fc.assert(
      fc.property(fc.domain(), (d) => {
        const once = normaliseHost(d);
        if (once.ok) expect(normaliseHost(once.host)).toEqual(once);
      }),
    );
  });
});
