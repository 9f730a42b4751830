// Which events the feed keeps: --field (column names, checked against the columns a profile has) and --tech
// (hosts that adopted or dropped one technology).
import { UsageError } from '../api/errors.js';
import { closest } from '../api/closest.js';
import { answerColumns } from '../domain/diff.js';
import { KINDS } from '../domain/kinds.js';
import type { ChangeEvent } from './events.js';

/**
 * The fields an event can name: `status` (gone, back) and the data columns diff.ts compares, read from the
 * comparison itself so the two lists cannot drift apart.
 */
export const FEED_FIELDS: readonly string[] = ['status', ...Object.keys(answerColumns(KINDS.profile, 'example.com', { status: 'missing', body: null }))];

export interface FeedFilter {
  /** The fields to report; null: every field. */
  fields: ReadonlySet<string> | null;
  /** True when a technologies event's adopted or dropped names include the technology asked for; null: no --tech. */
  tech: ((names: readonly string[]) => boolean) | null;
}

/** The --field list checked: a name that is no column is a usage error naming the choices. */
export function checkFields(fields: readonly string[]): ReadonlySet<string> {
  const choices = `fields: ${FEED_FIELDS.join(', ')}`;
  if (fields.length === 0) throw new UsageError(`--field needs at least one field; ${choices}`);
  // Column names are lower-case: `Technologies` is taken as `technologies`, as --tech ignores case too.
  const named = fields.map((f) => f.trim().toLowerCase());
  const unknown = named.filter((f) => !FEED_FIELDS.includes(f));
  if (unknown.length > 0) throw new UsageError(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; ${choices}`);
  return new Set(named);
}

/**
 * --tech NAME as a test of names. With the catalog (`known`: its names, when the cache holds it), NAME is a
 * catalog name exactly, or case-insensitively when exactly one matches; anything else is a usage error saying
 * which. Without a cached catalog (the feed spends nothing, so it never fetches one), each event's own names
 * stand in for the catalog: the exact name, else the one name that matches case-insensitively.
 */
export function techMatcher(name: string, known: readonly string[] | null): (names: readonly string[]) => boolean {
  if (known === null) return (names) => names.includes(name) || names.filter((n) => n.toLowerCase() === name.toLowerCase()).length === 1;
  if (known.includes(name)) return (names) => names.includes(name);
  const matches = [...new Set(known.filter((n) => n.toLowerCase() === name.toLowerCase()))];
  if (matches.length > 1) throw new UsageError(`--tech ${JSON.stringify(name)} matches ${matches.join(', ')}; give the exact name`);
  const only = matches[0];
  if (only === undefined) {
    const near = closest(name, known);
    throw new UsageError(`no technology ${JSON.stringify(name)} in the catalog${near.length > 0 ? `; did you mean ${near.join(', ')}?` : ''}`);
  }
  return (names) => names.includes(only);
}

/** Whether `filter` keeps `event`. */
export function keeps(filter: FeedFilter, event: ChangeEvent): boolean {
  if (filter.fields !== null && !filter.fields.has(event.field)) return false;
  if (filter.tech === null) return true;
  return event.field === 'technologies' && (filter.tech(event.added ?? []) || filter.tech(event.removed ?? []));
}
