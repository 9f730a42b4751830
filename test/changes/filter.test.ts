// --field and --tech: the column names checked, and a technology matched as the catalog names it.
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/changes/events.js';
import { checkFields, FEED_FIELDS, keeps, techMatcher } from '../../src/changes/filter.js';
import { UsageError } from '../../src/api/errors.js';

const tech = (added: string[], removed: string[]): ChangeEvent => ({
  host: 'a.example',
  field: 'technologies',
  from: removed,
  to: added,
  at: 0,
  added,
  removed,
});
const band: ChangeEvent = { host: 'a.example', field: 'traffic_band', from: '1K-10K', to: '10K-100K', at: 0 };

describe('feed filters', () => {
  it('names the profile columns the diff compares, and status; never the row fields', () => {
    expect(FEED_FIELDS).toEqual(expect.arrayContaining(['status', 'technologies', 'traffic_band', 'redirect_to', 'employees_high']));
    for (const own of ['host', 'reason', 'fetched_at']) expect(FEED_FIELDS).not.toContain(own);
  });

  it('refuses an unknown or empty --field, naming the choices', () => {
    expect([...checkFields(['technologies', 'traffic_band'])]).toEqual(['technologies', 'traffic_band']);
    expect(() => checkFields(['technology', 'band'])).toThrow(/^unknown fields technology, band; fields: status, resolves, technologies/);
    expect(() => checkFields([])).toThrow(UsageError);
  });

  it('--tech with a catalog: its exact name, or the one name matching case-insensitively; else a usage error that says why', () => {
    const catalog = ['Shopify', 'HubSpot', 'Next.js', 'next.js'];
    expect(techMatcher('shopify', catalog)(['Shopify'])).toBe(true);
    expect(techMatcher('shopify', catalog)(['shopify'])).toBe(false); // the catalog's spelling is what answers carry
    expect(techMatcher('Next.js', catalog)(['Next.js'])).toBe(true);
    expect(() => techMatcher('NEXT.JS', catalog)).toThrow(/matches Next\.js, next\.js; give the exact name/);
    expect(() => techMatcher('Shopfy', catalog)).toThrow(/no technology "Shopfy" in the catalog; did you mean Shopify\?/);
  });

  it('--tech without a catalog: the exact name, or the one of the names matching case-insensitively', () => {
    const m = techMatcher('hubspot', null);
    expect(m(['HubSpot', 'Nginx'])).toBe(true);
    expect(m(['Nginx'])).toBe(false);
    expect(m(['HubSpot', 'Hubspot'])).toBe(false);
    expect(techMatcher('HubSpot', null)(['HubSpot', 'Hubspot'])).toBe(true);
  });

  it('keeps events by field, and for --tech the technologies events adopting or dropping it only', () => {
    const shopify = techMatcher('Shopify', null);
    expect(keeps({ fields: null, tech: null }, band)).toBe(true);
    expect(keeps({ fields: new Set(['technologies']), tech: null }, band)).toBe(false);
    expect(keeps({ fields: null, tech: shopify }, tech(['Shopify'], []))).toBe(true);
    expect(keeps({ fields: null, tech: shopify }, tech([], ['Shopify']))).toBe(true);
    expect(keeps({ fields: null, tech: shopify }, tech(['Stripe'], ['HubSpot']))).toBe(false);
    expect(keeps({ fields: null, tech: shopify }, band)).toBe(false);
  });
});
