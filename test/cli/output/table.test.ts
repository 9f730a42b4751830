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
    expect(out).toContain('evil\\nline');
    expect(out).toContain('h\\x07');
  });

  it('styles the header, rule and nulls when colour is on', () => {
    const out = renderTable(rows, columns, { style: createStyle(true) });
    expect(out).toContain('\x1b[2m—\x1b[22m');
    expect(out).toContain('\x1b[1mdomain\x1b[22m');
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

  it('truncates values to the width', () => {
    const out = renderKeyValue([['k', 'v'.repeat(200)]], { width: 30 });
    expect(displayWidth(out)).toBeLessThanOrEqual(30);
  });
});
