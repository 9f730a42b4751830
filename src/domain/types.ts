// The records that flow through the pipeline (see ARCHITECTURE.md "The flow").
import type { DomainProfile, EmployeesResult, TrafficHistory, TrafficMonth } from '../api/types.js';
import type { Delimiter, Encoding, Ragged } from './input-forms.js';

/** One input row as read: its physical line number (1-based) and its cells, exactly as in the file. */
export interface InputRecord {
  /** 1-based line number in the input where the row starts. */
  line: number;
  /** Every cell of the row, unchanged. A newline list has one cell per row. */
  cells: string[];
  /** The raw value of the host column (cells[hostColumn]), or '' when the row is too short. */
  value: string;
  /** Spreadsheet input only (input/workbook.ts): each cell as the sheet held it, so xlsx output keeps a number a number. */
  typed?: SheetValue[];
  /** CSV/TSV: the row is too short to hold the host column (its value is ''), set by the reader. */
  short?: true;
  /**
   * The host cell is empty, and another column that could hold a host (an Email beside a Website) holds this:
   * said in the row's reason (a trial's CRM rows with no website but an e-mail address were invalid with no pointer).
   */
  elsewhere?: { column: string; value: string };
}

/** A cell as a spreadsheet holds it, once read: formulas by their result, rich text as plain text. */
export type SheetValue = string | number | boolean | Date | null;

/** What the input looked like, known after the first row was read. */
export interface InputShape {
  format: 'csv' | 'tsv' | 'lines';
  /** Header cells for CSV/TSV input; null for newline lists. */
  headers: string[] | null;
  /** Index of the host column in `cells`. 0 for newline lists; -1 when read from our own, dropped `host` column (input/own-columns.ts ownHost). */
  hostColumn: number;
  /** The delimiter of a CSV/TSV input (sniffed or forced, dialect.ts); CSV output keeps it. Absent: by format. */
  delimiter?: Delimiter;
  /** The input started with a UTF-8 BOM (CSV output keeps it). Absent: no BOM. */
  bom?: boolean;
  /**
   * How the input's rows end, so CSV output ends its rows the same way: decided by the first row's ending
   * (the header of a CSV/TSV, outside quotes; the first line of a list). Absent: LF.
   */
  eol?: '\n' | '\r\n' | '\r';
  /** The input's encoding when it was not UTF-8 (its cells were decoded to UTF-8); absent: UTF-8. */
  encoding?: Encoding;
  /** Set at the end of reading when bytes that were not UTF-8 made the input read as Windows-1252: their line. */
  guessedAt?: number;
  /** CSV/TSV: rows of another width than the header, counted while reading (complete once read to its end). */
  ragged?: Ragged;
  /** The columns an earlier run of ours appended, dropped on reading (input/own-columns.ts); absent when none were. */
  earlier?: string[];
  /** Spreadsheet input: the sheet read (xlsx output names its sheet after it). */
  sheet?: string;
}

/** Which endpoint a run enriches from; decides the result type and the appended columns. */
export type RunKind = 'profile' | 'traffic' | 'employees';

export type RowStatus = 'found' | 'missing' | 'invalid' | 'error';

/** The result data a row carries, by kind. */
export interface ResultByKind {
  profile: DomainProfile;
  traffic: TrafficHistory;
  employees: EmployeesResult;
}

/** An input row with its enrichment, ready to be written. */
export interface EnrichedRow<K extends RunKind = RunKind> {
  kind: K;
  line: number;
  cells: string[];
  /** The input's cells as a spreadsheet held them (InputRecord.typed); absent for text input. */
  typed?: SheetValue[];
  /**
   * The input's line (without its line end) when CSV output, quoting only what it must, writes `cells` back as
   * these very characters (domain/line-text.ts); absent when that is not so or not known.
   */
  text?: string;
  value: string;
  status: RowStatus;
  /** The normalised host, or null when the value could not be normalised. */
  host: string | null;
  /** Why the row is invalid or in error; null otherwise. */
  reason: string | null;
  /** The service's answer; null unless status is 'found'. */
  data: ResultByKind[K] | null;
  /** True when the answer came from the local cache rather than the network. */
  cached: boolean;
  /**
   * When the answer was fetched from the service (epoch ms, to the whole second: see run/ordered-buffer.ts); null for
   * invalid rows and rows in error. An answer fetched in this run: when it was recorded.
   */
  fetchedAt: number | null;
  /**
   * Under batch --changes (row-change.ts): what the row's answer changed against the one held before; absent
   * otherwise, and for invalid and error rows. Set only when asked, so rows without it keep their shape.
   */
  change?: RowChange;
}

/**
 * `new`: nothing was held before; `same`: the same answer again; `changed`: found both times, some field
 * differs; `gone`: found, now missing; `back`: missing, now found.
 */
export type ChangeKind = 'new' | 'same' | 'changed' | 'gone' | 'back';

/** What a row's answer changed: one object per key and answer, shared by the key's rows. */
export interface RowChange {
  change: ChangeKind;
  /** Column names that differ (`status` alone for gone/back), in column order. */
  fields: string[];
  techAdded: string[];
  techRemoved: string[];
  /** The previous traffic band when the band differs, else null. */
  bandWas: FieldValue;
  /** When the previous answer was fetched (epoch ms); null for `new` and for `same` by the history rule. */
  previousAt: number | null;
  /** The second the answer compared was fetched in: a repeat served another answer is judged afresh. */
  second: number;
}

/** A cell value as CSV renders it: lists already joined. */
export type FlatValue = string | number | boolean | null;
/** A field value before rendering: lists stay lists so JSON can keep them as arrays. */
export type FieldValue = FlatValue | string[] | TrafficMonth[];
