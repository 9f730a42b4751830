// What every output target offers the run (stdout, a file replaced atomically, a device or pipe written
// straight through), and how a failure to write one reads.
import type { Writable } from 'node:stream';
import { OutputError, UsageError } from '../api/errors.js';

export interface OutputTarget {
  stream: Writable;
  /**
   * 'file': a regular file, written under a temporary name and renamed into place, so it can be kept as it
   * was; 'stdout'; 'through': a device, FIFO, socket or inherited descriptor, written as the rows come.
   */
  readonly kind: 'stdout' | 'file' | 'through';
  /** Whether a file stood at the target when it was opened ("unchanged" or "not written"). */
  readonly existed: boolean;
  /**
   * Makes the output final. A file is flushed, fsynced and renamed over the target, and a FILE.partial an
   * earlier incomplete run left is removed; anything else is flushed.
   */
  commit(): Promise<void>;
  /**
   * The output of an incomplete run. A file's target stays as it was and the rows go to FILE.partial
   * (renamed into place, so atomically too); returns that name as the user should read it. Anything else
   * cannot take back what went through: it is flushed as by commit, and null returned.
   */
  keepPartial(): Promise<string | null>;
  /** Gives up: a file's temporary file is removed and the target left as it was; anything else is flushed. */
  abort(): Promise<void>;
  /** The first write failure as the user is told of it, or null while writing works. */
  failure(): OutputError | null;
}

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is too large for the filesystem',
  EROFS: 'read-only filesystem',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'input/output error',
  EPIPE: 'its reader went away',
  ECONNRESET: 'its reader went away',
  ENXIO: 'nothing is listening on it',
  ECONNREFUSED: 'nothing is listening on it',
};

/** A path the user gave that cannot be an output at all: usage, exit 2. */
const BAD_PATH: Record<string, string> = {
  ENOENT: 'the directory does not exist',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  ELOOP: 'too many symbolic links',
  EBADF: 'no such open descriptor',
};

/** Why `err` happened, in words, and the error's own message when it has no code we know. */
function reasonOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  return REASONS[code] ?? BAD_PATH[code] ?? (err instanceof Error ? err.message : String(err));
}

/**
 * A failure opening the target: a path that cannot be one is a usage error (exit 2); anything the machine
 * refused (permission, read-only, disk full) is an output error (exit 10).
 */
export function openError(target: string, err: unknown): UsageError | OutputError {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  if (code in BAD_PATH) return new UsageError(`cannot write ${target}: ${BAD_PATH[code]}`, 'output');
  return new OutputError(`${reasonOf(err)} writing ${target}`, target);
}

/**
 * A failure while writing, flushing or renaming (exit 10), worded "no space left on device writing FILE";
 * `after` says what became of the user's file (e.g. "; FILE is unchanged").
 */
export function writeError(target: string, err: unknown, after = ''): OutputError {
  if (err instanceof OutputError) return err;
  return new OutputError(`${reasonOf(err)} writing ${target}${after}`, target);
}
