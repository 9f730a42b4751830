import { describe, expect, it } from 'vitest';
import { renderKeyValue, renderTable } from '../../../src/cli/output/table.js';
import { createStyle, displayWidth } from '../../../src/cli/output/terminal.js';

const rows = [
  { domain: 'example.com', visits: 1_234_567, tech: ['nginx', 'react'], country: 'US' },
  { domain: 'b.io', visits: 42, tech: [], country: null },
];
const columns = [{ key: 'domain' }, { key: 'visits' }, { key: 'tech', header: 'technologies' }, { key: 'country' }];

describe('renderTable', () => {
  it('aligns columns, right-aligns numbers with separators, shows null as a dash', () => {
    const lines = renderTable(rows, columns).split('\n');
    expect(lines).toEqual([
      'domain          visits  technologies  country',
      '───────────  ─────────  ────────────  ───────',
      'example.com  1,234,567  nginx, react  US',
      'b.io                42                —',
    ]);
  });

  it('honours explicit alignment and per-column max', () => {
    const out = renderTable(rows, [
      { key: 'domain', align: 'right', max: 6 },
      { key: 'visits', align: 'left' },
    ]);
    expect(out.split('\n')).toEqual(['domain  visits', '──────  ─────────', 'examp…  1,234,567', '  b.io  42']);
  });

  it('truncates to fit the terminal width', () => {
    const long = [{ a: 'x'.repeat(100), b: 'short' }];
    const out = renderTable(long, [{ key: 'a' }, { key: 'b' }], { width: 40 });
    for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(out).toContain('…');
    expect(out).toContain('short');
  });

  it('sanitises values and headers', () => {
    const out = renderTable([{ h: '\x1b[31mevil\x1b[0m\nline' }], [{ key: 'h', header: 'h\x07' }]);
    expect(out).not.toContain('\x1b');
    expect(out).toContain('evil␊line');
    expect(out).toContain('h␇');
  });

  it('styles the header, rule and nulls when colour is on', () => {
    const out = renderTable(rows, columns, { style: createStyle(true) });
    expect(out).toContain('\x1b[2m—\x1b[22m');
    expect(out).toContain('\x1b[1mdomain\x1b[22m');
  });

  it('draws no rule under a column without a header (the marker of `keys list`)', () => {
    const out = renderTable(
      [
        { active: '*', name: 'work' },
        { active: '', name: 'home' },
      ],
      [{ key: 'active', header: ' ' }, { key: 'name' }],
    );
    expect(out.split('\n')).toEqual(['   name', '   ────', '*  work', '   home']);
  });

  it('renders just the header for no rows', () => {
    expect(renderTable([], [{ key: 'domain' }]).split('\n')).toHaveLength(2);
  });
});

describe('renderKeyValue', () => {
  it('aligns labels and formats values', () => {
    const out = renderKeyValue([
      ['domain', 'example.com'],
      ['age_days', 4_000],
      ['technologies', ['nginx', 'react']],
      ['registrar', null],
      ['resolves', true],
    ]);
    expect(out.split('\n')).toEqual([
      'domain:        example.com',
      'age_days:      4,000',
      'technologies:  nginx, react',
      'registrar:     —',
      'resolves:      yes',
    ]);
  });

  it('wraps values to the width, cutting nothing (a word wider than the room breaks where it ends)', () => {
    const out = renderKeyValue([['k', 'v'.repeat(200)]], { width: 30 }).split('\n');
    for (const line of out) expect(displayWidth(line)).toBeLessThanOrEqual(30);
    expect(out.map((l) => l.slice(4)).join('')).toBe('v'.repeat(200));
  });

  it('never cuts a key or a figure to the width, only free text (a single lookup at 40 columns)', () => {
    const host = 'www.a-rather-long-company-name.example';
    const out = renderKeyValue(
      [
        ['host', host, 'key'],
        ['visits', 40_600_797_123],
        ['technologies', 'Apache HTTP Server;Cloudflare;HSTS;Next.js'],
      ],
      { width: 40 },
    ).split('\n');
    expect(out[0]).toBe(`host:          ${host}`);
    expect(out[1]).toBe('visits:        40,600,797,123');
    // Free text wraps at its words and list separators, under its first line: nothing cut, no `…`.
    expect(out.slice(2)).toEqual(['technologies:  Apache HTTP Server;', '               Cloudflare;HSTS;Next.js']);
  });
});

// Issue 16: at 60 columns the host was cut (`usi.c…`) and a figure too (`40,600…`) while an empty `reason` kept
// its width. Columns have a kind: keys and numbers are never cut, free text gives way first.
describe('renderTable at narrow widths (40, 60, 120 columns)', () => {
  const hosts = [
    { host: 'usi.com', status: 'found', tech: 'Apache HTTP Server;Cloudflare;HSTS', cc: 'US', visits: 14_442, staff: null, reason: null },
    { host: 'alzota-cloud.com', status: 'found', tech: "Cloudflare;jQuery;Let's Encrypt", cc: 'FR', visits: 308, staff: '1–10', reason: null },
    { host: 'www.alzota-cloud.com', status: 'found', tech: null, cc: 'IN', visits: 40_600_797, staff: '1–10', reason: null },
    { host: 'nothere-xyz.com', status: 'missing', tech: null, cc: null, visits: null, staff: null, reason: null },
  ];
  const cols = [
    { key: 'host', kind: 'key' as const },
    { key: 'status', kind: 'key' as const },
    { key: 'tech', header: 'technologies', max: 40, kind: 'text' as const },
    { key: 'cc', header: 'country', short: 'cc', kind: 'key' as const },
    { key: 'visits', header: 'visits/mo', short: 'visits', align: 'right' as const, kind: 'number' as const },
    { key: 'staff', header: 'employees', short: 'empl.', align: 'right' as const, kind: 'number' as const },
    { key: 'reason', max: 40, kind: 'text' as const },
  ];
  const whole = ['usi.com', 'alzota-cloud.com', 'www.alzota-cloud.com', 'nothere-xyz.com', '14,442', '308', '40,600,797', '1–10'];

  it('120: every column at full width but the empty reason, which takes no room', () => {
    const lines = renderTable(hosts, cols, { width: 120 }).split('\n');
    expect(lines[0]).toBe('host                  status   technologies                        country   visits/mo  employees');
    expect(lines[2]).toBe('usi.com               found    Apache HTTP Server;Cloudflare;HSTS  US           14,442          —');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(120);
    expect(lines.join('\n')).not.toContain('reason');
  });

  // Issue 29: the technologies were cut to `Apach…` at 60 columns, and a reason to `conta…`.
  it('72: free text wraps within its column at words and list separators, the row taking more lines', () => {
    const lines = renderTable(hosts, cols, { width: 72 }).split('\n');
    expect(lines).toEqual([
      'host                  status   technologies        cc      visits  empl.',
      '────────────────────  ───────  ──────────────────  ──  ──────────  ─────',
      'usi.com               found    Apache HTTP         US      14,442      —',
      '                               Server;Cloudflare;',
      '                               HSTS',
      'alzota-cloud.com      found    Cloudflare;jQuery;  FR         308   1–10',
      "                               Let's Encrypt",
      'www.alzota-cloud.com  found    —                   IN  40,600,797   1–10',
      'nothere-xyz.com       missing  —                   —            —      —',
    ]);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(72);
    expect(lines.join('\n')).not.toContain('…');
  });

  it('60: no column could give free text room to wrap, so it goes under its row, whole; hosts and figures whole', () => {
    const lines = renderTable(hosts, cols, { width: 60 }).split('\n');
    expect(lines).toEqual([
      'host                  status   cc      visits  empl.',
      '────────────────────  ───────  ──  ──────────  ─────',
      'usi.com               found    US      14,442      —',
      '  technologies: Apache HTTP Server;Cloudflare;HSTS',
      'alzota-cloud.com      found    FR         308   1–10',
      "  technologies: Cloudflare;jQuery;Let's Encrypt",
      'www.alzota-cloud.com  found    IN  40,600,797   1–10',
      'nothere-xyz.com       missing  —            —      —',
    ]);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
  });

  it('66 with two free-text columns: the widest goes under its rows, the other wraps in the room left', () => {
    const reason = 'contains spaces: a placeholder, not a host';
    const rows = [...hosts, { host: 'not a host', status: 'invalid', tech: null, cc: null, visits: null, staff: null, reason }];
    const lines = renderTable(rows, cols, { width: 66 }).split('\n');
    expect(lines.slice(0, 6)).toEqual([
      'host                  status   technologies  cc      visits  empl.',
      '────────────────────  ───────  ────────────  ──  ──────────  ─────',
      'usi.com               found    Apache HTTP   US      14,442      —',
      '                               Server;',
      '                               Cloudflare;',
      '                               HSTS',
    ]);
    expect(lines.slice(-2)).toEqual(['not a host            invalid  —             —            —      —', `  reason: ${reason}`]);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(66);
    expect(lines.join('\n')).not.toContain('…');
  });

  it('40: keys and numbers alone are wider, so each row is a block of label/value lines, nothing of them cut', () => {
    const out = renderTable(hosts, cols, { width: 40 });
    for (const line of out.split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    for (const value of whole) expect(out).toContain(value);
    expect(out.split('\n\n')).toHaveLength(4);
    expect(out.split('\n\n')[2]).toBe(
      [
        'host          www.alzota-cloud.com',
        'status        found',
        'technologies  —',
        'country       IN',
        'visits/mo     40,600,797',
        'employees     1–10',
      ].join('\n'),
    );
    expect(out.split('\n\n')[0]).toContain('technologies  Apache HTTP Server;\n              Cloudflare;HSTS');
  });

  it('a key wider than the terminal is still written whole (the line runs over rather than lie)', () => {
    const long = `${'a'.repeat(50)}.example`;
    const out = renderTable([{ host: long }], [{ key: 'host', kind: 'key' }], { width: 40 });
    expect(out).toContain(long);
  });

  it("a name longer than a wrapped column's usual floor is never cut mid-word, at any width (a trial saw `WooCommerc` / `e`)", () => {
    const names = ['Cloudflare', 'jQuery', "Let's Encrypt", 'WooCommerce', 'Microsoft IIS'];
    const techRows = [
      { host: 'alzota-cloud.com', status: 'found', technologies: names, cc: 'FR', visits: 308, employees: '1–10' },
      { host: 'paro.com', status: 'found', technologies: ['Cloudflare', 'PHP'], cc: 'US', visits: 8_626_818, employees: '201–500' },
    ];
    // As `lookup` lays a profile out (cli/output/rows.ts).
    const techCols = [
      { key: 'host', kind: 'key' as const },
      { key: 'status', kind: 'key' as const },
      { key: 'technologies', short: 'tech', max: 40, kind: 'text' as const },
      { key: 'cc', kind: 'key' as const },
      { key: 'visits', short: 'visits', align: 'right' as const, kind: 'number' as const },
      { key: 'employees', short: 'empl.', align: 'right' as const, kind: 'number' as const },
    ];
    for (let width = 40; width <= 90; width++) {
      const words = renderTable(techRows, techCols, { width }).split(/[\s,]+/);
      for (const word of ['Cloudflare', 'WooCommerce', 'jQuery']) expect(words, `at ${width} columns`).toContain(word);
    }
  });

  it('a wrapped column is as wide as the widest piece wrapping keeps whole, a lone `/` and its neighbours included', () => {
    // `12,000 / 75,000` is one piece to wrapWords; sized by its words alone (6 columns) the column was made
    // 10 to 14 wide and the figure was cut where its line ended (`12,000 / 75,0` / `00`), where lines under
    // the row had room for it.
    const rows = [{ host: 'shop.northwind-traders.example', note: 'quota 12,000 / 75,000 left' }];
    const noteCols = [
      { key: 'host', kind: 'key' as const },
      { key: 'note', kind: 'text' as const },
    ];
    for (let width = 40; width <= 60; width++) {
      const out = renderTable(rows, noteCols, { width });
      expect(out, `at ${width} columns`).toContain('12,000 / 75,000');
    }
  });

  it('a wrapped column that would make a row more than 4 lines tall goes under the rows instead, long headers back if they fit (a trial: 7 to 8 lines a row at 60)', () => {
    // The rows of the table above (its columns), with as many technologies as the trial's lookup met.
    const many = [
      { ...hosts[0], tech: 'Apache HTTP Server;Cloudflare;HSTS;Next.js;Nuxt.js;Sucuri;WordPress' },
      { ...hosts[1], tech: "Cloudflare;jQuery;Let's Encrypt;LiteSpeed;Next.js;React;Shopify;WooCommerce" },
    ];
    const out = renderTable(many, cols, { width: 60 }).split('\n');
    expect(out[0]).toBe('host              status  country  visits/mo  employees');
    expect(out.filter((l) => l.startsWith('  technologies: '))).toHaveLength(2);
    for (const line of out) expect(line.length).toBeLessThanOrEqual(60);
    // Wide enough, the column stays, no row over 4 lines: the rows' own lines start at the left edge.
    const wide = renderTable(many, cols, { width: 120 }).split('\n');
    expect(wide.filter((l) => l.includes('technologies:'))).toHaveLength(0);
  });

  it('without a width nothing is cut and no kind matters', () => {
    const out = renderTable(hosts, cols);
    for (const value of [...whole, 'Apache HTTP Server;Cloudflare;HSTS']) expect(out).toContain(value);
  });
});
