// How a command learns to stop: Ctrl-C or SIGTERM (a second one exits at once), or stdout's reader leaving.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { watchStops } from '../../src/cli/stops.js';
import { fakeIo } from '../helpers/cli.js';

describe('watchStops', () => {
  it('the first SIGINT aborts `interrupted`; a second exits with 130 at once', async () => {
    const fake = fakeIo([], { env: {} });
    const stops = watchStops(fake.io);
    expect(stops.interrupted.aborted).toBe(false);
    fake.signal('SIGINT');
    expect(stops.interrupted.aborted).toBe(true);
    fake.signal('SIGINT');
    expect(await fake.exited).toBe(EXIT.INTERRUPTED);
    stops.release();
  });

  it('SIGTERM stops the same way; after release() signals are no longer answered', async () => {
    const fake = fakeIo([], { env: {} });
    const stops = watchStops(fake.io);
    fake.signal('SIGTERM');
    expect(stops.interrupted.aborted).toBe(true);
    stops.release();
    fake.signal('SIGTERM');
    const exited = await Promise.race([fake.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20))]);
    expect(exited).toBe('still running');
  });

  it('EPIPE on stdout aborts `outputClosed`; any other stream error is not swallowed', () => {
    const fake = fakeIo([], { env: {} });
    const stops = watchStops(fake.io);
    fake.io.stdout.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(stops.outputClosed.aborted).toBe(true);
    expect(stops.interrupted.aborted).toBe(false);
    expect(() => fake.io.stdout.emit('error', Object.assign(new Error('no space left'), { code: 'ENOSPC' }))).toThrow(/no space left/);
    stops.release();
  });
});
