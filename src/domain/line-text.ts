// A CSV/TSV row's line as read, kept where CSV output can write it back whole (issue 27): a re-run whose every
// answer is cached writes each input row again, and for most rows the line itself is what quoting the cells
// again would give, character for character. Kept in a private field, not a property: a record stays the
// plain { line, cells, value } it always was to anyone looking at it (a library caller, a test's toEqual).
import type { InputRecord, SheetValue } from './types.js';

/** A record read from one line whose cells CSV output writes back as that very line (input/table-rows.ts). */
export class LineRecord implements InputRecord {
  line: number;
  cells: string[];
  value: string;
  declare typed?: SheetValue[];
  declare short?: true;
  #text: string | undefined;

  constructor(line: number, cells: string[], text: string | undefined) {
    this.line = line;
    this.cells = cells;
    this.value = '';
    this.#text = text;
  }

  /** The line of `record` when CSV output writes its cells back as that very line; else undefined. */
  static textOf(record: InputRecord): string | undefined {
    return record instanceof LineRecord ? record.#text : undefined;
  }

  /** Forgets the line of `record` (its cells were changed: our earlier columns cut). */
  static forget(record: InputRecord): void {
    if (record instanceof LineRecord) record.#text = undefined;
  }
}
