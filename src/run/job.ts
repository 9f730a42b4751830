// A whole job as a library call: read an input stream, enrich it, write the rows to an output stream.
// The CLI wraps this with files, progress and exit codes; other programs can call it directly.
import type { Writable } from 'node:stream';
import { EmptyInputError, InputError, InvalidKeyError, UsageError } from '../api/errors.js';
import { StoreUnavailableError } from '../store/errors.js';
import { requireRows } from './empty.js';
import { type OpenInputOptions, openInput } from '../input/read.js';
import type { XlsxInputOptions } from '../input/workbook.js';
import { enrich, type EnrichOptions, type RecordSource } from './enrich.js';
import type { RunStats } from './stats.js';
import type { InputRecord, InputShape, RunKind } from '../domain/types.js';
import { createRowWriter, type RowWriterOptions } from '../output/write.js';
import { sniffWorkbook } from '../input/workbook-sniff.js';

/**
 * What a job reads: the text reader's options (input/read.ts) and the workbook reader's sheet (input/workbook.ts),
 * passed on as given (an option left out, or undefined, is one the reader decides).
 */
export interface JobInput extends OpenInputOptions, Pick<XlsxInputOptions, 'sheet'> {
  /** An input stream (file or stdin), or records already in hand (e.g. hosts from the command line). */
  stream?: NodeJS.ReadableStream;
  records?: InputRecord[];
  /**
   * Refuse an input without a data row (EmptyInputError) before anything is read on or written (empty.ts); a
   * function is asked once the input is found empty (false: run it, as when a stop ended the read).
   */
  refuseEmpty?: boolean | (() => boolean);
}

/**
 * Where and how a job writes: the writers' options (output/write.ts), less what the run itself knows. `changes`
 * appends the --changes columns: pass `changes` to the run too, or they stay empty.
 */
export interface JobOutput extends Omit<RowWriterOptions, 'format' | 'kind' | 'shape'> {
  stream: Writable;
  format: RowWriterOptions['format'] | 'xlsx';
}

export interface JobResult {
  shape: InputShape;
  stats: RunStats;
}

/** Opens the input, whatever it is, as a shape and a stream of records. */
export async function openJobInput(input: JobInput): Promise<{ shape: InputShape; records: RecordSource }> {
  let opened: Awaited<ReturnType<typeof openAny>>;
  try {
    opened = await openAny(input);
  } catch (err) {
    // Refused before its records were read (no host column, --sheet on text...): the input is let go, or its
    // file stays open until garbage collection closes it, which Node warns of on stderr (and will refuse).
    (input.stream as { destroy?: () => void } | undefined)?.destroy?.();
    throw err;
  }
  const refuse = input.refuseEmpty;
  if (refuse === undefined || refuse === false) return opened;
  return { shape: opened.shape, records: await requireRows(opened.records, opened.shape, input.fileName, refuse === true ? () => true : refuse) };
}

/** The input's shape and records, whatever it is: records in hand, a workbook, or text. */
async function openAny(input: JobInput): Promise<{ shape: InputShape; records: RecordSource }> {
  if (input.records) return { shape: { format: 'lines', headers: null, hostColumn: 0 }, records: input.records };
  if (!input.stream) throw new TypeError('a job needs an input stream or records');
  // A workbook goes to the spreadsheet reader (loaded only then); read.ts refuses what neither takes.
  const { workbook, stream } = await sniffWorkbook(input.stream, input.fileName);
  if (workbook) return openWorkbook(input, stream);
  if (input.sheet !== undefined) throw new UsageError(`${input.fileName}: --sheet applies to an .xlsx workbook; this input is text`);
  const opened = await openInput(stream, input);
  return { shape: opened.shape, records: opened.chunks ?? opened.records };
}

/** A workbook through the spreadsheet reader, loaded only now; the options of text input are refused. */
async function openWorkbook(input: JobInput, stream: NodeJS.ReadableStream): Promise<{ shape: InputShape; records: RecordSource }> {
  const given = [
    input.format !== undefined && input.format !== 'auto' ? '--input-format' : null,
    input.delimiter === undefined ? null : '--delimiter',
    input.encoding === undefined ? null : '--encoding',
  ].filter((flag) => flag !== null);
  if (given.length > 0)
    throw new UsageError(`${input.fileName}: is an .xlsx workbook; ${given.join(' and ')} ${given.length === 1 ? 'applies' : 'apply'} only to text input`);
  const { openXlsxInput } = await import('../input/workbook.js');
  const opened = await openXlsxInput(stream, input);
  return { shape: opened.shape, records: opened.records };
}

/** Runs a job to the end (or until stopped); output rows are in input order. */
export async function runJob<K extends RunKind>(input: JobInput, output: JobOutput | null, options: EnrichOptions<K>): Promise<JobResult> {
  const { shape, records } = await openJobInput(input);
  const run = enrich(records, options);
  if (options.dryRun || output === null) {
    for await (const _ of run.batches()) {
      // dry runs yield nothing; without an output the rows are only counted
    }
    return { shape, stats: run.stats };
  }
  const { stream, format, ...given } = output;
  const writerOptions = { ...given, kind: options.kind, shape };
  // The spreadsheet writer (and exceljs) loads only when a run writes xlsx.
  const writer =
    format === 'xlsx' ? (await import('../output/workbook.js')).createXlsxWriter(stream, writerOptions) : createRowWriter(stream, { ...writerOptions, format });
  try {
    for await (const batch of run.batches()) {
      if (writer.writeBatch !== undefined) await writer.writeBatch(batch);
      else for (const row of batch) await writer.write(row);
    }
  } catch (err) {
    if (closesDocument(err)) await writer.end();
    throw err;
  }
  await writer.end();
  return { shape, stats: run.stats };
}

/**
 * Whether a run that failed with `err` still closes its document, so the rows written can be kept whole (the
 * CLI keeps them in FILE.partial). An input that fails mid-file (an unclosed quote, bytes in another encoding at
 * line 3001): every row before it is written, answers paid for included. A key that is missing, malformed or
 * refused: the rows the cache answered without one (or answered before a refusal) are kept, the rest say they
 * were not looked up. A shared store lost mid-run: the rows answered so far, paid answers included, the rest
 * not looked up. Any other failure leaves the document as it was.
 */
export function closesDocument(err: unknown): boolean {
  // An empty input is refused before the document is opened: there is nothing to keep.
  return (err instanceof InputError && !(err instanceof EmptyInputError)) || err instanceof InvalidKeyError || err instanceof StoreUnavailableError;
}
