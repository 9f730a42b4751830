// Where output goes. A file is written under a temporary name in the same directory and renamed over
// the target only on commit, so a crash, Ctrl-C or failed run never leaves a half-written target (and an
// existing one survives untouched). Same directory, because rename is atomic only within one filesystem.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { UsageError } from '../api/errors.js';
import { alive } from '../store/paths.js';

export interface OutputTarget {
  stream: Writable;
  /** Makes the output final: flushes, and for a file fsyncs and renames it over the target. */
  commit(): Promise<void>;
  /** Gives up: for a file, removes the temporary file and leaves any existing target as it was. */
  abort(): Promise<void>;
}

/** Opens stdout ('-' or no target) or an atomically replaced file for writing. */
export async function openOutput(target: string | undefined, stdout: Writable): Promise<OutputTarget> {
  if (target === undefined || target === '-') return stdoutTarget(stdout);
  return fileTarget(target);
}

function stdoutTarget(stdout: Writable): OutputTarget {
  // stdout is shared with the rest of the process: never ended or closed here, only drained.
  const drained = (): Promise<void> =>
    stdout.writableNeedDrain && !stdout.destroyed
      ? new Promise((ok) => {
          const done = (): void => {
            stdout.off('drain', done);
            stdout.off('close', done);
            stdout.off('error', done);
            ok();
          };
          stdout.on('drain', done).on('close', done).on('error', done);
        })
      : Promise.resolve();
  return { stream: stdout, commit: drained, abort: async () => {} };
}

async function fileTarget(target: string): Promise<OutputTarget> {
  const path = resolve(target);
  const existingMode = await modeOf(path, target);
  await removeStaleTemps(path);
  // The host name and pid in the name let a later run tell a dead run's leftovers from a live run's file.
  const temp = join(dirname(path), `.${basename(path)}.${tempTag()}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    // Replacing a file must not widen who can read it (e.g. a 0600 export).
    if (existingMode !== null) await chmod(temp, existingMode);
  } catch (err) {
    throw cannotWrite(target, err);
  }
  // The stream owns and closes the handle (a FileHandle cannot be closed while a stream holds it); the
  // data is made durable afterwards through a second descriptor, since fsync works on the file itself.
  const stream = handle.createWriteStream();
  let failure: unknown = null;
  stream.on('error', (err) => (failure ??= err));
  let state: 'open' | 'committed' | 'aborted' = 'open';
  const closed = new Promise<void>((ok) => stream.once('close', () => ok()));

  const abort = async (): Promise<void> => {
    if (state !== 'open') return;
    state = 'aborted';
    stream.destroy();
    await closed;
    await unlink(temp).catch(() => {});
  };

  const commit = async (): Promise<void> => {
    if (state !== 'open') throw new Error(`output ${target} was already ${state}`);
    try {
      if (failure) throw failure;
      await new Promise<void>((ok, fail) => {
        stream.once('error', fail);
        stream.end(() => ok());
      });
      await closed;
      if (failure) throw failure;
      const again = await open(temp, 'r');
      await again.sync().finally(() => again.close());
      await rename(temp, path);
      state = 'committed';
    } catch (err) {
      await abort();
      throw cannotWrite(target, err);
    }
    await syncDirectory(dirname(path));
  };

  return { stream, commit, abort };
}

/** This machine's name, made safe for a file name. */
function tempTag(): string {
  return hostname().replace(/[^A-Za-z0-9-]/g, '_') || 'host';
}

/**
 * Temp files left by a run that was killed (kill -9, power loss) are removed once their process is gone.
 * Only this machine's: on a shared network folder another machine's pid cannot be checked from here.
 */
async function removeStaleTemps(path: string): Promise<void> {
  const escapeRegex = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^\\.${escapeRegex(basename(path))}\\.${escapeRegex(tempTag())}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`);
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    await unlink(join(dirname(path), name)).catch(() => {});
  }
}

async function modeOf(path: string, target: string): Promise<number | null> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new UsageError(`cannot write ${target}: it is a directory`, 'output');
    return st.mode & 0o777;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cannotWrite(target, err);
  }
}

// Makes the rename itself durable; not every platform or filesystem allows fsync on a directory.
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => {});
  await handle.close().catch(() => {});
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'the directory does not exist',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EROFS: 'the filesystem is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};

function cannotWrite(target: string, err: unknown): UsageError {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  const reason = REASONS[code] ?? (err instanceof Error ? err.message : String(err));
  return new UsageError(`cannot write ${target}: ${reason}`, 'output');
}
