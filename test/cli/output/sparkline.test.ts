import { describe, expect, it } from 'vitest';
import { renderHistoryChart, sparkline } from '../../../src/cli/output/sparkline.js';

describe('sparkline', () => {
  it('maps min to the lowest bar and max to the highest', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([10, 80])).toBe('▁█');
  });
  it('draws a flat series as middle bars and an empty one as nothing', () => {
    expect(sparkline([5, 5, 5])).toBe('▄▄▄');
    expect(sparkline([])).toBe('');
  });
  it('leaves gaps for non-finite values', () => {
    expect(sparkline([0, Number.NaN, 10])).toBe('▁ █');
  });
});

describe('renderHistoryChart', () => {
  it('labels the first and last months and humanises min/max', () => {
    const out = renderHistoryChart([
      { month: '2025-03', visits: 1_200_000 },
      { month: '2025-01', visits: 34_500 },
      { month: '2025-02', visits: 600_000 },
    ]);
    expect(out).toBe('2025-01 ▁▄█ 2025-03  min 34.5k · max 1.2M · last 1.2M');
  });
  it('says so when there is no history', () => {
    expect(renderHistoryChart([])).toBe('no history');
  });
});
