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
import { cliEnv, fakeIo, runInProcess } from '../helpers/cli.js';
import { sandboxTime, virtualTime } from '../helpers/virtual-time.js';

describe('Ctrl-C after the rate was learned', () => {
  it('keeps the learned rate: config show has it, and the resumed run meets no 429', async () => {
    const time = virtualTime(Date.now());
    const sb = await startSandbox({ port: 0, rpm: 2, windowMs: 1000, hosts: 1000, ...sandboxTime(time) });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'di-learn-stop-'));
      const file = join(dir, 'crm.csv');
      writeFileSync(file, `website\n${sb.hostList().slice(0, 400).join('\n')}\n`);
      const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
      const args = ['batch', file, '-o', join(dir, 'out.csv')];
      const fake = fakeIo(args, { env, time });
      // Stopped the moment it says what it learned, long before the end of the input: from within that write,
      // since a poll on the real clock let the virtual one run on and the run buy nearly everything first.
      const learned = /the service allows about \d+ requests per/;
      const stderr = fake.io.stderr;
      const write = stderr.write.bind(stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
      let stopped = false;
      stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
        const wrote = write(chunk, ...rest);
        if (!stopped && learned.test(String(chunk))) {
          stopped = true;
          fake.signal('SIGINT');
        }
        return wrote;
      }) as typeof stderr.write;
      const run = main(fake.io);
      expect(await run, fake.stderr()).toBe(130);
      await fake.io.dispatcher?.close();
      expect(sb.charges().rateLimited).toBeGreaterThan(0);

      const show = JSON.parse((await runInProcess(['config', 'show', '--json'], { env })).stdout) as {
        learnedRate: { requests: number; windowMs: number } | null;
      };
      expect(show.learnedRate, fake.stderr()).not.toBeNull();
      expect(show.learnedRate?.requests).toBeGreaterThanOrEqual(1);
      expect(show.learnedRate?.requests).toBeLessThanOrEqual(2);

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
