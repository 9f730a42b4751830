// --since DATE|DURATION: the moment whose answers the latest are compared with.
import { UsageError } from '../api/errors.js';
import { parseDuration } from '../config/values.js';

/** A moment (epoch ms), or a duration (ms) before the command's now. */
export type Since = { at: number } | { ago: number };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// A date and time, to the minute or finer, with an optional offset.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * '2026-11-20' (midnight UTC), '2026-11-20T06:00:00Z' (ISO 8601; a time without an offset is UTC, as every
 * time the CLI writes is, never the machine's zone), or a duration as --max-age takes it ('1d', '20h').
 */
export function parseSince(value: string): Since {
  const text = value.trim();
  if (DATE_ONLY.test(text) || DATE_TIME.test(text)) {
    const zoned = DATE_ONLY.test(text) || /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
    const at = Date.parse(zoned);
    // V8 reads 2026-02-30 as 2 March: a day the month lacks is refused, not moved (checked where the day
    // stays the day written: no offset to move it).
    const dayKept = zoned.endsWith('Z') || DATE_ONLY.test(text);
    const bad = Number.isNaN(at) || (dayKept && new Date(at).toISOString().slice(0, 10) !== text.slice(0, 10));
    if (bad) throw new UsageError(`not a date: ${JSON.stringify(value)}`, 'bad_since');
    return { at };
  }
  try {
    return { ago: parseDuration(text) };
  } catch {
    throw new UsageError(`expected a date (2026-11-20, 2026-11-20T06:00:00Z) or a duration (1d, 20h), got ${JSON.stringify(value)}`, 'bad_since');
  }
}

/** The moment `since` names, `now` being the command's clock. */
export function sinceMoment(since: Since, now: number): number {
  return 'at' in since ? since.at : now - since.ago;
}
