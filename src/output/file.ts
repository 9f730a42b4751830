// Where output goes. A regular file is written under a temporary name in the same directory and renamed
// over the target only when the run is complete, so a crash, Ctrl-C or failed run never leaves a half-written
// target, and an existing one survives byte for byte; an incomplete run's rows are renamed to FILE.partial
// instead. Same directory, because rename is atomic only within one filesystem. What is not a regular file
// (a device, FIFO, socket or descriptor) is written straight through (output/through.ts).
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink, rename, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { alive } from '../config/paths.js';
import { descriptorOf, descriptorTarget, deviceTarget, socketTarget, stdoutTarget, type WaitOptions } from './through.js';
import { openError, type OutputTarget, writeError } from './target.js';

/** Bytes a file target takes per write. */
const WRITE_BYTES = 256 * 1024;

export type { OutputTarget } from './target.js';

/** What -o names, once symbolic links are followed. */
type Located = { fd: number } | { file: string; stat: Stats | null } | { special: string; stat: Stats };

/** Opens stdout ('-' or no target), a descriptor or device written straight through, or an atomically replaced file. */
export async function openOutput(target: string | undefined, stdout: Writable, wait: WaitOptions = {}): Promise<OutputTarget> {
  if (target === undefined || target === '-') return stdoutTarget(stdout);
  const where = await locate(target);
  if ('fd' in where) return where.fd === 1 ? stdoutTarget(stdout) : descriptorTarget(target, where.fd);
  if ('special' in where) {
    return where.stat.isSocket() ? socketTarget(target, where.special) : deviceTarget(target, where.special, where.stat.isFIFO(), wait);
  }
  return fileTarget(target, where.file, where.stat);
}

/**
 * Follows symbolic links one at a time (a link's own name must not be renamed over: the file it points
 * to is the one replaced, in its own directory), stopping at a name for one of our descriptors, whose
 * /proc link text ("pipe:[1234]") is no path. A dangling link names the file to create.
 */
async function locate(target: string): Promise<Located> {
  let path = resolve(target);
  for (let hops = 0; hops <= 40; hops++) {
    const fd = descriptorOf(path);
    if (fd !== null) return { fd };
    let st: Stats;
    try {
      st = await lstat(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file: path, stat: null };
      throw openError(target, err);
    }
    if (st.isSymbolicLink()) {
      // Another process's /proc/<pid>/fd/N reads as "pipe:[1234]" too: open the link itself, straight through.
      if (/^\/proc\/[^/]+\/fd\/\d+$/.test(path)) return { special: path, stat: await statOf(target, path) };
      path = resolve(dirname(path), await readlink(path));
      continue;
    }
    if (st.isDirectory()) throw openError(target, Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
    if (st.isFile()) return { file: path, stat: st };
    return { special: path, stat: st };
  }
  throw openError(target, Object.assign(new Error('too many symbolic links'), { code: 'ELOOP' }));
}

function statOf(target: string, path: string): Promise<Stats> {
  return stat(path).catch((err: unknown) => {
    throw openError(target, err);
  });
}

async function fileTarget(target: string, path: string, existing: Stats | null): Promise<OutputTarget> {
  await removeStaleTemps(path);
  // The host name and pid in the name let a later run tell a dead run's leftovers from a live run's file.
  const temp = join(dirname(path), `.${basename(path)}.${tempTag()}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const partial = `${path}.partial`;
  // Named as the user named the target, unless a link led elsewhere: then the real place.
  const partialName = path === resolve(target) ? `${target}.partial` : partial;
  const unchanged = existing ? `; ${target} is unchanged` : `; ${target} was not written`;
  let handle: FileHandle;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    if (existing) {
      // Replacing a file must not widen who can read it (e.g. a 0600 export), nor, when root replaces a
      // user's file, take it from its owner (best effort: only root may give a file away).
      await handle.chmod(existing.mode & 0o7777);
      if (process.getuid?.() === 0) await handle.chown(existing.uid, existing.gid).catch(() => {});
    }
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw openError(target, err);
  }
  // The stream owns and closes the handle (a FileHandle cannot be closed while a stream holds it); the
  // data is made durable afterwards through a second descriptor, since fsync works on the file itself.
  // 256 KiB a write (the default 16 KiB made a 1,000,000-row run's output ~10,000 writes, each a trip to the
  // thread pool and back; the row writer gathers rows up to this mark before writing).
  const stream = handle.createWriteStream({ highWaterMark: WRITE_BYTES });
  let failed: unknown = null;
  stream.on('error', (err) => (failed ??= err));
  let state: 'open' | 'committed' | 'kept' | 'aborted' = 'open';
  const closed = new Promise<void>((ok) => stream.once('close', () => ok()));

  const abort = async (): Promise<void> => {
    if (state !== 'open') return;
    state = 'aborted';
    stream.destroy();
    await closed;
    await unlink(temp).catch(() => {});
  };

  /** Ends the temporary file and makes its bytes durable, then renames it to `to`; on failure, gives up. */
  const settle = async (to: string, name: string): Promise<void> => {
    if (state !== 'open') throw new Error(`output ${target} was already ${state}`);
    try {
      if (failed) throw failed;
      await new Promise<void>((ok, fail) => {
        stream.once('error', fail);
        stream.end(() => ok());
      });
      await closed;
      if (failed) throw failed;
      const again = await open(temp, 'r');
      await again.sync().finally(() => again.close());
      await rename(temp, to);
    } catch (err) {
      failed ??= err;
      await abort();
      throw writeError(name, err, unchanged);
    }
  };

  return {
    stream,
    kind: 'file',
    existed: existing !== null,
    async commit() {
      await settle(path, target);
      state = 'committed';
      // The complete output supersedes the rows an earlier incomplete run left. Left in place if it cannot
      // be removed: it is only a leftover, and the run's real output is in place.
      await unlink(partial).catch(() => {});
      await syncDirectory(dirname(path));
    },
    async keepPartial() {
      await settle(partial, partialName);
      state = 'kept';
      await syncDirectory(dirname(path));
      return partialName;
    },
    abort,
    failure: () => {
      // A stream is destroyed first and says why a tick later: its `errored` has the cause meanwhile.
      const cause = failed ?? stream.errored;
      return cause ? writeError(target, cause, unchanged) : null;
    },
  };
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

// Makes the rename itself durable; not every platform or filesystem allows fsync on a directory.
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => {});
  await handle.close().catch(() => {});
}
