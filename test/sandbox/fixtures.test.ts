import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createDataset } from '../../src/sandbox/index.js';

const ds = createDataset(1, 5000);
const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8');

/** Crude normalisation, enough to see the fixture was drawn from the default dataset. */
const hostOf = (value: string): string =>
  value
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/^.*@/, '');

describe('fixtures', () => {
  it('sample.csv mixes default-dataset hosts with duplicates, absent, IDN, e-mail and invalid values', () => {
    const rows = parse(fixture('sample.csv'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual(['company', 'website', 'owner', 'notes']);
    expect(rows.length).toBeGreaterThanOrEqual(40);
    const websites = rows.map((row) => row.website ?? '');
    const held = websites.filter((w) => ds.isHeld(hostOf(w)));
    expect(held.length).toBeGreaterThanOrEqual(30);
    expect(new Set(held.map(hostOf)).size).toBeLessThan(held.length);
    expect(websites.some((w) => w.startsWith('WWW.'))).toBe(true);
    expect(websites.some((w) => w.includes('@'))).toBe(true);
    expect(websites).toContain('bücher.example');
    expect(websites).toContain('');
    expect(websites).toContain('not a domain');
  });

  it('hosts.txt lists default-dataset hosts with a comment and a blank line', () => {
    const lines = fixture('hosts.txt').split('\n');
    expect(lines.some((l) => l.startsWith('#'))).toBe(true);
    expect(lines).toContain('');
    const hosts = lines.filter((l) => l !== '' && !l.startsWith('#'));
    expect(hosts.filter((h) => ds.isHeld(h)).length).toBe(hosts.length - 1);
  });
});
