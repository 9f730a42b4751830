// What -o names, through the CLI (issue 14): FIFOs, descriptors and process substitutions are written straight
// through (their reader gets the rows; nothing is created or renamed where they are), a link to a file
// replaces the real file keeping its mode, and a full disk is exit 10 with FILE untouched. Everything stays in
// a temp dir: no test opens a real /dev entry.
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, cliEnv, runInProcess } from '../helpers/cli.js';
import { canMountSmallDisk, withSmallDisk } from '../helpers/small-disk.js';

let sb: Sandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
let input: string;
const HOSTS = 20;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0 });
});
afterAll(async () => {
  await sb?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'di-targets-'));
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'cache') });
  input = join(dir, 'in.csv');
  writeFileSync(input, `website\n${sb.hostList().slice(0, HOSTS).join('\n')}\n`);
  return () => rmSync(dir, { recursive: true, force: true });
});

const batch = (target: string, ...flags: string[]) => runInProcess(['batch', input, '-o', target, '--rate', '100000/1m', '--quiet', ...flags], { env });
const dataLines = (text: string) => text.trimEnd().split('\n').slice(1);
/** The names in the temp dir besides the input and the cache. */
const others = () =>
  readdirSync(dir)
    .filter((f) => f !== 'in.csv' && f !== 'cache')
    .sort();

/** What a FIFO's reader gets, read to its end. */
const readFifo = (path: string): Promise<string> =>
  new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    createReadStream(path)
      .on('data', (c) => chunks.push(c as Buffer))
      .on('end', () => ok(Buffer.concat(chunks).toString('utf8')))
      .on('error', fail);
  });

describe('targets that are not regular files', () => {
  it('a FIFO: the reader gets every row; it stays a FIFO', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const read = readFifo(fifo);
    const r = await batch(fifo);
    expect(r.code).toBe(0);
    expect(dataLines(await read)).toHaveLength(HOSTS);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(others()).toEqual(['pipe']);
  });

  it('a FIFO and an incomplete run: the rows went through, so there is no FIFO.partial and no "unchanged" line', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const read = readFifo(fifo);
    const r = await batch(fifo, '--max-lookups', '5');
    expect(r.code).toBe(4);
    expect(dataLines(await read).filter((l) => l.includes(',error,'))).toHaveLength(HOSTS - 5);
    expect(others()).toEqual(['pipe']);
    expect(r.stderr).not.toContain('unchanged');
  });

  it('/dev/fd/N (a descriptor the caller holds on a file): written through that descriptor, same file, no rename', async () => {
    const file = join(dir, 'held.csv');
    const fd = openSync(file, 'w');
    const inode = statSync(file).ino;
    try {
      const r = await batch(`/dev/fd/${fd}`);
      expect(r.code).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect(dataLines(readFileSync(file, 'utf8'))).toHaveLength(HOSTS);
    expect(statSync(file).ino).toBe(inode);
    expect(others()).toEqual(['held.csv']);
  });

  it('a link to /proc/self/fd/1 is stdout: the rows are on stdout, the link stays', async () => {
    const link = join(dir, 'out');
    symlinkSync('/proc/self/fd/1', link);
    const r = await batch(link);
    expect(r.code).toBe(0);
    expect(dataLines(r.stdout)).toHaveLength(HOSTS);
    expect(readlinkSync(link)).toBe('/proc/self/fd/1');
  });

  it('a process substitution, -o >(cat > FILE) (a real shell and process)', async () => {
    assertBuilt();
    const file = join(dir, 'substituted.csv');
    // `wait $!` waits for the substitution's process, so its file is whole when the shell exits.
    const script = `"$NODE" "$BIN" batch "$IN" --rate 100000/1m --quiet -o >(cat > "$OUT"); code=$?; wait $!; exit $code`;
    const code = await new Promise<number | null>((ok) => {
      const child = spawn('bash', ['-c', script], { env: { ...env, NODE: process.execPath, BIN, IN: input, OUT: file }, stdio: 'ignore' });
      child.on('close', ok);
    });
    expect(code).toBe(0);
    expect(dataLines(readFileSync(file, 'utf8'))).toHaveLength(HOSTS);
    expect(others()).toEqual(['substituted.csv']);
  });
});

describe('links and modes', () => {
  it('a link to a 0600 file: the file is replaced, still 0600, the link still a link', async () => {
    const real = join(dir, 'real.csv');
    writeFileSync(real, 'old\n');
    execFileSync('chmod', ['600', real]);
    const link = join(dir, 'link.csv');
    symlinkSync('real.csv', link);
    const r = await batch(link);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(dataLines(readFileSync(real, 'utf8'))).toHaveLength(HOSTS);
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(others()).toEqual(['link.csv', 'real.csv']);
  });
});

describe('output disk full', () => {
  it.skipIf(!canMountSmallDisk)(
    'a real ENOSPC (a small tmpfs): exit 10, "no space left on device writing FILE", FILE untouched, no stack, no "report it"',
    async () => {
      await withSmallDisk('32k', async (disk) => {
        const out = join(disk.dir, 'out.csv');
        const before = Buffer.from('an earlier good output\n'.repeat(600));
        writeFileSync(out, before);
        writeFileSync(input, `website\n${sb.hostList().slice(0, 600).join('\n')}\n`);
        const r = await runInProcess(['batch', input, '-o', out, '--rate', '100000/1m'], { env });
        expect(r.code, r.stderr).toBe(10);
        expect(r.stderr).toContain(`error: no space left on device writing ${out}; ${out} is unchanged`);
        expect(r.stderr).not.toMatch(/report it|unexpected|\n\s+at |stopped: the output was closed/);
        expect(readFileSync(out).equals(before)).toBe(true);
        expect(readdirSync(disk.dir)).toEqual(['out.csv']);
      });
    },
  );

  it.skipIf(!canMountSmallDisk)('a read-only filesystem: exit 10 before anything is spent', async () => {
    await withSmallDisk('32k', async (disk) => {
      const out = join(disk.dir, 'out.csv');
      writeFileSync(out, 'old\n');
      disk.readOnly();
      sb.resetCounters();
      const r = await batch(out);
      expect(r.code).toBe(10);
      expect(r.stderr).toContain(`read-only filesystem writing ${out}`);
      expect(sb.charges().total).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe('old\n');
    });
  });
});

describe('-o with hosts from the command line', () => {
  it('lookup HOST -o FILE.json writes the answer to FILE as JSON (its name says so), even on a terminal; stdout empty', async () => {
    const [host] = sb.hostList();
    const out = join(dir, 'one.json');
    const r = await runInProcess(['lookup', host as string, '-o', out], { env, stdoutTTY: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const [answer, ...more] = JSON.parse(readFileSync(out, 'utf8')) as { data: { domain: string }; fetched_at: string }[];
    expect(more).toEqual([]);
    expect(answer?.data.domain).toBe(host);
    expect(answer?.fetched_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('a host the service does not hold: -o FILE holds its missing row, as a list writes it (exit 8)', async () => {
    const out = join(dir, 'one.json');
    writeFileSync(out, 'yesterday\n');
    const r = await runInProcess(['lookup', 'surely-not-held.example', '-o', out], { env });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/surely-not-held\.example: not held by the service/);
    const rows = JSON.parse(readFileSync(out, 'utf8')) as { status: string; data: unknown }[];
    expect(rows.map((x) => [x.status, x.data])).toEqual([['missing', null]]);
    expect(others()).toEqual(['one.json']);
  });

  it('lookup with several hosts and traffic HOST write to -o FILE; a table is refused there before anything is spent', async () => {
    const [a, b] = sb.hostList();
    const many = join(dir, 'many.json');
    const r = await runInProcess(['lookup', a as string, b as string, '-o', many], { env, stdoutTTY: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect((JSON.parse(readFileSync(many, 'utf8')) as unknown[]).length).toBe(2);
    const traffic = join(dir, 'traffic.csv');
    const t = await runInProcess(['traffic', a as string, '-f', 'csv', '-o', traffic], { env });
    expect(t.code).toBe(0);
    expect(readFileSync(traffic, 'utf8').split('\n')[0]).toMatch(/^input,status,host,.*fetched_at$/);
    sb.resetCounters();
    const table = await runInProcess(['lookup', 'c.example', '-f', 'table', '-o', join(dir, 't.txt')], { env });
    expect(table.code).toBe(2);
    expect(table.stderr).toContain('--format table is drawn for the terminal; with -o FILE use csv, json, ndjson or xlsx');
    expect(sb.charges().total).toBe(0);
  });
});

describe('a FIFO nobody reads yet', () => {
  it('the run says it waits for a reader, and Ctrl-C ends the wait at once (exit 130, nothing spent, nothing written)', async () => {
    assertBuilt();
    const fifo = join(dir, 'nobody.fifo');
    execFileSync('mkfifo', [fifo]);
    sb.resetCounters();
    const { startCli } = await import('../helpers/cli.js');
    const { child, done } = startCli(['batch', input, '-o', fifo, '--rate', '100000/1m'], { env });
    let stderr = '';
    await new Promise<void>((ok) => {
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString('utf8');
        if (stderr.includes('waiting for a reader')) ok();
      });
    });
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(stderr).toContain(`waiting for a reader on ${fifo} (Ctrl-C stops)`);
    expect(sb.charges().total).toBe(0);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(others()).toEqual(['nobody.fifo']);
  });
});
