// conf writes through `atomically`, whose exit hook (when-exit) answers SIGINT by raising it again: loaded in
// the CLI's thread, it makes one Ctrl-C reach the CLI twice, and the CLI takes a second Ctrl-C as "stop now",
// ending a run before its answers land. settings.ts keeps conf in a worker thread, where no signal arrives.
// A file of its own: test/config/settings.test.ts imports conf in this thread on purpose.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { openSettings } from '../../src/config/settings.js';
import { tempDir } from '../store/helpers.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

it('a Ctrl-C during and after a settings write reaches the CLI once each, and the write completes', async () => {
  const listeners = () => SIGNALS.map((s) => process.listeners(s));
  const before = listeners();
  const seen: string[] = [];
  const onSigint = (signal: string) => seen.push(signal);
  process.on('SIGINT', onSigint);
  try {
    const settings = await openSettings({ env: { DOMAIN_INTEL_CONFIG_DIR: tempDir() } });
    const write = settings.set('baseUrl', 'http://127.0.0.1:1/api/v1'); // conf loads now, on the first write
    process.kill(process.pid, 'SIGINT');
    await write;
    await sleep(50);
    expect(seen).toEqual(['SIGINT']);
    process.kill(process.pid, 'SIGINT'); // conf is loaded now: its hook would raise this one again
    await sleep(100);
    expect(seen).toEqual(['SIGINT', 'SIGINT']);
    await settings.set('rpm', 30); // the CLI's handler did not stop the writer
    expect(settings.get('baseUrl')).toBe('http://127.0.0.1:1/api/v1');
    expect(settings.get('rpm')).toBe(30);
    process.off('SIGINT', onSigint);
    // Nothing was added to (or taken from) the process's signal handlers.
    expect(listeners()).toEqual(before);
  } finally {
    process.off('SIGINT', onSigint);
  }
});
