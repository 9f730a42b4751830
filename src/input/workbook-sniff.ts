// Whether an input is an .xlsx workbook: by its name, or by the ZIP signature its first bytes carry (a
// workbook piped in, or saved without its extension). What is read to tell is put back in front of the rest.
//
// Any ZIP is taken for a workbook: an .xlsx is one, and the spreadsheet reader says plainly when a ZIP holds
// no workbook. read.ts keeps its refusal for the binary input nobody reads (an .xls, an .ods's ZIP is taken
// here and refused by the reader as not a workbook).
import { Readable } from 'node:stream';

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** True when `file` is named as a workbook (.xlsx, or Excel's macro-enabled .xlsm, the same format). */
export function isWorkbookName(file: string | undefined): boolean {
  return file !== undefined && /\.xls[xm]$/i.test(file);
}

/** Looks at the first bytes of `source` and puts them back (unshift): the stream returned reads from the very start. */
export async function sniffWorkbook(source: NodeJS.ReadableStream, fileName: string): Promise<{ workbook: boolean; stream: NodeJS.ReadableStream }> {
  if (isWorkbookName(fileName)) return { workbook: true, stream: source };
  const readable = source as Readable;
  const head = await firstBytes(readable, ZIP_SIGNATURE.length);
  const workbook = head.length >= ZIP_SIGNATURE.length && head.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE);
  // An input shorter than a signature has ended by now, and a stream takes nothing back after its end: its
  // bytes are handed on in a stream of their own.
  if (readable.readableEnded) return { workbook, stream: Readable.from(head.length > 0 ? [head] : []) };
  if (head.length > 0) readable.unshift(head);
  return { workbook, stream: readable };
}

/** At least `n` bytes from the start of `readable` (fewer at its end), taken off it. A failure is left for the reader to meet. */
async function firstBytes(readable: Readable, n: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  while (length < n && !readable.readableEnded && !readable.destroyed) {
    const chunk = readable.read() as Buffer | string | null;
    if (chunk === null) {
      const more = await new Promise<boolean>((resolve) => {
        const settle = (value: boolean): void => {
          readable.off('readable', onReadable);
          readable.off('end', onEnd);
          readable.off('error', onEnd);
          readable.off('close', onEnd);
          resolve(value);
        };
        const onReadable = (): void => settle(true);
        const onEnd = (): void => settle(false);
        readable.on('readable', onReadable);
        readable.once('end', onEnd);
        readable.once('error', onEnd);
        readable.once('close', onEnd);
      });
      if (!more) break;
      continue;
    }
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    parts.push(buf);
    length += buf.length;
  }
  return Buffer.concat(parts);
}
