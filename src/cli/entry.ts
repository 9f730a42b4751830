// The program as a process: the one file in the CLI that touches `process`. It tunes V8 for a short-lived
// CLI, hands main() the process's io, and exits with the code main returns.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { isClosedPipe, type Io, REAL_CLOCK } from './io.js';
import { main } from './main.js';

// A streaming run allocates briskly while its live heap stays small (~25 MB: rows awaiting answers, the
// seen-set's index). V8 lets the old generation grow to about 4x the live heap between full collections,
// so peak RSS sat near 220 MB whatever the input size. Growing it by half instead keeps the heap near
// 85 MB (1,000,000 rows: peak RSS 225 -> 174 MB, no slower in the same run).
setFlagsFromString('--heap-growing-percent=50');
// The young generation starts at 2 x 1 MB and V8 doubles it, up to 2 x 16 MB, whenever many objects survive a
// scavenge: a run's rows do (they wait for answers), so it always reached 32 MB, a sixth of the peak RSS.
// --max-semi-space-size is read only when the heap is made, before any of our code runs; the growth factor is
// read at each growth. So it is left to grow to YOUNG_CAP_MB, then told to grow no more (a factor of 1).
// Kept from growing at all it cost a sixth more CPU in scavenges; capped at 2 x 8 MB, peak RSS fell by ~16 MB
// for no measurable CPU (100,000 rows, BENCHMARKS.md).
const YOUNG_CAP_MB = 16;
const young = setInterval(() => {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (space === undefined || space.space_size >= YOUNG_CAP_MB * 2 ** 20) {
    setFlagsFromString('--semi-space-growth-factor=1');
    clearInterval(young);
  }
}, 25);
young.unref();
// undici parses HTTP with llhttp built to WebAssembly. After the first response V8 starts optimising its
// one big parser function on a background thread: ~250 ms of compiling that a CLI run gains nothing from
// (it parses a few headers per response), and that process exit then waits for, as V8 lets a running
// compile job finish. A budget no run reaches keeps the parser on the baseline compiler. Both are set here,
// by the CLI, before any work: the library leaves V8 alone.
setFlagsFromString('--wasm-tiering-budget=2000000000');

// Help or a message written into a pipe already closed (`domain-intel --help | head`) must not surface as
// an unhandled 'error' event with a stack; a command's own EPIPE handling (stops.ts) adds to this.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (!isClosedPipe(err)) throw err;
});

const io: Io = {
  argv: process.argv.slice(2),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  clock: REAL_CLOCK,
  signals: {
    on: (signal, listener) => void process.on(signal, listener),
    off: (signal, listener) => void process.off(signal, listener),
  },
  exit: (code) => process.exit(code),
};

const code = await main(io);
await flush(process.stdout);
await flush(process.stderr);
process.exit(code);

/** Resolves once what was written to `stream` has been handed to the system. */
function flush(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
