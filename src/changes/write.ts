// The feed's events written as data: NDJSON (one event a line, for a chat hook or a CRM webhook), a JSON
// array, or CSV with the columns host, field, from, to, at. Times are ISO 8601 UTC to the second, as
// fetched_at is in batch output; lists stay lists in JSON and are joined as batch's CSV joins them.
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { fetchedAtText, renderList } from '../domain/flatten.js';
import type { FlatValue } from '../domain/fields.js';
import { csvLine, neutraliseCell } from '../output/write.js';
import type { ChangeEvent } from './events.js';

type EventFormat = 'ndjson' | 'json' | 'csv';

/** The columns of CSV and of the table. */
export const EVENT_COLUMNS = ['host', 'field', 'from', 'to', 'at'] as const;

export interface EventWriterOptions {
  format: EventFormat;
  /** CSV: leave formula-like cells as they are (--raw); by default they are neutralised as batch's are. */
  raw?: boolean;
  /** Applied to every CSV cell last (a terminal's sanitiser). */
  cleanCell?: (cell: string) => string;
  /** Stops waiting for a full output to drain (its reader gone, or the user's Ctrl-C). */
  signal?: AbortSignal;
}

export interface EventWriter {
  /** Writes events; resolves when `out` can take more. */
  write(events: readonly ChangeEvent[]): Promise<void>;
  /** Closes the document (the CSV header when no event came, JSON's `]`); does not end `out`. */
  end(): Promise<void>;
}

/** An event as JSON writes it: `at` as text, the technologies' added and removed kept. */
function eventRecord(e: ChangeEvent): Record<string, unknown> {
  const record: Record<string, unknown> = { host: e.host, field: e.field, from: e.from, to: e.to, at: fetchedAtText(e.at) };
  if (e.added !== undefined) record.added = e.added;
  if (e.removed !== undefined) record.removed = e.removed;
  return record;
}

/** A writer of events to `out` in `format`. */
export function createEventWriter(out: Writable, options: EventWriterOptions): EventWriter {
  const send = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain', options.signal ? { signal: options.signal } : {});
  };
  let started = false;
  if (options.format === 'csv') {
    const line = csvLine(',');
    const rule = options.raw ? (s: string) => s : neutraliseCell;
    const clean = options.cleanCell ?? ((s: string) => s);
    const cell = (v: FlatValue): string => clean(rule(v === null ? '' : String(v)));
    // CSV adds what NDJSON carries for technologies (adopted, dropped), so a spreadsheet need not diff lists.
    const header = () => line([...EVENT_COLUMNS, 'added', 'removed']);
    return {
      async write(events) {
        let text = started ? '' : header();
        started = true;
        for (const e of events)
          text += line([
            cell(e.host),
            cell(e.field),
            cell(renderList(e.from)),
            cell(renderList(e.to)),
            cell(fetchedAtText(e.at)),
            cell(renderList(e.added ?? null)),
            cell(renderList(e.removed ?? null)),
          ]);
        await send(text);
      },
      async end() {
        if (!started) await send(header());
        started = true;
      },
    };
  }
  if (options.format === 'ndjson') {
    return {
      write: (events) => send(events.map((e) => `${JSON.stringify(eventRecord(e))}\n`).join('')),
      end: async () => {},
    };
  }
  // A JSON array written as it goes, one event a line, so a long feed is never held whole.
  return {
    async write(events) {
      const items = events.map((e) => JSON.stringify(eventRecord(e))).join(',\n  ');
      await send(`${started ? ',\n  ' : '[\n  '}${items}`);
      started = true;
    },
    end: () => send(started ? '\n]\n' : '[]\n'),
  };
}
