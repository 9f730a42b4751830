// The loop of exceljs 4.4's streaming WorkbookReader over a workbook's ZIP entries, run over Node's own async
// iterator instead of exceljs's `iterateStream`.
//
// Why: unzipper 0.10's Parse emits 'end' itself as soon as its writable side finishes, while entries it has
// already parsed can still wait in its readable buffer (exceljs pauses it while a sheet is read, or copied to
// a temporary file). exceljs's `iterateStream` believes that 'end' and stops: the entries after are dropped
// with no error. Seen here: a second sheet missing, the shared strings missing (every text cell then reads
// wrong) or the workbook's parts missing (a crash, "Cannot read properties of undefined (reading 'sheets')",
// exceljs#3064, open). Node's iterator reads what is buffered before it takes an end, so nothing is dropped.
// test/input/workbook-entries.test.ts plays the order of entries and the slow reader that lose a sheet.
//
// What stays exceljs's: the parsing of each part, through its reader's own methods (stable in 4.4.0, which
// package.json pins exactly). A sheet stored before the parts it needs (the shared strings, the workbook's
// list of parts) is kept in a temporary file until the end of the ZIP, as exceljs does, and removed after.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import unzipper from 'unzipper';

/** A ZIP entry as unzipper's Parse gives it. */
interface Entry extends Readable {
  path: string;
  autodrain(): unknown;
}

/** What exceljs's parse loop yields: a sheet ('worksheet'), the shared strings or a sheet's hyperlinks when emitted. */
interface ReaderEvent {
  eventType: string;
  value: unknown;
}

/** The parts of exceljs's WorkbookReader its parse loop uses (exceljs 4.4.0, lib/stream/xlsx/workbook-reader.js). */
interface ReaderInternals {
  input: unknown;
  stream?: Readable;
  sharedStrings?: unknown;
  workbookRels?: unknown;
  _getStream(input: unknown): Readable;
  _parseRels(entry: Entry): Promise<void>;
  _parseWorkbook(entry: Entry): Promise<void>;
  _parseSharedStrings(entry: Entry): AsyncGenerator<ReaderEvent>;
  _parseStyles(entry: Entry): Promise<void>;
  _parseWorksheet(chunks: AsyncIterable<Buffer>, sheetNo: string): Generator<ReaderEvent>;
  _parseHyperlinks(chunks: AsyncIterable<Buffer>, sheetNo: string): Generator<ReaderEvent>;
  parse(): AsyncGenerator<ReaderEvent>;
}

const SHEET = /^xl\/worksheets\/sheet(\d+)\.xml$/;
const SHEET_LINKS = /^xl\/worksheets\/_rels\/sheet(\d+)\.xml\.rels$/;

/** Makes `reader` (an exceljs stream WorkbookReader) read its entries with the loop below; returns it. */
export function readEntriesInFull<T extends object>(reader: T): T {
  const internals = reader as unknown as ReaderInternals;
  internals.parse = () => parseEntries(internals);
  return reader;
}

async function* parseEntries(reader: ReaderInternals): AsyncGenerator<ReaderEvent> {
  const stream = reader._getStream(reader.input);
  reader.stream = stream;
  const zip = unzipper.Parse({ forceStream: true });
  // A ZIP cut short mid-entry: unzipper emits FILE_ENDED on the Parse stream, but the entry being read (or one
  // still buffered, handed over after the error) never ends nor fails, and the run waited forever (Node then
  // exits 13 with nothing said: a trial's workbook cut to 1,000 bytes). The entry is failed with the error.
  let failed: Error | null = null;
  let current: Entry | null = null;
  zip.on('error', (err: Error) => {
    failed ??= err;
    // Its reader, if one is reading it, gets the error; an entry nobody listens to any more (drained, or piped
    // to its end) must not throw it as an uncaught exception.
    current?.on('error', () => undefined).destroy(err);
  });
  stream.pipe(zip);
  // Sheets met before the parts they need, kept on disk until the end of the ZIP.
  const waiting: { sheetNo: string; path: string }[] = [];
  let dir: string | undefined;
  try {
    for await (const item of zip) {
      const entry = item as Entry;
      if (failed !== null) throw failed;
      current = entry;
      const sheet = SHEET.exec(entry.path)?.[1];
      const links = SHEET_LINKS.exec(entry.path)?.[1];
      if (entry.path === 'xl/_rels/workbook.xml.rels') await reader._parseRels(entry);
      else if (entry.path === 'xl/workbook.xml') await reader._parseWorkbook(entry);
      else if (entry.path === 'xl/sharedStrings.xml') yield* reader._parseSharedStrings(entry);
      else if (entry.path === 'xl/styles.xml') await reader._parseStyles(entry);
      else if (sheet !== undefined && reader.sharedStrings && reader.workbookRels) yield* reader._parseWorksheet(entry, sheet);
      else if (sheet !== undefined) {
        dir ??= await mkdtemp(join(tmpdir(), 'domain-intel-sheet-'));
        const path = join(dir, `sheet${sheet}.xml`);
        await pipeline(entry, createWriteStream(path));
        waiting.push({ sheetNo: sheet, path });
      } else if (links !== undefined) yield* reader._parseHyperlinks(entry, links);
      entry.autodrain();
      current = null;
    }
    if (failed !== null) throw failed;
    for (const { sheetNo, path } of waiting) {
      yield* reader._parseWorksheet(createReadStream(path), sheetNo);
      await rm(path, { force: true });
    }
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}
