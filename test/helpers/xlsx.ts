// Looking inside an .xlsx as the bytes it is: a ZIP's entries read through its central directory (so
// entries written with data descriptors, as exceljs writes them, are found too) and inflated with node:zlib.
import { readFile } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';

/** The named entries of a ZIP file, as text. */
async function zipEntries(file: string): Promise<Map<string, string>> {
  return entriesOf(await readFile(file), file);
}

/** The named entries of a ZIP's bytes, as text, in the order its central directory lists them. */
export function entriesOf(zip: Buffer, name = 'the ZIP'): Map<string, string> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1) throw new Error(`${name}: not a ZIP file`);
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

/** A ZIP file of stored (uncompressed) entries: for workbooks that are not, or not quite, workbooks. */
export function storedZip(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const body = Buffer.from(text);
    const nameBytes = Buffer.from(name);
    const crc = crc32(body);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(body.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(body.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, body);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
