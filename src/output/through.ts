// Targets written straight through: stdout, an inherited descriptor (/dev/stdout, /dev/fd/N,
// /proc/self/fd/N, a shell's process substitution), and a device, FIFO or socket named by its path. None
// of them can be replaced atomically (there is no file to rename over, and a rename would put a regular file
// where the device or pipe was, so its reader would never see the data): rows go out as they come, and
// what went through cannot be taken back.
import { fstatSync, createWriteStream } from 'node:fs';
import { constants, type FileHandle, open } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError } from '../api/errors.js';
import type { Writable } from 'node:stream';
import { openError, type OutputTarget, writeError } from './target.js';

/**
 * The descriptor of this process a path names, or null: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N, /proc/thread-self/fd/N and /proc/<our pid>/fd/N. Written to as the descriptor itself,
 * as a shell's redirection would: opening the path again would, on Linux, open a new file description
 * (losing an append mode or an offset, and failing outright for a socket).
 */
export function descriptorOf(path: string): number | null {
  const named = { '/dev/stdin': 0, '/dev/stdout': 1, '/dev/stderr': 2 }[path];
  if (named !== undefined) return named;
  const m = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))\/fd)\/(\d+)$/.exec(path);
  if (!m || (m[1] !== undefined && Number(m[1]) !== process.pid)) return null;
  return Number(m[2]);
}

/** Awaits the end of a stream we end: resolved when flushed (and closed, if it closes), rejected on its error. */
function ended(stream: Writable): Promise<void> {
  if (stream.writableFinished || stream.destroyed) return Promise.resolve();
  return new Promise((ok, fail) => {
    stream.once('error', fail);
    stream.end(() => ok());
  });
}

/**
 * Streams that failed or closed: they emit neither 'drain' nor 'close' again. stdout whose reader went away
 * (`batch big.csv | head -3`) is neither `destroyed` nor `errored` after its 'error' (EPIPE) and 'close', and
 * still needs a drain when the failed write was queued behind another: waiting for one left the run's promise
 * unsettled, and Node exited 13 with nothing said (how the row writer's byte buffer, faster at filling the pipe
 * before the EPIPE came back, made `| head -3` exit 13 in 4 to 7 of 10 runs).
 */
const gone = new WeakSet<Writable>();

/** Waits until `stream` has taken what it buffered, without ending it. */
function drained(stream: Writable): Promise<void> {
  if (!stream.writableNeedDrain || stream.destroyed || gone.has(stream)) return Promise.resolve();
  return new Promise((ok) => {
    const done = (): void => {
      stream.off('drain', done).off('close', done).off('error', done);
      ok();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

/** Shared by every straight-through target: records the first failure, and ends (or only drains) once. */
function through(target: string, stream: Writable, kind: 'stdout' | 'through', finish: () => Promise<void>): OutputTarget {
  let failed: unknown = null;
  const over = (): void => void gone.add(stream);
  stream.once('close', over).on('error', over);
  // stdout's failures are the process's (a closed pipe stops the run quietly, cli/stops.ts): not ours to report.
  if (kind === 'through') stream.on('error', (err) => (failed ??= err));
  let done: Promise<void> | null = null;
  const end = async (): Promise<void> => {
    done ??= finish();
    await done;
  };
  const commit = async (): Promise<void> => {
    try {
      await end();
    } catch (err) {
      if (kind === 'through') failed ??= err;
    }
    if (failed) throw writeError(target, failed);
  };
  return {
    stream,
    kind,
    existed: false,
    commit,
    keepPartial: async () => {
      await commit();
      return null;
    },
    // Giving up still flushes: the reader gets the rows already written, and an end of file.
    abort: () => end().catch(() => {}),
    failure: () => {
      // A stream is destroyed first and says why a tick later: its `errored` has the cause meanwhile (as in file.ts).
      const cause = failed ?? (kind === 'through' ? stream.errored : null);
      return cause ? writeError(target, cause) : null;
    },
  };
}

/** stdout ('-', no -o, or a path naming descriptor 1): shared with the rest of the process, so never ended, only drained. */
export function stdoutTarget(stdout: Writable): OutputTarget {
  return through('stdout', stdout, 'stdout', () => drained(stdout));
}

/**
 * A descriptor this process holds (not 1, which is stdout): written through and left open, since it is
 * not ours to close (the shell, or the program that passed it, closes it; for a process substitution the
 * reader sees its end when this process exits).
 */
export function descriptorTarget(target: string, fd: number): OutputTarget {
  try {
    fstatSync(fd);
  } catch (err) {
    throw openError(target, err);
  }
  const stream = createWriteStream('', { fd, autoClose: false });
  return through(target, stream, 'through', () => ended(stream));
}

/** How long a FIFO without a reader is looked at again. */
const READER_POLL_MS = 100;

/** What opening a FIFO that has no reader yet is told: the abort to heed, and whom to tell it waits. */
export interface WaitOptions {
  signal?: AbortSignal | undefined;
  /** Called once, when the FIFO has no reader yet: the run waits for one (a shell's `> fifo` does too). */
  onWait?: ((what: string) => void) | undefined;
}

/**
 * Waits until the FIFO at `path` has a reader. Not by a blocking open: that holds a libuv worker thread in
 * the kernel, where neither Ctrl-C nor SIGTERM (nor process.exit, which waits for the worker) can end it;
 * a non-blocking open answers ENXIO at once while there is no reader, so it is tried again until one comes.
 */
async function readerOf(target: string, path: string, o: WaitOptions): Promise<FileHandle> {
  for (let told = false; ; told = true) {
    if (o.signal?.aborted) throw new AbortedError('interrupted while waiting for a reader');
    try {
      // Kept open until the real (blocking) descriptor is: closing the FIFO's only writer would hand the
      // reader an end of file before a row was written.
      return await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw openError(target, err);
    }
    if (!told) o.onWait?.(`waiting for a reader on ${target} (Ctrl-C stops)`);
    await sleep(READER_POLL_MS, undefined, o.signal ? { signal: o.signal } : undefined).catch(() => {});
  }
}

/**
 * A device or FIFO named by its path: opened for writing without O_CREAT (so if it vanished meanwhile,
 * nothing is created in its place) and without O_TRUNC (meaningless for either). A FIFO is opened once it
 * has a reader (readerOf), as a shell's `> fifo` waits for one.
 */
export async function deviceTarget(target: string, path: string, fifo: boolean, wait: WaitOptions = {}): Promise<OutputTarget> {
  const probe = fifo ? await readerOf(target, path, wait) : null;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_WRONLY);
  } catch (err) {
    throw openError(target, err);
  } finally {
    await probe?.close();
  }
  const stream = handle.createWriteStream();
  return through(target, stream, 'through', async () => {
    await ended(stream);
    if (!stream.closed) await new Promise<void>((ok) => stream.once('close', () => ok()));
  });
}

/** A Unix socket named by its path (open() cannot write one): connected to, written, and ended. */
export async function socketTarget(target: string, path: string): Promise<OutputTarget> {
  const socket = createConnection({ path });
  try {
    await new Promise<void>((ok, fail) => {
      socket.once('connect', ok).once('error', fail);
    });
  } catch (err) {
    socket.destroy();
    throw openError(target, err);
  }
  return through(target, socket, 'through', () => ended(socket));
}
