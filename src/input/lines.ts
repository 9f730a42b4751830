// Line bookkeeping for the reader: a bounded line splitter over byte chunks, and a scanner that finds
// the line each CSV row starts on. csv-parse's own counters (`info.lines`, `info.bytes`) drift after a
// quoted CRLF, so they cannot be trusted for the "<file>:<line>" in messages.
// Lines end in LF (a CR before it is kept with the line), or, in a file whose first line break is a CR alone
// ("CSV (Macintosh)"), in CR: then an LF is data like any byte, and lines are counted by CR.
import { BreakByte, inputError, MAX_LINE_BYTES } from './decode.js';

const LF = 10;
const CR = 13;

/** Splits byte chunks into lines (without the line end), refusing any line longer than MAX_LINE_BYTES. */
export class LineReader {
  /** Number of the line most recently returned by next() (1-based; 0 before the first). */
  line = 0;
  private readonly breaks = new BreakByte();
  private nl = LF;
  private settled = false;
  private cur: Buffer = Buffer.alloc(0);
  private pos = 0;
  private parts: Buffer[] = [];
  private partsLength = 0;
  private done = false;

  constructor(
    private readonly chunks: AsyncIterator<Buffer>,
    private readonly file: string,
  ) {}

  /** True when lines end in CR alone (known once next() has returned a line or null). */
  get crOnly(): boolean {
    return this.nl === CR;
  }

  /** The next line's bytes (a trailing CR kept, under LF ends), or null at the end of input. */
  async next(): Promise<Buffer | null> {
    if (!this.settled) await this.settle();
    for (;;) {
      const nl = this.cur.indexOf(this.nl, this.pos);
      if (nl !== -1) {
        const piece = this.cur.subarray(this.pos, nl);
        this.pos = nl + 1;
        return this.emit(piece);
      }
      if (this.pos < this.cur.length) {
        this.parts.push(this.cur.subarray(this.pos));
        this.partsLength += this.cur.length - this.pos;
      }
      this.cur = Buffer.alloc(0);
      this.pos = 0;
      if (this.partsLength > MAX_LINE_BYTES) throw tooLong(this.file, this.line + 1);
      const step = this.done ? { done: true as const, value: undefined } : await this.chunks.next();
      if (step.done) {
        this.done = true;
        return this.parts.length > 0 ? this.emit(Buffer.alloc(0)) : null;
      }
      this.cur = step.value;
    }
  }

  // Reads ahead until the first line break says which byte ends lines (at most a line's worth plus a chunk).
  private async settle(): Promise<void> {
    this.settled = true;
    this.breaks.see(this.cur.subarray(this.pos));
    while (!this.breaks.known && this.cur.length - this.pos <= MAX_LINE_BYTES) {
      const step = await this.chunks.next();
      if (step.done) {
        this.done = true;
        break;
      }
      this.breaks.see(step.value);
      this.cur = Buffer.concat([this.cur.subarray(this.pos), step.value]);
      this.pos = 0;
    }
    this.nl = this.breaks.byte;
  }

  /** The bytes not yet returned by next(), then the rest of the input, for handing to csv-parse. */
  async *rest(): AsyncGenerator<Buffer> {
    if (this.pos < this.cur.length) yield this.cur.subarray(this.pos);
    this.cur = Buffer.alloc(0);
    if (this.done) return;
    for (let step = await this.chunks.next(); !step.done; step = await this.chunks.next()) yield step.value;
  }

  /** Stops reading the input early (the consumer went away). */
  async close(): Promise<void> {
    await this.chunks.return?.();
  }

  private emit(piece: Buffer): Buffer {
    this.line++;
    if (this.parts.length === 0) {
      if (piece.length > MAX_LINE_BYTES) throw tooLong(this.file, this.line);
      return piece;
    }
    const whole = Buffer.concat([...this.parts, piece]);
    this.parts = [];
    this.partsLength = 0;
    if (whole.length > MAX_LINE_BYTES) throw tooLong(this.file, this.line);
    return whole;
  }
}

/** A line's text: UTF-8 (already validated upstream) with the CR of a CRLF ending removed. */
export function lineText(bytes: Buffer): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
  return bytes.toString('utf8', 0, end);
}

export function tooLong(file: string, line: number, hint = ''): Error {
  return inputError(file, line, `line longer than 1 MiB${hint}`, 'line_too_long');
}

/**
 * Finds the line each CSV/TSV row starts on by scanning the bytes handed to csv-parse, following the
 * same quoting rules it is configured with (a quote opens a field only at its start; inside, `""` is a
 * quote and any other `"` closes; empty lines are skipped). Starts are queued in row order.
 * On the way it notes how the first row (the header) ends, CRLF or LF, outside quotes: a header cell may
 * hold a quoted line break of its own, which says nothing about the file's row ends. Under CR-only line
 * ends CR plays LF's part (and an LF, data, is skipped as a CR is under LF ends).
 *
 * A quoted field that runs over a line break and is then closed by a quote followed by anything but the
 * delimiter or a row end is a quote left open mid-file: csv-parse (relax_quotes) would read the lines between
 * as one cell of one row, silently losing them; it is refused at the line where the quote opens.
 */
export class RowStarts {
  /** True while the scan is inside a quoted field (an unclosed quote, if the input ends here). */
  inQuotes = false;
  /** How the first row ended, once the scan has passed its end. */
  eol: '\n' | '\r\n' | '\r' | null = null;
  private prevCR = false;
  private line: number;
  private quoteLine = 0;
  private readonly nl: number;
  private readonly other: number;
  private starts: number[] = [];
  private head = 0;
  private taken = 0;
  private pendingQuote = false;
  private fieldStart = true;
  private rowOpen = false;

  constructor(
    firstLine: number,
    private readonly delimiter: number,
    private readonly file: string,
    crOnly = false,
  ) {
    this.line = firstLine;
    this.nl = crOnly ? CR : LF;
    this.other = crOnly ? LF : CR;
    if (crOnly) this.eol = '\r';
  }

  /** Scans bytes in input order, before the parser sees them. */
  push(buf: Buffer): void {
    let i = 0;
    // The byte before each LF is followed only until the first row's end is known: the header, not the file.
    for (; this.eol === null && i < buf.length; i++) {
      const b = buf[i]!;
      this.step(b);
      this.prevCR = b === CR;
    }
    for (; i < buf.length; i++) this.step(buf[i]!);
  }

  /** Start line of the next row the parser emits (rows are taken in order). */
  take(): number {
    this.taken++;
    const line = this.starts[this.head++] ?? this.line;
    if (this.head > 1024) {
      this.starts = this.starts.slice(this.head);
      this.head = 0;
    }
    return line;
  }

  /** Start line of the row `ahead` rows after the next one to take (for a failing row). */
  peek(ahead: number): number {
    return this.starts[this.head + ahead] ?? this.line;
  }

  /** Rows taken so far. */
  get count(): number {
    return this.taken;
  }

  private step(b: number): void {
    if (this.pendingQuote) {
      this.pendingQuote = false;
      if (b === QUOTE) return;
      this.inQuotes = false;
      if (this.quoteLine !== this.line && b !== this.delimiter && b !== LF && b !== CR) {
        const what = `unbalanced quote: the quoted field opening on this line runs to line ${this.line}, where a quote ends it mid-cell; close it on its own line (a quote in a cell is written "")`;
        throw inputError(this.file, this.quoteLine, what, 'bad_quote');
      }
    }
    if (this.inQuotes) {
      if (b === QUOTE) this.pendingQuote = true;
      else if (b === this.nl) this.line++;
      return;
    }
    if (b === this.nl) {
      this.line++;
      if (this.eol === null && this.rowOpen) this.eol = this.prevCR ? '\r\n' : '\n';
      this.rowOpen = false;
      this.fieldStart = true;
      return;
    }
    if (b === this.other) return;
    if (!this.rowOpen) {
      this.rowOpen = true;
      this.starts.push(this.line);
    }
    if (b === QUOTE && this.fieldStart) {
      this.inQuotes = true;
      this.quoteLine = this.line;
      this.fieldStart = false;
      return;
    }
    this.fieldStart = b === this.delimiter;
  }
}

const QUOTE = 0x22;
