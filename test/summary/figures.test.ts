// A share reads the same in the terminal's bars and in the HTML report: 29 of 400 hosts is 7.25%, which
// toFixed writes 7.2 (the float below 7.25) and the report wrote 7.3.
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../src/cli/output/bars.js';
import { percent } from '../../src/summary/figures.js';
import { renderReport } from '../../src/summary/html/report.js';
import { sampleSummary } from './html-sample.js';

describe('one percentage rule', () => {
  it('rounds halves up, whatever the float below them', () => {
    expect(percent(29 / 400)).toBe('7.3%');
    expect(percent(1 / 8)).toBe('12.5%');
    expect(percent(0)).toBe('0.0%');
    expect(percent(1)).toBe('100.0%');
  });

  it('writes a technology share of 29 in 400 as 7.3% in the bars and in the report', async () => {
    const summary = sampleSummary(400);
    summary.technologies = [{ value: 'Shopify', count: 29, share: 29 / 400 }];
    const bars = renderSummary(summary, { top: 10 });
    expect(bars).toMatch(/Shopify .* 29 +7\.3%/);
    expect(bars).not.toContain('7.2%');
    const page = await renderReport(summary);
    expect(page).toContain('7.3%');
    expect(page).not.toContain('7.2%');
  });
});
