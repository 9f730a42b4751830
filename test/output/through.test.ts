// stdout whose reader went away (`batch big.csv | head -3`): process.stdout emits 'error' (EPIPE) and 'close'
// but is marked neither destroyed nor errored, and still needs a drain when the failed write was queued behind
// another. Whatever waited for a drain then never settled, and Node exited 13 with nothing said.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { stdoutTarget } from '../../src/output/through.js';
import { createRowWriter } from '../../src/output/write.js';
import { row } from '../run/helpers.js';

/** A stream like process.stdout once its pipe broke: writes never complete, then 'error' and 'close' without destroy. */
function brokenPipe(): { stream: Writable; breakNow: () => void } {
  const stream = new Writable({ highWaterMark: 16, write: () => undefined });
  stream.on('error', () => undefined);
  const breakNow = () => {
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    stream.emit('close');
  };
  return { stream, breakNow };
}

const settles = <T>(p: Promise<T>): Promise<string> =>
  Promise.race([
    p.then(
      () => 'resolved',
      () => 'rejected',
    ),
    new Promise<string>((r) => setTimeout(() => r('pending'), 500)),
  ]);

describe('stdout whose reader went away', () => {
  it("the target's commit settles though stdout still needs a drain", async () => {
    const { stream, breakNow } = brokenPipe();
    const target = stdoutTarget(stream);
    stream.write('a'.repeat(100));
    stream.write('b'.repeat(100));
    expect(stream.writableNeedDrain).toBe(true);
    breakNow();
    expect(stream.destroyed).toBe(false);
    expect(await settles(target.commit())).toBe('resolved');
    expect(await settles(target.abort())).toBe('resolved');
  });

  it('the row writer rejects rather than wait for a drain that never comes', async () => {
    const { stream, breakNow } = brokenPipe();
    const writer = createRowWriter(stream, { format: 'csv', kind: 'profile', shape: { format: 'lines', headers: null, hostColumn: 0 } });
    const first = writer.write(row('profile', { line: 1, value: 'x'.repeat(200), cells: ['x'.repeat(200)] }));
    breakNow();
    expect(await settles(first)).not.toBe('pending');
    expect(await settles(writer.write(row('profile', { line: 2 })))).toBe('rejected');
    expect(await settles(writer.end())).toBe('rejected');
  });
});
