// What a spreadsheet cell becomes once read (src/input/workbook-cells.ts): the value xlsx output writes back, and the
// text the pipeline and CSV output carry.
import { describe, expect, it } from 'vitest';
import { cellText, sheetValue } from '../../src/input/workbook-cells.js';

describe('sheetValue', () => {
  it('keeps plain values, reads formulas by their result, rich text and hyperlinks as their text, errors as their code', () => {
    const date = new Date('2021-03-04T00:00:00Z');
    expect([undefined, null, 'a', 42, true, date].map((v) => sheetValue(v))).toEqual([null, null, 'a', 42, true, date]);
    // A numeric cell saved empty (`<v></v>`) comes from the reader as NaN: blank, never "NaN" in a cell.
    expect(sheetValue(Number.NaN)).toBeNull();
    expect(sheetValue({ formula: 'A1*2', result: 84 })).toBe(84);
    expect(sheetValue({ sharedFormula: 'B2', result: 'x' })).toBe('x');
    expect(sheetValue({ formula: 'NOW()' })).toBeNull();
    expect(sheetValue({ richText: [{ text: 'exam' }, { font: { bold: true }, text: 'ple.com' }] })).toBe('example.com');
    expect(sheetValue({ text: 'Example', hyperlink: 'https://example.com/' })).toBe('Example');
    expect(sheetValue({ error: '#N/A' })).toBe('#N/A');
  });
});

describe('cellText', () => {
  it('writes numbers as JavaScript does, booleans as spreadsheets show them, dates as ISO 8601 without a zone', () => {
    expect([null, '', ' x ', 12500.5, 0, -3, 1e21, true, false].map(cellText)).toEqual(['', '', ' x ', '12500.5', '0', '-3', '1e+21', 'TRUE', 'FALSE']);
    expect(cellText(new Date('2021-03-04T00:00:00Z'))).toBe('2021-03-04');
    expect(cellText(new Date('2021-03-04T09:30:15.250Z'))).toBe('2021-03-04T09:30:15');
    expect(cellText(new Date(Number.NaN))).toBe('');
  });
});
