// The forms an input can take that the rest of the program names: its delimiters and encodings (the choices
// --delimiter and --encoding offer), and what the reader reports of rows of another width. Kept here, below
// input/, so the row and shape types (types.ts) need nothing from the reader.

/** The delimiters a table may use. */
export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

const WORDS: Record<string, Delimiter> = { ',': ',', comma: ',', ';': ';', '\t': '\t', '\\t': '\t', tab: '\t', '|': '|', pipe: '|' };

/**
 * --delimiter's value: the character, or its name (`tab` for the one a shell cannot pass easily). Here, not
 * with the sniffing (input/dialect.ts): the option table parses it, and --help need not load the reader.
 */
export function parseDelimiter(value: string): Delimiter {
  const found = WORDS[value.toLowerCase()];
  if (found === undefined) throw new Error(`expected one of , ; tab | (got ${JSON.stringify(value)})`);
  return found;
}

/** The encodings --encoding takes. */
export const ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'latin1'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** Rows of another width than the header, counted as they are read: the run says so once, at its end. */
export interface Ragged {
  rows: number;
  /** The first few such rows' line numbers. */
  lines: number[];
}
