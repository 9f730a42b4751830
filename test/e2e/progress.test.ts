// The progress of a batch run as a user sees it (issue 16): on a terminal, a spinner line redrawn from live
// figures that fits the width; off one, with --progress, a plain line every --progress-interval for a log;
// cleared on every way out. In-process with fake terminals; `| head` in a real pseudo-terminal (script).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { main } from '../../src/cli/main.js';
import { assertBuilt, BIN, cliEnv, fakeIo, type InProcessOptions, type InProcessResult, ROOT, runInProcess as runOnWall } from '../helpers/cli.js';
import { sandboxTime, virtualTime } from '../helpers/virtual-time.js';

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
/** The spinner lines drawn on a fake terminal (whose cursor moves are no-ops): the text after each frame. */
function frames(stderr: string): string[] {
  return [...stderr.matchAll(new RegExp(`[${SPINNER}] ([^\\x1b\\n]*)`, 'gu'))].map((m) => m[1] ?? '');
}

// The in-process runs and the sandbox share one virtual clock (test/helpers/virtual-time.ts), an hour ahead of
// the wall's: the latency, the redraws and the plain lines take the time it says, in no real time, and a line
// that read the wall's clock instead would be an hour off.
const time = virtualTime(Date.now() + 3_600_000);
let sb: Sandbox;
let dir: string;
let list: string;
beforeAll(async () => {
  // Each request takes 400 ms: a run lasts long enough for the 250-ms redraw and 50-ms plain lines.
  sb = await startSandbox({ port: 0, rpm: 0, quota: 1_000_000, latencyMs: 400, ...sandboxTime(time) });
  dir = mkdtempSync(join(tmpdir(), 'di-progress-'));
  // 300 rows, 100 distinct hosts: "hosts" must say 100.
  const hosts = sb.hostList().slice(0, 100);
  list = join(dir, 'list.csv');
  writeFileSync(list, `website\n${[...hosts, ...hosts, ...hosts].join('\n')}\n`);
});
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = () => cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
/** The CLI in-process on the file's virtual clock. */
const runInProcess = (args: string[], opts: InProcessOptions): Promise<InProcessResult> => runOnWall(args, { ...opts, time });

describe('progress on a terminal', () => {
  it.each([
    // Fields come and go (no ETA before a pace is known, no quota before an answer says it): the need comes
    // first, and the narrower the terminal, the fewer fields, never one cut mid-number.
    [40, /^lookups \d+ \/ 100( \(\d+%\))?( · [^·…]+)*$/u],
    [60, /^lookups \d+ \/ 100 \(\d+%\)( · [^·…]+)*$/u],
    [120, /^lookups \d+ \/ 100 \(\d+%\)( · ETA:? [^·]+)?( · quota [\d,]+)? · 300 rows · 100 hosts · 0 cached · [\d.,]+ lookups\/s$/u],
  ])('at %i columns: the need first, distinct hosts not rows, within the width', async (columns, line) => {
    const r = await runInProcess(['batch', list, '-o', join(dir, `out-${columns}.csv`)], { env: env(), stderrTTY: true, columns });
    expect(r.code).toBe(0);
    const drawn = frames(r.stderr);
    expect(drawn.length).toBeGreaterThan(0);
    for (const text of drawn) {
      expect(text.length).toBeLessThanOrEqual(columns - 3);
      // While the file is still being read (a frame drawn that early comes now and then on a loaded machine: the
      // reading takes real time, the redraws virtual time), the need is not known yet: the share read stands in.
      if (/^lookups \d+ · read \d+%/.test(text)) continue;
      expect(text).toMatch(line);
    }
    expect(drawn.some((text) => line.test(text))).toBe(true);
    // Stopped (the cursor shown again) before the summary is written.
    const summary = r.stderr.search(/rows:? (read )?300/);
    expect(summary).toBeGreaterThan(-1);
    expect(r.stderr.lastIndexOf('\x1b[?25h')).toBeLessThan(summary);
    expect(r.stderr.lastIndexOf('\x1b[?25h')).toBeGreaterThan(r.stderr.lastIndexOf('lookups 0 / 100'));
  });

  it('is stopped at once on Ctrl-C, before the run winds down and says so', async () => {
    const fake = fakeIo(['batch', list, '-o', join(dir, 'out-int.csv')], { env: env(), stderrTTY: true, columns: 120, time });
    const done = main(fake.io);
    // Ctrl-C once the line is drawn (the first redraw at 250 ms; the run's two requests take 400 ms each).
    // Looked for at every turn of the event loop: virtual time moves on only after a few quiet ones.
    while (frames(fake.stderr()).length === 0) await new Promise((resolve) => setImmediate(resolve));
    fake.signal('SIGINT');
    expect(await done).toBe(130);
    await fake.io.dispatcher?.close();
    const stderr = fake.stderr();
    const shown = stderr.lastIndexOf('\x1b[?25h');
    const lastFrame = Math.max(...[...SPINNER].map((c) => stderr.lastIndexOf(c)));
    expect(shown).toBeGreaterThan(lastFrame);
    expect(shown).toBeLessThan(stderr.indexOf('interrupted'));
  });

  it('is stopped before the error of a run that fails (a refused key)', async () => {
    const r = await runInProcess(['batch', list, '-o', join(dir, 'out-key.csv')], {
      env: { ...env(), DOMAIN_INTEL_API_KEY: `di_live_${'0'.repeat(48)}` },
      stderrTTY: true,
      columns: 120,
    });
    expect(r.code).toBe(6);
    expect(frames(r.stderr).length).toBeGreaterThan(0);
    expect(r.stderr.lastIndexOf('\x1b[?25h')).toBeLessThan(r.stderr.indexOf('error:'));
  });

  it('draws no spinner while the rows stream onto the same terminal (they would break its line)', async () => {
    const r = await runInProcess(['batch', list, '--format', 'csv'], { env: env(), stderrTTY: true, stdoutTTY: true, columns: 120 });
    expect(r.code).toBe(0);
    expect(frames(r.stderr)).toEqual([]);
    expect(r.stdout.split('\n')).toHaveLength(302);
  });
});

describe('--progress off a terminal', () => {
  it('writes a plain line every --progress-interval, for a log, and stdout keeps only data', async () => {
    const out = join(dir, 'out-plain.csv');
    const r = await runInProcess(['batch', list, '-o', out, '--progress', '--progress-interval', '50ms'], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('progress'));
    // The run lasts at least 400 ms (the sandbox's latency): several lines at 50 ms.
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) {
      expect(l).toMatch(
        /^progress after [\d.]+(ms|s): lookups \d+ \/ 100 \(\d+%\) · (ETA( \d+s|: learning the rate) · )?(quota [\d,]+ · )?300 rows · 100 hosts · 0 cached · [\d.,]+ lookups\/s$/u,
      );
    }
    expect(r.stderr).not.toMatch(/[\r\x1b]/);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(true);
  });

  it('--progress-interval alone asks for it too; the lines read the CLI clock', async () => {
    // The CLI's clock is an hour ahead of the wall's: had the run's start or a line's moment been read from the
    // wall, the elapsed time would say an hour, or nothing. Every line is under a minute, the last past zero.
    const r = await runInProcess(['batch', list, '-o', join(dir, 'out-clock.csv'), '--progress-interval', '100ms'], { env: env() });
    expect(r.code).toBe(0);
    const elapsed = [...r.stderr.matchAll(/^progress after (\S+): lookups \d+ \/ 100/gm)].map((m) => m[1] as string);
    expect(elapsed.length).toBeGreaterThanOrEqual(2);
    for (const e of elapsed) expect(e).toMatch(/^(\d+ms|\d+\.\ds)$/);
    expect(elapsed.at(-1)).not.toBe('0ms');
  });

  it('writes nothing without --progress (a pipe or a file is not asked to)', async () => {
    const r = await runInProcess(['batch', list, '-o', join(dir, 'out-none.csv')], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/^progress/m);
    expect(r.stderr).toMatch(/^rows\b.*300/m);
  });

  it('refuses an interval under 10ms', async () => {
    const r = await runInProcess(['batch', list, '--progress-interval', '5ms'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("option '--progress-interval <duration>' argument '5ms' is invalid. expected at least 10ms, got \"5ms\"");
  });
});

describe('| head on a terminal', () => {
  it('clears the progress line when the reader goes away (EPIPE): nothing of it is left after the rows', async () => {
    assertBuilt();
    // A process of its own, whose requests the virtual clock cannot see: a sandbox of its own, on real time.
    const real = await startSandbox({ port: 0, rpm: 0, quota: 1_000_000, latencyMs: 400 });
    onTestFinished(() => real.close());
    const big = join(dir, 'big.csv');
    const held = real.hostList();
    writeFileSync(big, `website\n${Array.from({ length: 3_000 }, (_, i) => held[i] ?? `made-up-${i}.example.com`).join('\n')}\n`);
    // stdout and stderr on one pseudo-terminal (script), as a user's; the run outlives head by far.
    const cmd = `stty cols 100; "${process.execPath}" "${BIN}" batch "${big}" --format csv --concurrency 1 | head -2; echo "[head done]"`;
    const transcript = await new Promise<string>((resolve, reject) => {
      const realEnv = cliEnv({ DOMAIN_INTEL_BASE_URL: real.baseUrl, DOMAIN_INTEL_API_KEY: real.key });
      const child = spawn('bash', ['-c', 'script -qec "$1" /dev/null', 'bash', cmd], { cwd: ROOT, env: realEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString('utf8')));
      child.on('error', reject);
      child.on('close', () => resolve(text));
    });
    expect(transcript).toContain('[head done]');
    const lastFrame = Math.max(...[...SPINNER].map((c) => transcript.lastIndexOf(c)));
    if (lastFrame === -1) {
      // Rows piped on get no spinner in the first second (cli/run/batch-run.ts), and head had its two lines sooner: the
      // screen holds the header, one row and the shell's echo, nothing of ours around them.
      const plain = transcript.replace(/\x1b\[[?\d;]*[A-Za-z]/g, '').split('\r\n');
      expect(plain[0]?.startsWith('website,status,host,')).toBe(true);
      expect(plain.slice(2)).toEqual(['[head done]', '']);
      return;
    }
    // A slow first answer (a loaded machine): after the last frame the line is cleared (cursor to column 1,
    // erase to its end) and the cursor shown again.
    const after = transcript.slice(lastFrame);
    expect(after).toMatch(/\x1b\[1G\x1b\[0K/);
    expect(after).toContain('\x1b[?25h');
    // And nothing else of ours follows: a closed pipe ends quietly, the shell's echo comes next.
    const rest = after.slice(after.indexOf('\x1b[?2026l'));
    expect(rest.replace(/\x1b\[[?\d;]*[A-Za-z]/g, '')).toBe('[head done]\r\n');
  });
});
