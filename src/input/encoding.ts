// The input's encoding (issue 15): every input is turned into UTF-8 bytes before lines and rows are found, so
// the reader, csv-parse and the line bookkeeping work on one encoding, and the output is UTF-8 whatever came in.
// Decoding is streaming (TextDecoder `stream: true`, Node's full ICU): a chunk at a time, a character cut at a
// chunk's end carried to the next, so memory stays at one chunk.
//
// Choices, where the issue left them open:
// - UTF-16 is known by its byte-order mark; without one it is refused (its NUL bytes look binary), with the
//   exact --encoding to pass when every other byte is NUL.
// - Bytes that are not UTF-8 are read as Windows-1252 (what Excel's "CSV" saves on Windows in Western locales,
//   the commonest source by far) when that cannot change anything already read and the bytes look like it:
//   every byte before the first bad one was ASCII (which reads the same in both), and the high bytes are
//   letters between ASCII ones, not runs of them (Cyrillic, Greek, CJK in a legacy encoding come in runs and
//   would be decoded into wrong letters and wrong host names) nor the five bytes Windows-1252 leaves
//   undefined. Otherwise the input is refused on the line of the first bad byte, naming --encoding. A file
//   that mixes UTF-8 with other bytes is refused too: no one decoding reads both halves right. The run says
//   once that it decoded the input as Windows-1252 (the shape's `guessedAt`), so a wrong guess is seen.
// - `latin1` is ISO-8859-1 proper (0x80-0x9F are C1 controls), not the WHATWG label, which means Windows-1252.

import type { Encoding } from '../domain/input-forms.js';

/** Turns a chunk of input bytes into UTF-8 bytes; `end` flushes a character left unfinished. */
export type Transcoder = (chunk: Buffer, end: boolean) => Buffer;

const NAMES: Record<Encoding, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
  'windows-1252': 'Windows-1252',
  latin1: 'Latin-1',
};

/** The name people know an encoding by ('Windows-1252'). */
export function encodingName(encoding: Encoding): string {
  return NAMES[encoding];
}

/** The encoding a byte-order mark at the start of `head` announces, and its length; null without one. */
export function bomOf(head: Buffer): { encoding: Encoding; length: number } | null {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

/**
 * A streaming transcoder to UTF-8 for an encoding other than UTF-8. `broken` makes the error for UTF-16 that
 * holds a broken character (an unpaired surrogate, an odd last byte): the caller knows the line.
 */
export function transcoder(encoding: Exclude<Encoding, 'utf-8'>, broken: (what: string) => Error): Transcoder {
  if (encoding === 'latin1') return (chunk) => Buffer.from(chunk.toString('latin1'), 'utf8');
  // Node 20's TextDecoder reads 'windows-1252' as Latin-1 (0x93 as U+0093, not “): the 32 bytes where the two
  // differ are mapped here, the rest is Latin-1. Single bytes: nothing to carry between chunks.
  if (encoding === 'windows-1252')
    return (chunk) =>
      Buffer.from(
        chunk.toString('latin1').replace(C1, (c) => CP1252[c.charCodeAt(0) - 0x80]!),
        'utf8',
      );
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  return (chunk, end) => {
    try {
      return Buffer.from(decoder.decode(chunk, { stream: !end }), 'utf8');
    } catch {
      throw broken(`not valid ${encodingName(encoding)} (a broken character); check --encoding`);
    }
  };
}

const C1 = /[\u0080-\u009f]/g;
// Windows-1252's 0x80-0x9F (the WHATWG table; the five it leaves undefined stay C1 controls, as there).
const CP1252 = [...'€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ'];

// Bytes Windows-1252 does not define: text in it never holds them.
const UNDEFINED_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/**
 * Whether bytes that are not UTF-8 may be read as Windows-1252 (see the choices above): nothing read before
 * them was anything but ASCII, and `bytes` (the chunk they are in) looks like Western European text.
 */
export function looks1252(asciiBefore: boolean, bytes: Buffer): boolean {
  if (!asciiBefore) return false;
  let high = 0;
  let inRuns = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) continue;
    if (UNDEFINED_1252.has(b)) return false;
    high++;
    if (i > 0 && bytes[i - 1]! >= 0x80) inRuns++;
  }
  // "Größe" has a pair; a Cyrillic word is all pairs. Half the high bytes following another is a language
  // written in high bytes, not accents on a Latin one.
  return inRuns * 2 <= high;
}

/** 'utf-16le' or 'utf-16be' when NUL bytes sit at every other place of `sample` (UTF-16 without its BOM). */
export function utf16Without(sample: Buffer): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(sample.length, 512) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (sample[i] === 0) even++;
    if (sample[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (odd > half * 0.6 && even < half * 0.1) return 'utf-16le';
  if (even > half * 0.6 && odd < half * 0.1) return 'utf-16be';
  return null;
}
