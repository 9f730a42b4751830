// The byte layer under the reader: strips the BOM (and says it saw one, so the output can keep it), refuses binary and non-UTF-8 input with the line it
// went wrong on, and hands on the original bytes (not decoded strings) so csv-parse's byte offsets stay
// ours to map to line numbers. Validation is per chunk, so memory stays at one chunk plus <= 3 bytes.
import { isUtf8 } from 'node:buffer';
import { InputError } from '../api/errors.js';

/** Longest line (or CSV row) accepted: beyond it the input is refused rather than buffered. */
export const MAX_LINE_BYTES = 1024 * 1024;

// Only the start of the file is sniffed for binary content: a NUL later on is just a bad cell.
const SNIFF_BYTES = 8192;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** An InputError whose message is the one-line `<file>:<line>: <what>` form. */
export function inputError(file: string, line: number, what: string, code: string): InputError {
  return new InputError(`${file}:${line}: ${what}`, file, line, code);
}

/** Counts LF bytes; in UTF-8 0x0A never occurs inside a multi-byte character, so this is exact. */
function countNewlines(buf: Uint8Array, end = buf.length): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1 && i < end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

type Chunk = Buffer | Uint8Array | string;

/** What the byte layer saw that is not data: a UTF-8 BOM at the start (known before the first chunk is yielded). */
export interface ByteFacts {
  bom: boolean;
}

/**
 * Yields the input's bytes without a UTF-8 BOM, each chunk proven UTF-8 and ending on a character; a BOM
 * dropped is noted in `facts`.
 */
export async function* utf8Chunks(source: AsyncIterable<Chunk>, file: string, facts: ByteFacts = { bom: false }): AsyncGenerator<Buffer> {
  let head: Buffer | null = Buffer.alloc(0);
  let carry: Buffer = Buffer.alloc(0);
  let sample = Buffer.alloc(0);
  let line = 1;

  // The closure keeps the per-chunk work in one place for both the streaming and the end-of-input path.
  const take = (chunk: Buffer): Buffer => {
    if (sample.length < SNIFF_BYTES) {
      const room = SNIFF_BYTES - sample.length;
      const nul = chunk.subarray(0, room).indexOf(0);
      if (nul !== -1) {
        const at = line + countNewlines(carry) + countNewlines(chunk, nul);
        throw inputError(file, at, 'looks like a binary file, not text (it contains NUL bytes)', 'binary_input');
      }
      sample = Buffer.concat([sample, chunk.subarray(0, room)]);
    }
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const keep = incompleteTail(buf);
    const body = buf.subarray(0, buf.length - keep);
    carry = Buffer.from(buf.subarray(buf.length - keep));
    if (!isUtf8(body)) {
      const bad = firstInvalid(body);
      throw notUtf8(file, line + countNewlines(body, bad), body[bad] ?? 0, sample);
    }
    line += countNewlines(body);
    return body;
  };

  for await (const piece of source) {
    let chunk = toBuffer(piece);
    if (head !== null) {
      // The BOM and file signatures may arrive split over tiny chunks: wait for 4 bytes first.
      head = Buffer.concat([head, chunk]);
      if (head.length < 4) continue;
      chunk = start(head, file, facts);
      head = null;
    }
    const body = take(chunk);
    if (body.length > 0) yield body;
  }
  if (head !== null && head.length > 0) {
    const body = take(start(head, file, facts));
    if (body.length > 0) yield body;
  }
  if (carry.length > 0) throw notUtf8(file, line, carry[0] ?? 0, sample);
}

function toBuffer(piece: Chunk): Buffer {
  if (typeof piece === 'string') return Buffer.from(piece, 'utf8');
  return Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
}

// Refuses the encodings and containers people most often feed a "CSV" tool by mistake, then drops the BOM.
function start(head: Buffer, file: string, facts: ByteFacts): Buffer {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    throw inputError(file, 1, 'looks like UTF-16 text; convert it with iconv -f utf-16 -t utf-8', 'bad_encoding');
  }
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    throw inputError(file, 1, 'looks like a ZIP archive or Excel workbook, not text; save it as CSV', 'binary_input');
  }
  facts.bom = UTF8_BOM.every((b, i) => head[i] === b);
  return facts.bom ? head.subarray(3) : head;
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

// Latin-1 text is mostly printable with the odd high byte; binary data is full of control bytes.
function notUtf8(file: string, line: number, byte: number, sample: Buffer): InputError {
  let controls = 0;
  for (const b of sample) if ((b < 0x20 && b !== 9 && b !== 10 && b !== 12 && b !== 13) || b === 0x7f) controls++;
  if (controls > sample.length / 10) {
    return inputError(file, line, 'looks like a binary file, not text (it is not valid UTF-8)', 'binary_input');
  }
  const hex = byte.toString(16).toUpperCase().padStart(2, '0');
  return inputError(file, line, `not valid UTF-8 (byte 0x${hex}); if it is Latin-1, convert it with iconv -f latin1 -t utf-8`, 'bad_encoding');
}
