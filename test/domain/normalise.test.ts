import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlausibleHostname } from '../../src/api/hostname.js';
import { normaliseHost } from '../../src/domain/normalise.js';
import { isPlaceholder } from '../../src/domain/placeholders.js';
import { createDataset } from '../../src/sandbox/index.js';
import { JUNK } from '../helpers/junk.js';

const ok = (value: string, host: string) => expect(normaliseHost(value), value).toEqual({ ok: true, host });
const bad = (value: string, reason: string | RegExp) => {
  const r = normaliseHost(value);
  expect(r.ok, value).toBe(false);
  if (!r.ok) expect(r.reason, value).toMatch(reason);
};
const anyName = (value: string) => normaliseHost(value, { anyName: true });

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

  it('refuses a label mixing Latin, Cyrillic or Greek letters: a look-alike (issue 29)', () => {
    const latinCyrillic = 'mixed scripts (Latin and Cyrillic letters in one label: a look-alike name)';
    bad('exаmple.com', latinCyrillic); // a Cyrillic а
    bad('https://www.раураl.example/login', latinCyrillic); // Cyrillic р а у р а, a Latin l
    bad('jo@exаmple.com', latinCyrillic);
    bad('xn--exmple-4nf.com', latinCyrillic); // the same name typed as punycode
    bad('gοogle.com', 'mixed scripts (Latin and Greek letters in one label: a look-alike name)'); // a Greek ο
    bad('пример.ελλάδα-мир.example', 'mixed scripts (Cyrillic and Greek letters in one label: a look-alike name)');
    // One script a label, or scripts that are not look-alikes of Latin: valid, as are digits and hyphens.
    ok('пример.рф', 'xn--e1afmkfd.xn--p1ai');
    ok('ελλάδα.gr', 'xn--hxakic4aa.gr');
    ok('пример-2024.example', 'xn---2024-yweu6azakd.example');
    ok('bücher.example', 'xn--bcher-kva.example');
    ok('例えtest.jp', 'xn--test-p63cv06p.jp');
    // --allow-any-name sends it.
    expect(anyName('exаmple.com')).toEqual({ ok: true, host: 'xn--exmple-4nf.com' });
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
    bad('a\u0000b.com', "invalid character '␀'");
    bad('a\u0007b.com', "invalid character '␇'");
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

  it('the quick way for plain names, web URLs and e-mail addresses reads them as the long way does', () => {
    // A leading space keeps a value off the quick way (it wants nothing around the cell); the long way trims
    // it, so both read the same cell. Labels include what the long way treats apart: numbers, punycode,
    // hyphens at the ends, placeholders, localhost, over-long ones.
    const text = (chars: string[], maxLength: number) => fc.string({ unit: fc.constantFrom(...chars), maxLength });
    const label = fc.oneof(
      text(['a', 'Z', '0', '7', '-'], 6),
      fc.constantFrom('xn--e1afmkfd', 'XN--80ak6aa92e', '123', '0x7f', 'localhost', 'www', 'n', 'tbd', 'example', 'com', 'a'.repeat(64)),
    );
    const cell = fc.tuple(
      fc.constantFrom('', 'http://', 'HTTPS://', 'https://', 'u.ser+x@', 'john@', '-@'),
      fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
      fc.constantFrom('', '/', '/path?q=1', '?x', '#f', '/a@b', '/"', '/ x', '.', ':80', '\\x'),
    );
    let quick = 0;
    fc.assert(
      fc.property(cell, ([head, host, tail]) => {
        const value = `${head}${host}${tail}`;
        for (const anyName of [false, true]) expect(normaliseHost(value, { anyName }), value).toEqual(normaliseHost(` ${value}`, { anyName }));
        if (normaliseHost(value).ok) quick++;
      }),
      { numRuns: 5000 },
    );
    expect(quick).toBeGreaterThan(500);
  });

  it('is idempotent on what it accepts', () => {
    fc.assert(
      fc.property(fc.domain(), (d) => {
        const once = normaliseHost(d);
        if (once.ok) expect(normaliseHost(once.host)).toEqual(once);
      }),
    );
  });

  it('refuses every kind of junk beyond rule 2.9, each with its reason', () => {
    for (const [value, reason] of JUNK) bad(value, new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  });

  it('reads a URL as a browser does: a backslash ends the host, userinfo runs to the last @', () => {
    ok('https://site12.example\\@evil.example/', 'site12.example');
    ok('site12.example\\@evil.example/', 'site12.example');
    ok('http://a@b@site12.example/', 'site12.example');
    ok('https://exa%6Dple.com/', 'example.com');
    ok('ssh://git@github.com:22/x', 'github.com');
    ok('x.com:99999', 'x.com');
    // Whatever a browser opens, the host asked about is the one it shows: userinfo, host, port, then the rest.
    let accepted = 0;
    const text = (chars: string[], maxLength: number) => fc.string({ unit: fc.constantFrom(...chars), maxLength });
    const label = text(['a', 'b', 'Z', '0', '1', '-', 'é', 'x', '%41'], 8);
    const url = fc.tuple(
      fc.constantFrom('http://', 'https://', 'HTTPS://', '//', ''),
      fc.option(
        text(['u', '@', ':', '\\', '%', '.'], 6).map((u) => `${u}@`),
        { nil: '' },
      ),
      fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
      fc.option(
        fc.nat(70000).map((p) => `:${p}`),
        { nil: '' },
      ),
      fc.constantFrom('', '/', '\\', '?', '#'),
      text(['a', '.', '@', '\\', '/', 'x'], 12),
    );
    fc.assert(
      fc.property(url, ([scheme, user, host, port, end, tail]) => {
        const r = normaliseHost(`${scheme}${user}${host}${port}${end}${tail}`);
        if (!r.ok) return;
        // The port aside: a browser refuses one out of range, where only the host matters here.
        const shown = new URL(`https://${user}${host}${end}${tail}`).hostname;
        expect(r.host).toBe(shown.endsWith('.') ? shown.slice(0, -1) : shown);
        accepted++;
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: many of them name a host.
    expect(accepted).toBeGreaterThan(100);
  });

  it('applies the length rules to the name sent, after punycode', () => {
    // n distinct CJK characters: n characters as typed, about 3n once in punycode.
    const label = (n: number, from: number) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + from + i * 97)).join('');
    bad(`${label(25, 0)}.example`, /^a label of \d+ characters \(at most 63\)$/);
    const name = `${[0, 1, 2, 3, 4, 5, 6].map((i) => label(14, i * 5)).join('.')}.example`;
    expect(name.length).toBeLessThan(253);
    bad(name, /^too long \(\d+ characters; at most 253\)$/);
  });

  it('keeps names that look like filler but are real: example.com, test.com, .example names', () => {
    for (const host of ['example.com', 'test.com', 'none.com', 'www.example.org', 'site12.example', 'n-a.example', 'xn--bcher-kva.example']) ok(host, host);
    expect(isPlaceholder('example.com')).toBe(false);
    expect(isPlaceholder('  No   WEBSITE ')).toBe(true);
  });

  it('keeps every host the sandbox holds, in its first release and a later one', () => {
    for (const release of ['2025-10', '2026-11']) {
      const hosts = createDataset(1, 5000, release).hosts();
      expect(hosts.length).toBeGreaterThan(4000);
      const changed = hosts.filter((host) => {
        const r = normaliseHost(host);
        return !r.ok || r.host !== host;
      });
      expect(changed).toEqual([]);
    }
  });

  it('with anyName, sends every name rule 2.9 accepts, numbers as written', () => {
    const sent = JUNK.flatMap(([value]) => {
      const r = anyName(value);
      return r.ok ? [[value, r.host]] : [];
    });
    expect(sent).toEqual([
      ['TBD', 'tbd'],
      ['none', 'none'],
      ['None', 'none'],
      ['n.a.', 'n.a'],
      ['null', 'null'],
      ['unknown', 'unknown'],
      ['test', 'test'],
      ['example', 'example'],
      ['https://n.a/', 'n.a'],
      ['www', 'www'],
      ['localhost', 'localhost'],
      ['LOCALHOST:8080', 'localhost'],
      ['http://app.localhost/', 'app.localhost'],
      ['intranet', 'intranet'],
      ['http://wiki/', 'wiki'],
      ['ü', 'xn--tda'],
      ['12345', '12345'],
      ['192.0.2.1', '192.0.2.1'],
      ['http://192.0.2.1:8080/', '192.0.2.1'],
      ['0x7f.1', '0x7f.1'],
      ['127.1', '127.1'],
      ['2130706433', '2130706433'],
      ['0177.0.0.1', '0177.0.0.1'],
      ['1.2.3.999', '1.2.3.999'],
      ['shop.123', 'shop.123'],
      ['a..b', 'a..b'],
      ['.example.com', '.example.com'],
      [`${'a'.repeat(64)}.com`, `${'a'.repeat(64)}.com`],
      ['-shop.example.com', '-shop.example.com'],
      ['shop-.example.com', 'shop-.example.com'],
    ]);
    for (const [, host] of sent) expect(isPlausibleHostname(host as string)).toBe(true);
    // What rule 2.9 refuses stays refused, and how a value is read does not change.
    expect(anyName('N/A')).toEqual({ ok: false, reason: 'a placeholder, not a website' });
    expect(anyName('user@@example.com')).toEqual({ ok: false, reason: 'more than one @' });
    expect(anyName('https://site12.example\\@evil.example/')).toEqual({ ok: true, host: 'site12.example' });
    expect(anyName('[::1]')).toEqual({ ok: false, reason: 'an IPv6 address, not a website' });
  });
});
