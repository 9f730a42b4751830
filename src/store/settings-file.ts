// The settings file on disk, kept as conf kept it (same path, format and mode, so existing files read
// unchanged): tab-indented JSON, read afresh on every access (another process may have changed it), and
// replaced atomically on every change. conf itself is no longer used: it loads ajv, semver and more on
// import (~100 ms, more than the rest of a lookup) for schema and migration features this file does not
// use, and every lookup writes the last quota it saw.
import fs from 'node:fs';
import path from 'node:path';

/** Raw storage under the typed layer: the settings file, or a plain object in memory. */
export interface Backend {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  delete(name: string): void;
  readonly store: Record<string, unknown>;
}

/** The settings file at `file` as raw storage; JSON that does not parse throws (SyntaxError) on access. */
export function fileBackend(file: string): Backend {
  const read = (): Record<string, unknown> => {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return Object.create(null) as Record<string, unknown>;
    }
    // Never wiped when it does not parse: it may hold the user's only copy of a key.
    return Object.assign(Object.create(null) as Record<string, unknown>, JSON.parse(text));
  };
  const write = (data: Record<string, unknown>): void => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, JSON.stringify(data, undefined, '\t'));
  };
  return {
    get: (name) => {
      const data = read();
      return name in data ? data[name] : undefined;
    },
    set(name, value) {
      const data = read();
      data[name] = value;
      write(data);
    },
    delete(name) {
      const data = read();
      delete data[name];
      write(data);
    },
    get store() {
      return read();
    },
  };
}

/**
 * Replaces `file` with `text` as conf did (through `atomically`), so a reader sees the old or the new file,
 * never half of one: a 0600 temporary file beside it, flushed to disk, renamed over it. A symlink is
 * replaced at its target; a file owned by someone else (root editing a user's settings) keeps its owner.
 */
function writeFileAtomic(file: string, text: string): void {
  let target = file;
  let owner: fs.Stats | null = null;
  try {
    target = fs.realpathSync(file);
    owner = fs.statSync(target);
  } catch {
    /* not there yet: created by the rename */
  }
  // Snap confinement forbids the temporary file; there conf wrote in place, and so do we.
  if (process.env.SNAP) return fs.writeFileSync(target, text, { mode: FILE_MODE });
  const temp = `${target}.tmp-${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const until = Date.now() + 1000;
  let fd: number | null = retried(until, () => fs.openSync(temp, 'wx', FILE_MODE));
  try {
    retried(until, () => fs.writeSync(fd as number, text, 0, 'utf8'));
    retried(until, () => fs.fsyncSync(fd as number));
    retried(until, () => fs.closeSync(fd as number));
    fd = null;
    const euid = process.geteuid?.();
    if (owner && euid !== undefined && (owner.uid !== euid || owner.gid !== process.getegid?.())) ignoreChangeError(() => fs.chownSync(temp, owner.uid, owner.gid));
    ignoreChangeError(() => fs.chmodSync(temp, FILE_MODE)); // the umask may have narrowed it
    try {
      retried(until, () => fs.renameSync(temp, target));
    } catch (err) {
      // Some Windows set-ups refuse a rename within one directory (EXDEV): written in place instead.
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      fs.writeFileSync(target, text, { mode: FILE_MODE });
    }
  } finally {
    if (fd !== null) ignoreError(() => fs.closeSync(fd as number));
    if (fs.existsSync(temp)) fs.rmSync(temp, { force: true }); // only after a failure: renamed away otherwise
  }
}

// A file briefly locked (a virus scanner on Windows) or too many open files: tried again until `until`.
const TRANSIENT = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EACCES', 'EPERM']);
function retried<T>(until: number, fn: () => T): T {
  for (;;) {
    try {
      return fn();
    } catch (err) {
      if (!TRANSIENT.has((err as NodeJS.ErrnoException).code ?? '') || Date.now() >= until) throw err;
    }
  }
}

function ignoreError(fn: () => void): void {
  try {
    fn();
  } catch {
    /* the error being reported matters more */
  }
}

// A filesystem without Unix ownership or modes (FAT, some network mounts) refuses chown and chmod: not an error.
function ignoreChangeError(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOSYS' && !(process.getuid?.() !== 0 && (code === 'EINVAL' || code === 'EPERM'))) throw err;
  }
}

const FILE_MODE = 0o600;
