import { mkdtemp, readdir, readFile, rm, stat, writeFile, chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/api/errors.js';
import { openOutput } from '../../src/pipeline/write.js';
import { createRowWriter } from '../../src/pipeline/write.js';
import { row, sink } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'di-out-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = (s: NodeJS.WritableStream, text: string) => new Promise<void>((ok) => (s.write(text) ? ok() : s.once('drain', ok)));

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
    await expect(out.commit()).rejects.toThrow(UsageError);
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

  it('refuses a missing directory, a directory target and an unwritable directory with a UsageError naming the path', async () => {
    const missing = join(dir, 'nope', 'out.csv');
    await expect(openOutput(missing, sink())).rejects.toThrow(UsageError);
    await expect(openOutput(missing, sink())).rejects.toThrow(`cannot write ${missing}: the directory does not exist`);
    await expect(openOutput(dir, sink())).rejects.toThrow(`cannot write ${dir}: it is a directory`);
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked');
      await mkdir(locked, { mode: 0o500 });
      await expect(openOutput(join(locked, 'out.csv'), sink())).rejects.toThrow(/cannot write .*locked\/out\.csv: permission denied/);
    }
  });
});
