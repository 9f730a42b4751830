// What a pipeline run from the CLI reads and keeps: the input file opened up front (a file that cannot be read
// is a usage error naming it, before anything is spent), and the store the run keeps its answers in.
import { createReadStream, fstat, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';
import { InputError, UsageError } from '../../api/errors.js';
import type { AnswerStore } from '../../store/contract.js';
import type { Delimiter, Encoding } from '../../domain/input-forms.js';
import { inputNotes } from '../../input/dialect.js';
import { columnChoice } from '../../input/host-column.js';
import { bomOf } from '../../input/encoding.js';
import { ourColumnLists } from '../../input/own-columns.js';
import { CHANGE_COLUMNS } from '../../domain/row-change.js';
import type { JobInput } from '../../run/job.js';
import type { InputFormat } from '../../input/read.js';
import type { InputShape, RunKind } from '../../domain/types.js';
import type { Context } from '../context.js';
import { isWorkbookName } from '../../input/workbook-sniff.js';
import { formatByName } from '../output/by-name.js';
import type { EnrichCommand, Opts } from '../options/table.js';
import type { InputMeter } from '../report/progress-figures.js';

/** What a list run enriches: its kind, and a file (or -) or the hosts given as arguments. */
export interface ListSpec {
  kind: RunKind;
  source: { file: string } | { args: string[] };
}

/**
 * The input of a run, as a function that gives its records (called once by the run, once more by a quota check).
 * `meter`, when given, is told the size of an input file (progress's share read).
 */
export async function openSource(ctx: Context<EnrichCommand>, spec: ListSpec, meter?: InputMeter): Promise<() => JobInput> {
  const o = ctx.opts;
  if ('args' in spec.source) {
    const records = spec.source.args.map((value, i) => ({ line: i + 1, cells: [value], value }));
    return () => ({ records, fileName: 'arguments' });
  }
  const file = spec.source.file;
  // An empty export must not replace an enriched file (issue 29): refused unless --allow-empty. A Ctrl-C that
  // ended a terminal's read before its first line is said as an interruption.
  const refuseEmpty = () => o.allowEmpty !== true && !ctx.interrupted.aborted;
  const common = { ...inputReading(o, o.fields ?? []), refuseEmpty };
  // Only CSV out of CSV in may replace its input: why not, when not.
  const notInPlace = isWorkbookName(file)
    ? 'a workbook written back would hold one sheet, and your others would be lost'
    : fileRunFormat(o.format, o.output) === 'csv'
      ? null
      : 'only CSV output may replace its input (yours would become another format)';
  if (file === '-') {
    // `batch - -o in.csv < in.csv` would replace the file stdin reads, as -o naming the input would.
    const fd = (ctx.io.stdin as { fd?: unknown }).fd;
    const piped = typeof fd === 'number' ? await fstatOf(fd) : null;
    if (piped?.isFile()) await refuseSameFile(o.output, piped, notInPlace, async () => {});
    let used = false;
    return () => {
      if (used) throw new UsageError('stdin can be read only once');
      used = true;
      return { stream: stdinInput(ctx), fileName: 'stdin', ...common };
    };
  }
  const { handle, st } = await openInputFile(file);
  await refuseSameFile(o.output, st, notInPlace, () => handle.close());
  let first: FileHandle | null = handle;
  ctx.onClose(async () => {
    await first?.close();
  });
  // A workbook is unzipped whole before its first row: its bytes say nothing of the rows read.
  // The share read counts characters (planner.ts): a UTF-16 file (known by its BOM) has two bytes to each,
  // so its size counts half (a tryout saw it stop at 48%). UTF-8's other characters stay a little under.
  if (meter && !isWorkbookName(file)) meter.total = (await isUtf16(handle)) ? st.size / 2 : st.size;
  // The quota check may read the input once before the run does: the first read takes the open file, a
  // second opens it again.
  return () => {
    const source = first === null ? createReadStream(file) : first.createReadStream();
    first = null;
    return { stream: readingOf(file, source), fileName: file, ...common };
  };
}

/**
 * What the reader found out about an input: rows of another width and an encoding guessed (warnings, once it
 * is read to its end), and the host column taken by rank over others when --column (`column`) named none.
 */
export function noteRead(ctx: Context, column: string | undefined, file: string, shape: InputShape, notes = true): void {
  if (notes) for (const note of inputNotes(shape, file)) ctx.logger.warn(note);
  // Our own output read again (the nightly pattern: shape.earlier names the columns a run appended): its host
  // column was chosen, and said, by the run that wrote it; said again every night it is only noise (a cron job
  // mailed it). batch and changes both read through here, so both keep quiet on it alike.
  const ours = shape.earlier !== undefined && shape.earlier.length > 0;
  const chose = column === undefined && !ours ? columnChoice(shape.headers, shape.hostColumn, file) : null;
  if (chose !== null) ctx.logger.info(chose);
}

/** The input options a command that reads a file takes (batch, traffic, employees, changes). */
interface ReadingOptions {
  column?: string | undefined;
  sheet?: string | undefined;
  inputFormat?: InputFormat | undefined;
  delimiter?: Delimiter | undefined;
  encoding?: Encoding | undefined;
  prefix?: string | undefined;
}

/**
 * How a command reads its input file, as the job takes it: the options given, and the columns an earlier run
 * appended (this file is our own output, as in the nightly pattern), dropped on reading and written afresh.
 * Those are the lists `written` (the columns this command writes, if it writes any) and every kind's
 * defaults, each with or without batch --changes' columns after them (a file kept with --changes may be read
 * without it).
 */
export function inputReading(o: ReadingOptions, written: readonly string[] = []): Omit<JobInput, 'stream' | 'records' | 'fileName'> {
  return {
    ...(o.column === undefined ? {} : { column: o.column }),
    ...(o.sheet === undefined ? {} : { sheet: o.sheet }),
    ...(o.inputFormat === undefined ? {} : { format: o.inputFormat }),
    ...(o.delimiter === undefined ? {} : { delimiter: o.delimiter }),
    ...(o.encoding === undefined ? {} : { encoding: o.encoding }),
    earlier: ourColumnLists(o.prefix ?? '', written, [CHANGE_COLUMNS]),
  };
}

/** The format of a file run's rows: as asked, else as -o's name says (output/by-name.ts), else CSV. */
export function fileRunFormat(requested: Opts<EnrichCommand>['format'], output: string | undefined): 'csv' | 'json' | 'ndjson' | 'xlsx' | 'table' {
  if (requested !== undefined || output === undefined) return requested ?? 'csv';
  return formatByName(output);
}

/**
 * Standard input as a command's input. On a terminal it says it waits for hosts, and Ctrl-C ends the read:
 * a terminal's read never ends by itself, and a command still waiting for its first line would not see the
 * stop (the first Ctrl-C was lost, and the next lines typed were read as hosts). The read ends as at Ctrl-D;
 * the command then sees it was interrupted.
 */
export function stdinInput(ctx: Context): NodeJS.ReadableStream {
  const stdin = ctx.io.stdin;
  if (stdin.isTTY !== true) return stdin;
  ctx.logger.info('reading hosts from the terminal, one a line (Ctrl-D ends the list, Ctrl-C stops)');
  const out = new PassThrough();
  stdin.pipe(out);
  ctx.interrupted.addEventListener(
    'abort',
    () => {
      stdin.unpipe(out);
      stdin.pause();
      out.end();
    },
    { once: true },
  );
  return out;
}

/**
 * Opens an input file before anything is done with it, rather than only looking at it: a file that cannot be
 * read (missing, a directory, no permission) is a usage error naming it, never a failure met mid-run.
 */
export async function openInputFile(file: string): Promise<{ handle: FileHandle; st: Stats }> {
  const handle = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`${file}: ${readFailure(err)}`);
  });
  const st = await handle.stat();
  if (st.isDirectory()) {
    await handle.close();
    throw new UsageError(`${file}: is a directory`);
  }
  return { handle, st };
}

/** What went wrong opening or reading an input file, in words. */
function readFailure(err: NodeJS.ErrnoException): string {
  const words: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'is a directory' };
  return (err.code && words[err.code]) ?? `cannot be read (${err.code ?? err.message})`;
}

/** `source`, with a read error met mid-file (EIO, EISDIR, a file gone) becoming a usage error that names the file. */
export function readingOf(file: string, source: Readable): Readable {
  const out = new PassThrough();
  source.on('error', (err: NodeJS.ErrnoException) => out.destroy(new InputError(`${file}: ${readFailure(err)}`, file, null, 'unreadable_input')));
  // A run that stops reading early (interrupted, refused) closes `out`; pipe() does not pass that upstream, and
  // the file would stay open until garbage collection closed it (Node warns of that, and will throw).
  out.once('close', () => source.destroy());
  return source.pipe(out);
}

/** The store of a run: the user's cache, or under --no-cache a throwaway one (see below). */
export async function openRunStore(ctx: Context): Promise<AnswerStore> {
  const store = await ctx.store();
  if (store) return store;
  // --no-cache: nothing is read from or written to the user's cache, but a run must still remember what it
  // fetched so a duplicate later in the input is not paid for twice; a throwaway cache does that on disk.
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openStore } = await import('../../store/open.js');
  // The run's own TMPDIR (its io.env), which for the process is what tmpdir() reads. Local whatever store the
  // user's answers are in: a throwaway store is no one's to share.
  const tmp = ctx.io.env.TMPDIR || tmpdir();
  const { clearLeftThrowaways, THROWAWAY_PREFIX } = await import('./throwaway.js');
  await clearLeftThrowaways(tmp, Date.now()); // file times are the wall clock's, and so this
  const dir = await mkdtemp(join(tmp, THROWAWAY_PREFIX)).catch((err: NodeJS.ErrnoException) => err);
  const temp = typeof dir === 'string' ? await openStore({ dir, throwaway: true }).catch((err: Error) => err) : dir;
  ctx.onClose(async () => {
    if (!(temp instanceof Error)) await temp.close();
    if (typeof dir === 'string') await rm(dir, { recursive: true, force: true });
  });
  if (!(temp instanceof Error)) return temp;
  // --no-cache is the way out the cache's own errors suggest, so it must not fail on a full or read-only
  // TMPDIR: the run then remembers its answers in memory (about 1 KB per distinct host), and says so.
  const { memoryStore } = await import('../../store/memory.js');
  ctx.logger.warn(`cannot use a temporary cache in ${tmp} (${temp.message}); keeping this run's answers in memory`);
  return memoryStore();
}

/**
 * -o naming the input (or a link to it, or the file stdin reads) is how a list is kept enriched in place (the
 * nightly pattern): allowed for CSV, which keeps every cell of the user's byte for byte and puts ours after
 * them, so nothing of theirs is lost and the next run drops ours and writes them afresh (input/own-columns.ts). The file
 * is replaced only by a complete run, after it was read to its end (output/file.ts renames over it; the input
 * is read from the file as it was). JSON or NDJSON over the input would replace the export with another
 * format: refused.
 */
export async function refuseSameFile(output: string | undefined, input: Stats, why: string | null, close: () => Promise<void>, option = '-o'): Promise<void> {
  const target = output === undefined || output === '-' ? null : await stat(output).catch(() => null);
  if (why !== null && target?.isFile() && target.ino === input.ino && target.dev === input.dev) {
    await close();
    throw new UsageError(`${option} ${output} is the input file: ${why}; write this one to another file`);
  }
}

/** What descriptor `fd` is, or null when it cannot be looked at. */
function fstatOf(fd: number): Promise<Stats | null> {
  return new Promise((resolve) => fstat(fd, (err, st) => resolve(err ? null : st)));
}

/** Whether a file starts with a UTF-16 byte order mark (read at position 0, the handle's own reads untouched). */
async function isUtf16(handle: FileHandle): Promise<boolean> {
  // A file that cannot be read is not UTF-16 here: the run's own read fails on it, naming the file and why.
  const head = await handle.read(Buffer.alloc(3), 0, 3, 0).catch(() => null);
  const bom = head === null ? null : bomOf(head.buffer.subarray(0, head.bytesRead));
  return bom?.encoding === 'utf-16le' || bom?.encoding === 'utf-16be';
}
