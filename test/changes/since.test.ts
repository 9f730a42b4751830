// --since: dates (UTC unless an offset is given) and durations before now; anything else a usage error.
import { describe, expect, it } from 'vitest';
import { parseSince, sinceMoment } from '../../src/changes/since.js';

describe('--since', () => {
  it.each([
    ['2026-11-20', Date.parse('2026-11-20T00:00:00Z')],
    ['2026-11-20T06:30', Date.parse('2026-11-20T06:30:00Z')],
    ['2026-11-20T06:30:15.250Z', Date.parse('2026-11-20T06:30:15.250Z')],
    ['2026-11-20T06:30:00+02:00', Date.parse('2026-11-20T04:30:00Z')],
  ])('reads %s as a moment', (text, at) => {
    expect(parseSince(text)).toEqual({ at });
    expect(sinceMoment(parseSince(text), 0)).toBe(at);
  });

  it('reads a duration as --max-age does, before the command’s now', () => {
    expect(parseSince('1d')).toEqual({ ago: 86_400_000 });
    expect(sinceMoment(parseSince('20h'), 100 * 3_600_000)).toBe(80 * 3_600_000);
  });

  it.each(['yesterday', '2026-02-30', '2026-13-01', '20261120', '1 day', ''])('refuses %j', (text) => {
    expect(() => parseSince(text)).toThrow(/expected a date|not a date/);
  });
});
