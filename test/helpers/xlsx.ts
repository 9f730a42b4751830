// Looking inside an .xlsx as the bytes it is: a ZIP's entries read through its central directory (so
// entries written with data descriptors, as exceljs writes them, are found too) and inflated with node:zlib.
import { readFile } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';

/** The named entries of a ZIP file, as text. */
async function zipEntries(file: string): Promise<Map<string, string>> {
  const zip = await readFile(file);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1) throw new Error(`${file}: not a ZIP file`);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const body = zip.subarray(start, start + size);
    entries.set(name, (method === 8 ? inflateRawSync(body) : body).toString('utf8'));
    at += 46 + skip;
  }
  return entries;
}

/** The XML of every worksheet of an .xlsx, joined. */
export async function sheetXml(file: string): Promise<string> {
  const entries = await zipEntries(file);
  const sheets = [...entries].filter(([name]) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name));
  if (sheets.length === 0) throw new Error(`${file}: no worksheet`);
  return sheets.map(([, xml]) => xml).join('\n');
}
