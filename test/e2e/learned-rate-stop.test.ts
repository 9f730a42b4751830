// A run with no plan learns the service's rate from its 429s; Ctrl-C after that must not lose it (a tryout's
// resumed run tripped the limit again: 8 more 429s). The rate is kept as soon as it is learned, so after an
// interrupted run `config show` has it, and the resumed run paces at it from its first request: the
// sandbox's log shows no 429 for it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, type FakeIo, fakeIo, runInProcess } from '../helpers/cli.js';
import { sandboxTime, type Time, virtualTime } from '../helpers/virtual-time.js';

/**
 * Sends Ctrl-C from within the first write to stderr that matches `said`: a poll on the real clock let the
 * virtual one run on, and the run bought nearly everything first.
 */
function interruptAt(fake: FakeIo, said: RegExp): void {
  const stderr = fake.io.stderr;
  const write = stderr.write.bind(stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
  let stopped = false;
  stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const wrote = write(chunk, ...rest);
    if (!stopped && said.test(String(chunk))) {
      stopped = true;
      fake.signal('SIGINT');
    }
    return wrote;
  }) as typeof stderr.write;
}

/** A sandbox allowing 2 requests a second of `time`, an environment on it, and a batch of `rows` of its hosts. */
async function twoPerSecond(time: Time, hosts: number, rows: number) {
  const sb = await startSandbox({ port: 0, rpm: 2, windowMs: 1000, hosts, ...sandboxTime(time) });
  const dir = mkdtempSync(join(tmpdir(), 'di-learn-stop-'));
  const file = join(dir, 'crm.csv');
  writeFileSync(file, `website\n${sb.hostList().slice(0, rows).join('\n')}\n`);
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  return { sb, env, args: ['batch', file, '-o', join(dir, 'out.csv')] };
}

describe('Ctrl-C after the rate was learned', () => {
  it('keeps the learned rate: config show has it, and the resumed run meets no 429', async () => {
    const time = virtualTime(Date.now());
    const { sb, env, args } = await twoPerSecond(time, 1000, 400);
    try {
      const fake = fakeIo(args, { env, time });
      // Stopped the moment it says what it learned, long before the end of the input.
      interruptAt(fake, /the service allows about \d+ requests per/);
      const run = main(fake.io);
      expect(await run, fake.stderr()).toBe(130);
      await fake.io.dispatcher?.close();
      expect(sb.charges().rateLimited).toBeGreaterThan(0);

      const show = JSON.parse((await runInProcess(['config', 'show', '--json'], { env })).stdout) as {
        learnedRate: { requests: number; windowMs: number } | null;
      };
      expect(show.learnedRate, fake.stderr()).not.toBeNull();
      expect(show.learnedRate?.requests).toBeGreaterThanOrEqual(1);
      // What the run said it learned, and the sandbox's log, when it kept more than the service allows (seen once
      // in a loaded full run: 4 kept where 2 are allowed; not reproduced alone in 16 runs).
      const log = () => `${fake.stderr()}\n${JSON.stringify(sb.requests().map((r) => [r.time, r.status]))}`;
      expect(show.learnedRate?.requests, log()).toBeLessThanOrEqual(2);

      sb.resetCounters();
      const again = await runInProcess([...args, '--quiet'], { env, time });
      expect(again.code, again.stderr).toBe(0);
      expect(sb.charges().total).toBeGreaterThan(0); // the rest was bought in this run
      expect(sb.charges().rateLimited, again.stderr).toBe(0);
    } finally {
      await sb.close();
    }
  });
});

// Ctrl-C before two resets confirmed the rate: what the run learned (the limit, and the window one reset
// bounded below) is kept all the same, marked unconfirmed, and the resumed run paces at it from its first
// request rather than from nothing (a tryout's resumed run met the 429s again, and kept nothing again), then
// confirms it. The clock starts 150 ms into a window: the first reset bounds it at 850 ms, below the true second,
// so the resumed run meets the window's edge and measures it.
describe('Ctrl-C before the rate was confirmed', () => {
  it('keeps what was learned, unconfirmed: the resumed run starts from it and confirms it', async () => {
    const time = virtualTime(Date.UTC(2026, 10, 27, 12, 0, 0, 150));
    const { sb, env, args } = await twoPerSecond(time, 3000, 2000);
    try {
      // Stopped the moment the first 429 is taken (said under --debug), long before a second reset.
      const fake = fakeIo([...args, '--debug'], { env, time });
      interruptAt(fake, /429: pausing every worker/);
      expect(await main(fake.io), fake.stderr()).toBe(130);
      await fake.io.dispatcher?.close();
      expect(fake.stderr()).not.toMatch(/the service allows about/); // never confirmed

      type Shown = { learnedRate: { requests: number; windowMs: number; unconfirmed?: boolean } | null };
      const shown = async () => (JSON.parse((await runInProcess(['config', 'show', '--json'], { env })).stdout) as Shown).learnedRate;
      const kept = await shown();
      expect(kept, fake.stderr()).toMatchObject({ requests: 2, unconfirmed: true });
      // A lower bound of the window: never over the service's.
      expect(kept?.windowMs).toBeGreaterThan(0);
      expect(kept?.windowMs).toBeLessThanOrEqual(1000);
      const text = await runInProcess(['config', 'show'], { env, stdoutTTY: true, columns: 200 });
      expect(text.stdout).toMatch(/2 requests per [\d.]+s {2}\(learned for this base url and key; unconfirmed: the window is at least this\)/);

      sb.resetCounters();
      const again = await runInProcess([...args, '--quiet'], { env, time });
      expect(again.code, again.stderr).toBe(0);
      // Paced from its first request: no three requests within the window kept (from nothing, the first three
      // went in one burst and met a 429).
      const log = sb.requests();
      const refused = log.findIndex((r) => r.status === 429);
      const sent = log.slice(0, refused === -1 ? undefined : refused + 1).map((r) => r.time);
      expect(sent.length).toBeGreaterThanOrEqual(3);
      for (let i = 2; i < sent.length; i++) {
        expect((sent[i] as number) - (sent[i - 2] as number), `requests ${i - 2} and ${i}`).toBeGreaterThanOrEqual(kept?.windowMs ?? 0);
      }
      // And confirmed: the true window, kept as measured.
      expect(await shown(), again.stderr).toEqual({ requests: 2, windowMs: 1000 });
    } finally {
      await sb.close();
    }
  });
});
