import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputError, UsageError } from '../../src/api/errors.js';
import { openOutput } from '../../src/output/write.js';
import { createRowWriter } from '../../src/output/write.js';
import { canMountSmallDisk, withSmallDisk } from '../helpers/small-disk.js';
import { row, sink } from '../run/helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'di-out-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `text`, waiting for room; a stream that fails instead rejects (as the run's row writer does). */
const write = (s: NodeJS.WritableStream, text: string) =>
  new Promise<void>((ok, fail) => {
    if (s.write(text)) return ok();
    s.once('drain', ok);
    s.once('error', fail);
  });
/** A stream made to fail as a full disk would: its error, once the stream has reported it. */
const breakWith = async (s: NodeJS.WritableStream & { destroy(err: Error): void }, err: Error) => {
  const reported = new Promise((ok) => s.once('error', ok));
  s.destroy(err);
  await reported;
};

describe('openOutput', () => {
  it("'-' and no target use stdout, which commit and abort never end", async () => {
    for (const target of ['-', undefined]) {
      const stdout = sink();
      const out = await openOutput(target, stdout);
      expect(out.stream).toBe(stdout);
      out.stream.write('x\n');
      await out.commit();
      await out.abort();
      expect(stdout.writableEnded).toBe(false);
      expect(stdout.text()).toBe('x\n');
    }
  });

  it('commit renames a complete file into place and leaves no temporary file', async () => {
    const target = join(dir, 'out.csv');
    const out = await openOutput(target, sink());
    const writer = createRowWriter(out.stream, {
      format: 'csv',
      kind: 'traffic',
      shape: { format: 'lines', headers: null, hostColumn: 0 },
      fields: ['status'],
    });
    for (let i = 0; i < 1000; i++) await writer.write(row('traffic', { cells: [`h${i}.com`] }));
    await writer.end();
    expect(await readdir(dir)).toHaveLength(1);
    await expect(stat(target)).rejects.toThrow();
    await out.commit();
    expect(await readdir(dir)).toEqual(['out.csv']);
    const text = await readFile(target, 'utf8');
    expect(text.split('\n')).toHaveLength(1002);
    expect((await stat(target)).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  it('an existing target stays whole until commit, then is replaced', async () => {
    const target = join(dir, 'out.csv');
    await writeFile(target, 'old\n');
    const out = await openOutput(target, sink());
    await write(out.stream, 'new, half');
    expect(await readFile(target, 'utf8')).toBe('old\n');
    await write(out.stream, ' and the rest\n');
    await out.commit();
    expect(await readFile(target, 'utf8')).toBe('new, half and the rest\n');
    expect(await readdir(dir)).toEqual(['out.csv']);
  });

  it('abort removes the temporary file and leaves the old target (or none) as it was', async () => {
    const target = join(dir, 'out.csv');
    const fresh = await openOutput(target, sink());
    await write(fresh.stream, 'partial');
    await fresh.abort();
    expect(await readdir(dir)).toEqual([]);

    await writeFile(target, 'old\n');
    const out = await openOutput(target, sink());
    await write(out.stream, 'partial');
    await out.abort();
    await out.abort();
    expect(await readdir(dir)).toEqual(['out.csv']);
    expect(await readFile(target, 'utf8')).toBe('old\n');
  });

  it('a failed write makes commit refuse and clean up, never touching the target', async () => {
    const target = join(dir, 'out.csv');
    await writeFile(target, 'old\n');
    const out = await openOutput(target, sink());
    out.stream.destroy(new Error('ENOSPC: no space left on device'));
    await new Promise((r) => setImmediate(r));
    await expect(out.commit()).rejects.toThrow(OutputError);
    expect(await readdir(dir)).toEqual(['out.csv']);
    expect(await readFile(target, 'utf8')).toBe('old\n');
  });

  it('keeps the mode of a file it replaces', async () => {
    const target = join(dir, 'secret.csv');
    await writeFile(target, 'old\n');
    await chmod(target, 0o600);
    const out = await openOutput(target, sink());
    await write(out.stream, 'new\n');
    await out.commit();
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });

  it('refuses a missing directory and a directory target with a UsageError naming the path, an unwritable directory with an OutputError', async () => {
    const missing = join(dir, 'nope', 'out.csv');
    await expect(openOutput(missing, sink())).rejects.toThrow(UsageError);
    await expect(openOutput(missing, sink())).rejects.toThrow(`cannot write ${missing}: the directory does not exist`);
    await expect(openOutput(dir, sink())).rejects.toThrow(`cannot write ${dir}: it is a directory`);
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked');
      await mkdir(locked, { mode: 0o500 });
      await expect(openOutput(join(locked, 'out.csv'), sink())).rejects.toThrow(OutputError);
      await expect(openOutput(join(locked, 'out.csv'), sink())).rejects.toThrow(/^permission denied writing .*locked\/out\.csv$/);
    }
  });
});

describe('an incomplete run: FILE kept, rows in FILE.partial', () => {
  it('keepPartial leaves FILE byte for byte, renames the rows to FILE.partial with its mode, and leaves no temp', async () => {
    const target = join(dir, 'out.csv');
    const before = Buffer.from('website,status\r\nexample.com,found\r\n\u00ef\u00bb\u00bf');
    await writeFile(target, before);
    await chmod(target, 0o640);
    const out = await openOutput(target, sink());
    expect(out.kind).toBe('file');
    expect(out.existed).toBe(true);
    await write(out.stream, 'rows so far\n');
    expect(await out.keepPartial()).toBe(`${target}.partial`);
    expect((await readFile(target)).equals(before)).toBe(true);
    expect(await readFile(`${target}.partial`, 'utf8')).toBe('rows so far\n');
    expect((await stat(`${target}.partial`)).mode & 0o777).toBe(0o640);
    expect((await readdir(dir)).sort()).toEqual(['out.csv', 'out.csv.partial']);
  });

  it('with no FILE before, an incomplete run creates none; a later complete run writes it and removes the stale partial', async () => {
    const target = join(dir, 'new.csv');
    const first = await openOutput(target, sink());
    expect(first.existed).toBe(false);
    await write(first.stream, 'half\n');
    await first.keepPartial();
    expect(await readdir(dir)).toEqual(['new.csv.partial']);

    const second = await openOutput(target, sink());
    await write(second.stream, 'whole\n');
    await second.commit();
    expect(await readdir(dir)).toEqual(['new.csv']);
    expect(await readFile(target, 'utf8')).toBe('whole\n');
  });

  it('a partial replaces an older partial', async () => {
    const target = join(dir, 'out.csv');
    await writeFile(`${target}.partial`, 'older\n');
    const out = await openOutput(target, sink());
    await write(out.stream, 'newer\n');
    await out.keepPartial();
    expect(await readFile(`${target}.partial`, 'utf8')).toBe('newer\n');
  });
});

describe('symbolic links', () => {
  it('a link to a regular file: the real file is replaced in its own directory, keeping its mode; the link stays a link', async () => {
    await mkdir(join(dir, 'real'));
    await mkdir(join(dir, 'links'));
    const real = join(dir, 'real', 'data.csv');
    await writeFile(real, 'old\n');
    await chmod(real, 0o600);
    const link = join(dir, 'links', 'out.csv');
    await symlink('../real/data.csv', link);
    const out = await openOutput(link, sink());
    await write(out.stream, 'new\n');
    // The temporary file sits beside the real file, on its filesystem, not beside the link.
    expect(await readdir(join(dir, 'links'))).toEqual(['out.csv']);
    expect(await readdir(join(dir, 'real'))).toHaveLength(2);
    await out.commit();
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe('../real/data.csv');
    expect(await readFile(real, 'utf8')).toBe('new\n');
    expect((await stat(real)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'real'))).toEqual(['data.csv']);
  });

  it("a link's partial goes beside the real file, and is named there", async () => {
    const real = join(dir, 'data.csv');
    await writeFile(real, 'old\n');
    const link = join(dir, 'link.csv');
    await symlink(real, link);
    const out = await openOutput(link, sink());
    await write(out.stream, 'half\n');
    expect(await out.keepPartial()).toBe(`${real}.partial`);
    expect(await readFile(real, 'utf8')).toBe('old\n');
    expect(await readFile(`${real}.partial`, 'utf8')).toBe('half\n');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it('a dangling link: the file it names is created, the link kept', async () => {
    const link = join(dir, 'link.csv');
    await symlink('made.csv', link);
    const out = await openOutput(link, sink());
    await write(out.stream, 'data\n');
    await out.commit();
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, 'made.csv'), 'utf8')).toBe('data\n');
  });

  it('a loop of links is a usage error', async () => {
    await symlink('b', join(dir, 'a'));
    await symlink('a', join(dir, 'b'));
    await expect(openOutput(join(dir, 'a'), sink())).rejects.toThrow(UsageError);
  });
});

describe('targets that are not regular files: written straight through', () => {
  /** What a FIFO's reader gets, read to its end. */
  const readAll = (path: string): Promise<string> =>
    new Promise((ok, fail) => {
      const chunks: Buffer[] = [];
      createReadStream(path)
        .on('data', (c) => chunks.push(c as Buffer))
        .on('end', () => ok(Buffer.concat(chunks).toString('utf8')))
        .on('error', fail);
    });

  it('a FIFO: its reader gets the rows, it stays a FIFO, and no file is created beside it, complete or not', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    for (const end of ['commit', 'keepPartial', 'abort'] as const) {
      const read = readAll(fifo);
      const out = await openOutput(fifo, sink());
      expect(out.kind).toBe('through');
      await write(out.stream, `rows before ${end}\n`);
      expect(await out[end]()).toBeFalsy();
      expect(await read).toBe(`rows before ${end}\n`);
      expect((await lstat(fifo)).isFIFO()).toBe(true);
      expect(await readdir(dir)).toEqual(['pipe']);
    }
  });

  it('a FIFO whose reader leaves: an OutputError saying so, and the FIFO stays', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = createReadStream(fifo);
    const opened = new Promise((ok) => reader.once('open', ok));
    const out = await openOutput(fifo, sink());
    await opened;
    reader.destroy();
    await new Promise<void>((ok) => reader.once('close', () => ok()));
    const writing = (async () => {
      for (let i = 0; i < 1000; i++) await write(out.stream, `${'x'.repeat(1023)}\n`);
    })();
    await expect(writing).rejects.toThrow(/EPIPE/);
    expect(out.failure()?.message).toBe(`its reader went away writing ${fifo}`);
    await expect(out.commit()).rejects.toThrow(OutputError);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect(await readdir(dir)).toEqual(['pipe']);
  });

  it('a link to a FIFO writes through the link', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await symlink(fifo, join(dir, 'link'));
    const read = readAll(fifo);
    const out = await openOutput(join(dir, 'link'), sink());
    await write(out.stream, 'through\n');
    await out.commit();
    expect(await read).toBe('through\n');
    expect((await lstat(join(dir, 'link'))).isSymbolicLink()).toBe(true);
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('/dev/fd/N and /proc/self/fd/N: the descriptor itself is written (no rename), and left open for its owner', async () => {
    const file = join(dir, 'held.txt');
    for (const path of ['/dev/fd/', '/proc/self/fd/', `/proc/${process.pid}/fd/`]) {
      const fd = openSync(file, 'w');
      const inode = fstatSync(fd).ino;
      const out = await openOutput(`${path}${fd}`, sink());
      expect(out.kind).toBe('through');
      await write(out.stream, `via ${path}\n`);
      await out.commit();
      // Still open: it is the owner's to close.
      expect(() => fstatSync(fd)).not.toThrow();
      closeSync(fd);
      expect(await readFile(file, 'utf8')).toBe(`via ${path}\n`);
      expect((await stat(file)).ino).toBe(inode);
      expect(await readdir(dir)).toEqual(['held.txt']);
    }
  });

  it('a descriptor onto a FIFO: the reader gets the rows', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO read-write never waits for the other end; the reader then opens it at once.
    const fd = openSync(fifo, 'r+');
    const read = readAll(fifo);
    const out = await openOutput(`/dev/fd/${fd}`, sink());
    await write(out.stream, 'piped\n');
    await out.keepPartial();
    closeSync(fd);
    expect(await read).toBe('piped\n');
    expect(await readdir(dir)).toEqual(['pipe']);
  });

  it('/dev/stdout, /dev/fd/1 and a link to /proc/self/fd/1 are stdout (the real /dev entries are only named, never opened)', async () => {
    const link = join(dir, 'to-stdout');
    await symlink('/proc/self/fd/1', link);
    for (const target of ['/dev/stdout', '/dev/fd/1', link]) {
      const stdout = sink();
      const out = await openOutput(target, stdout);
      expect(out.stream).toBe(stdout);
      expect(out.kind).toBe('stdout');
    }
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it('a descriptor this process does not hold is a usage error, and nothing is created', async () => {
    await expect(openOutput('/dev/fd/987', sink())).rejects.toThrow('cannot write /dev/fd/987: no such open descriptor');
  });

  it('a Unix socket: connected to and written; it stays a socket', async () => {
    const path = join(dir, 'sock');
    const got: Buffer[] = [];
    const ended = new Promise<void>((ok) => {
      const server = createServer((c) => c.on('data', (d) => got.push(d)).on('end', () => server.close(() => ok())));
      server.listen(path);
    });
    await new Promise((r) => setTimeout(r, 0));
    while (!(await lstat(path).catch(() => null))) await new Promise((r) => setTimeout(r, 5));
    const out = await openOutput(path, sink());
    await write(out.stream, 'over a socket\n');
    await out.commit();
    await ended;
    expect(Buffer.concat(got).toString()).toBe('over a socket\n');
  });

  it.skipIf(process.getuid?.() !== 0)('a character device (made here with mknod, never the real /dev one) stays a device', async () => {
    const dev = join(dir, 'null');
    try {
      execFileSync('mknod', [dev, 'c', '1', '3'], { stdio: 'ignore' });
    } catch {
      return; // a container without CAP_MKNOD: nothing to check here
    }
    const out = await openOutput(dev, sink());
    await write(out.stream, 'into the void\n');
    await out.keepPartial();
    expect((await lstat(dev)).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['null']);
  });
});

describe('output disk full and other write failures', () => {
  const fail = (code: string) => Object.assign(new Error(`${code}: raw system text`), { code });

  it.each([
    ['ENOSPC', 'no space left on device'],
    ['EDQUOT', 'disk quota exceeded'],
    ['EROFS', 'read-only filesystem'],
    ['EACCES', 'permission denied'],
  ])('%s while writing (faked at the stream): an OutputError naming the cause and the file, which is unchanged', async (code, words) => {
    const target = join(dir, 'out.csv');
    await writeFile(target, 'old\n');
    const out = await openOutput(target, sink());
    await breakWith(out.stream, fail(code));
    const expected = `${words} writing ${target}; ${target} is unchanged`;
    expect(out.failure()?.message).toBe(expected);
    await expect(out.commit()).rejects.toThrow(expected);
    await expect(out.keepPartial()).rejects.toThrow(/already aborted/);
    expect(await readdir(dir)).toEqual(['out.csv']);
    expect(await readFile(target, 'utf8')).toBe('old\n');
  });

  it('a descriptor target asked at once, before its stream has said why: the cause is already known (no "report it")', async () => {
    for (const asked of ['at once', 'after the event'] as const) {
      const out = await openOutput(`/dev/fd/${openSync(join(dir, 'held.txt'), 'w')}`, sink());
      // A write that fails destroys the stream first and emits 'error' a tick later; the run may ask between.
      // (Node's destroy() closes the descriptor, whatever autoClose says.)
      const reported = new Promise((ok) => out.stream.once('error', ok));
      out.stream.destroy(fail('ENOSPC'));
      if (asked === 'after the event') await reported;
      expect(out.failure()?.message, asked).toMatch(/^no space left on device writing \/dev\/fd\/\d+/);
      await reported;
    }
  });

  it('a failure with no FILE before says it was not written', async () => {
    const target = join(dir, 'out.csv');
    const out = await openOutput(target, sink());
    await breakWith(out.stream, fail('ENOSPC'));
    await expect(out.keepPartial()).rejects.toThrow(`no space left on device writing ${target}.partial; ${target} was not written`);
    expect(await readdir(dir)).toEqual([]);
  });

  it.skipIf(!canMountSmallDisk)('a real full disk (a small tmpfs): commit and keepPartial refuse, FILE is byte for byte as it was, no temp left', async () => {
    await withSmallDisk('64k', async (disk) => {
      const target = join(disk.dir, 'out.csv');
      const before = Buffer.from('kept,bytes\n'.repeat(1000));
      await writeFile(target, before);
      for (const end of ['commit', 'keepPartial'] as const) {
        const out = await openOutput(target, sink());
        const big = `${'x'.repeat(1023)}\n`;
        // The writes fail as the run's row writer would see them (the raw error); the target says why, in words.
        // 600 KiB: past the 64 KiB disk and the stream's 256 KiB buffer, so a write waits and meets the error.
        const writing = (async () => {
          for (let i = 0; i < 600; i++) await write(out.stream, big);
        })();
        await expect(writing).rejects.toThrow(/ENOSPC/);
        await expect(out[end]()).rejects.toThrow(OutputError);
        expect(out.failure()?.message).toMatch(/^no space left on device writing .*out\.csv(\.partial)?; .*out\.csv is unchanged$/);
        await out.abort();
        expect((await readFile(target)).equals(before)).toBe(true);
        expect(await readdir(disk.dir)).toEqual(['out.csv']);
      }
    });
  });

  it.skipIf(!canMountSmallDisk)('a read-only filesystem: an OutputError at open, FILE untouched', async () => {
    await withSmallDisk('64k', async (disk) => {
      const target = join(disk.dir, 'out.csv');
      await writeFile(target, 'old\n');
      disk.readOnly();
      await expect(openOutput(target, sink())).rejects.toThrow(new OutputError(`read-only filesystem writing ${target}`, target));
      expect(await readFile(target, 'utf8')).toBe('old\n');
    });
  });
});
