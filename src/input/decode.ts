// The byte layer under the reader: finds the encoding (a BOM, --encoding, or Windows-1252 for bytes that are not
// UTF-8: encoding.ts says when), strips the BOM (and says it saw one, so the output can keep it), refuses binary
// input and undecodable bytes with the line they are on, and hands on UTF-8 bytes (not decoded strings) so
// csv-parse's byte offsets stay ours to map to line numbers. UTF-8 input passes through as it came; other
// encodings are transcoded chunk by chunk. Memory stays at one chunk plus <= 3 bytes.
import { isAscii, isUtf8 } from 'node:buffer';
import { InputError } from '../api/errors.js';
import type { Encoding } from '../domain/input-forms.js';
import { bomOf, encodingName, looks1252, type Transcoder, transcoder, utf16Without } from './encoding.js';

/** Longest line (or CSV row) accepted: beyond it the input is refused rather than buffered. */
export const MAX_LINE_BYTES = 1024 * 1024;

// Only the start of the file is sniffed for binary content: a NUL later on is just a bad cell.
const SNIFF_BYTES = 8192;
const LF = 10;
const CR = 13;
const QUOTE = 0x22;

/** An InputError whose message is the one-line `<file>:<line>: <what>` form. */
export function inputError(file: string, line: number, what: string, code: string): InputError {
  return new InputError(`${file}:${line}: ${what}`, file, line, code);
}

/**
 * Which byte ends a line: LF (CRLF too), or CR alone ("CSV (Macintosh)"), decided by the input's first line
 * break outside quotes (a quoted cell may hold a CR of its own): a CR followed by anything but LF. A lone CR
 * at the very end of the input is taken for a CRLF cut short. Bytes are looked at one by one only until then.
 */
export class BreakByte {
  private decided: number | null = null;
  private crLast = false;
  private quoted = false;

  /** Looks at the next bytes (until decided); returns 1 when they decide CR after a CR that ended the last ones. */
  see(buf: Uint8Array): number {
    if (this.decided !== null || buf.length === 0) return 0;
    if (this.crLast) {
      this.decided = buf[0] === LF ? LF : CR;
      return this.decided === CR ? 1 : 0;
    }
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i]!;
      if (b === QUOTE) this.quoted = !this.quoted;
      if (this.quoted || (b !== LF && b !== CR)) continue;
      if (b === LF) this.decided = LF;
      else if (i + 1 < buf.length) this.decided = buf[i + 1] === LF ? LF : CR;
      else this.crLast = true;
      return 0;
    }
    return 0;
  }

  /** Whether it is decided yet. */
  get known(): boolean {
    return this.decided !== null;
  }

  /** The byte (LF until decided otherwise). */
  get byte(): number {
    return this.decided ?? LF;
  }
}

/** Counts the line-break byte; in UTF-8 neither CR nor LF occurs inside a multi-byte character, so this is exact. */
function countBreaks(buf: Uint8Array, nl: number, end = buf.length): number {
  let n = 0;
  for (let i = buf.indexOf(nl); i !== -1 && i < end; i = buf.indexOf(nl, i + 1)) n++;
  return n;
}

type Chunk = Buffer | Uint8Array | string;

/** What the byte layer saw that is not data, known before the first chunk is yielded unless said otherwise. */
export interface ByteFacts {
  /** A byte-order mark started the input (of any encoding: the output, UTF-8, keeps one then). */
  bom: boolean;
  /** The input's encoding; a guess of Windows-1252 is made mid-input, where the first bad byte is. */
  encoding?: Encoding;
  /** The line of the first byte that was not UTF-8, when that made the input read as Windows-1252. */
  guessedAt?: number;
}

/**
 * Yields the input's bytes as UTF-8 without a BOM, each chunk ending on a character; `encoding` forces the
 * input's encoding (a BOM of another is refused), else a BOM decides and UTF-8 is expected (encoding.ts).
 */
export async function* utf8Chunks(source: AsyncIterable<Chunk>, file: string, facts: ByteFacts = { bom: false }, encoding?: Encoding): AsyncGenerator<Buffer> {
  let head: Buffer | null = Buffer.alloc(0);
  let carry: Buffer = Buffer.alloc(0);
  let sample = Buffer.alloc(0);
  let line = 1;
  let asciiSoFar = true;
  let decode: Transcoder | null = null;
  const breaks = new BreakByte();
  const broken = (what: string) => inputError(file, line, what, 'bad_encoding');
  const counted = (body: Buffer): number => breaks.see(body) + countBreaks(body, breaks.byte);

  // Bytes that are not UTF-8 where no encoding was given: read from here on as Windows-1252, or refused.
  const notUtf8Here = (buf: Buffer, body: Buffer, bad: number, end: boolean): Buffer => {
    const at = line + counted(body.subarray(0, bad));
    const before = asciiSoFar && isAscii(body.subarray(0, bad));
    if (encoding !== undefined || !looks1252(before, buf)) throw notUtf8(file, at, body[bad] ?? buf[0] ?? 0, sample, encoding, before);
    if (binaryLike(sample)) throw notUtf8(file, at, body[bad] ?? 0, sample, encoding, before);
    facts.encoding = 'windows-1252';
    facts.guessedAt = at;
    decode = transcoder('windows-1252', broken);
    carry = Buffer.alloc(0);
    return decode(buf, end);
  };

  // The per-chunk work in one place for both the streaming and the end-of-input path.
  const take = (raw: Buffer, end: boolean): Buffer => {
    let chunk = raw;
    if (decode !== null) chunk = decode(raw, end);
    if (sample.length < SNIFF_BYTES) {
      const room = SNIFF_BYTES - sample.length;
      const nul = chunk.subarray(0, room).indexOf(0);
      if (nul !== -1) {
        const at = line + counted(carry) + countBreaks(chunk, breaks.byte, nul);
        const head = Buffer.concat([sample, chunk.subarray(0, room)]);
        const wide = decode === null ? utf16Without(head) : null;
        if (wide !== null) {
          throw inputError(file, 1, `looks like ${encodingName(wide)} text without a byte-order mark; pass --encoding ${wide}`, 'bad_encoding');
        }
        throw inputError(file, at, binaryWhat(head, 'it contains NUL bytes'), 'binary_input');
      }
      sample = Buffer.concat([sample, chunk.subarray(0, room)]);
    }
    if (decode !== null) {
      line += counted(chunk);
      return chunk;
    }
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const keep = end ? 0 : incompleteTail(buf);
    const body = buf.subarray(0, buf.length - keep);
    carry = Buffer.from(buf.subarray(buf.length - keep));
    if (!isUtf8(body)) {
      const out = notUtf8Here(buf, body, firstInvalid(body), end);
      line += counted(out);
      return out;
    }
    if (asciiSoFar && !isAscii(body)) asciiSoFar = false;
    line += counted(body);
    return body;
  };

  for await (const piece of source) {
    let chunk = toBuffer(piece);
    if (head !== null) {
      // The BOM and file signatures may arrive split over tiny chunks: wait for 4 bytes first.
      head = Buffer.concat([head, chunk]);
      if (head.length < 4) continue;
      chunk = start(head, file, facts, encoding);
      if (facts.encoding !== 'utf-8') decode = transcoder(facts.encoding!, broken);
      head = null;
    }
    const body = take(chunk, false);
    if (body.length > 0) yield body;
  }
  if (head !== null && head.length > 0) {
    const chunk = start(head, file, facts, encoding);
    if (facts.encoding !== 'utf-8') decode = transcoder(facts.encoding!, broken);
    const body = take(chunk, true);
    if (body.length > 0) yield body;
  } else {
    const body = take(Buffer.alloc(0), true);
    if (body.length > 0) yield body;
  }
}

function toBuffer(piece: Chunk): Buffer {
  if (typeof piece === 'string') return Buffer.from(piece, 'utf8');
  return Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
}

// Refuses the containers people most often feed a "CSV" tool by mistake, settles the encoding (a BOM, or the
// one forced), then drops the BOM.
function start(head: Buffer, file: string, facts: ByteFacts, forced: Encoding | undefined): Buffer {
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    throw inputError(file, 1, 'looks like a ZIP archive or Excel workbook, not text; save it as CSV', 'binary_input');
  }
  const bom = bomOf(head);
  // A BOM is proof of its encoding; --encoding naming another is a mistake to say, not to obey into mojibake.
  // (latin1 and windows-1252 have no BOM: their bytes EF BB BF or FF FE are letters, so the option wins there.)
  const byteWise = forced === 'latin1' || forced === 'windows-1252';
  if (bom !== null && forced !== undefined && !byteWise && bom.encoding !== forced) {
    throw inputError(file, 1, `starts with a ${encodingName(bom.encoding)} byte-order mark, but --encoding ${forced} was given`, 'bad_encoding');
  }
  const used = bom !== null && !byteWise ? bom : null;
  facts.encoding = used?.encoding ?? forced ?? 'utf-8';
  facts.bom = used !== null;
  return used === null ? head : head.subarray(used.length);
}

// Length of a multi-byte character cut off at the end of `buf`, to be completed by the next chunk.
function incompleteTail(buf: Buffer): number {
  for (let i = 1; i <= Math.min(3, buf.length); i++) {
    const b = buf[buf.length - i]!;
    if ((b & 0xc0) === 0x80) continue;
    if (b < 0xc0) return 0;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return need > i ? i : 0;
  }
  return 0;
}

// Offset of the byte that breaks UTF-8. A streaming fatal decoder accepts an unfinished trailing
// character, so "this prefix is valid" is monotone and a binary search finds the first bad byte.
function firstInvalid(buf: Buffer): number {
  let lo = 0;
  let hi = buf.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (validPrefix(buf.subarray(0, mid))) lo = mid;
    else hi = mid;
  }
  return sequenceStart(buf, hi - 1);
}

// The byte that broke decoding may be the ASCII after a lone lead byte ("caf\xE9." breaks at '.'):
// name the lead byte instead, as that is the character the user has to fix.
function sequenceStart(buf: Buffer, bad: number): number {
  for (let j = bad - 1; j >= Math.max(0, bad - 3); j--) {
    const b = buf[j]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return j + need > bad ? j : bad;
  }
  return bad;
}

function validPrefix(buf: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf, { stream: true });
    return true;
  } catch {
    return false;
  }
}

// The signature of a Compound File: an Excel .xls (97-2003), or another Office file of before 2007.
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

function isOle2(head: Buffer): boolean {
  return head.subarray(0, OLE2.length).equals(OLE2);
}

/** What a binary input is said to be: an old Excel workbook by its signature (a trial's .xls was only "binary"), else binary. */
function binaryWhat(head: Buffer, why: string): string {
  if (isOle2(head)) return 'an old Excel .xls workbook (or another Office file of before 2007), which is not read: save it as .xlsx or CSV';
  return `looks like a binary file, not text (${why})`;
}

// Latin-1 text is mostly printable with the odd high byte; binary data is full of control bytes.
function binaryLike(sample: Buffer): boolean {
  let controls = 0;
  for (const b of sample) if ((b < 0x20 && b !== 9 && b !== 10 && b !== 12 && b !== 13) || b === 0x7f) controls++;
  return controls > sample.length / 10;
}

// Bytes that are not UTF-8 and not taken for Windows-1252: the message says which --encoding would read them.
function notUtf8(file: string, line: number, byte: number, sample: Buffer, forced: Encoding | undefined, asciiBefore: boolean): InputError {
  if (binaryLike(sample) || isOle2(sample)) return inputError(file, line, binaryWhat(sample, 'it is not valid UTF-8'), 'binary_input');
  const hex = `byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  const why =
    forced !== undefined
      ? `not valid UTF-8 (${hex}, --encoding utf-8); if it was saved by Excel on Windows, pass --encoding windows-1252`
      : asciiBefore
        ? `not valid UTF-8 (${hex}), nor like Windows-1252 text; pass --encoding with the file's encoding (utf-16le, utf-16be, windows-1252, latin1) or convert it to UTF-8`
        : `not valid UTF-8 (${hex}), though lines before it are: the file mixes encodings; fix this line, or pass --encoding windows-1252 if the whole file is Windows-1252`;
  return inputError(file, line, why, 'bad_encoding');
}
