// The row writers' way out (write.ts): rendered rows gathered and handed to the stream in bulk, and a write
// failure made to reject the pending and every later send instead of going unheard.
import type { Writable } from 'node:stream';

/** What send() returns when `out` can take more at once: one settled promise shared by every row. */
export const SENT: Promise<void> = Promise.resolve();

// Rows are written as UTF-8 straight into a buffer of the stream's own size (its high-water mark), handed
// over whole once the next row may not fit: no string of the gathered rows (a join) and no second copy of it
// as bytes by the stream (the warm 200,000-row re-run: ~10% of its CPU). What is gathered goes out once the
// buffer is full, so no more is held than the stream would buffer anyway, or as soon as the run waits for
// anything (setImmediate runs only once the current burst of rows is done), so a slow trickle of rows in a
// pipe still shows promptly.
export class Sink {
  private failure: Error | null = null;
  private buf: Buffer | null = null;
  private used = 0;
  private readonly size: number;
  private timer: NodeJS.Immediate | null = null;
  /** `out` emitted 'close': stdout does so without being marked destroyed, and emits no 'drain' after it. */
  private gone = false;

  constructor(private readonly out: Writable) {
    out.on('error', (err: Error) => (this.failure ??= err));
    out.once('close', () => (this.gone = true));
    this.size = Math.max(1, out.writableHighWaterMark);
  }

  /** Queues one piece of text; resolves when `out` can take more (back-pressure). */
  send(text: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.out.destroyed) return Promise.reject(this.closed());
    this.put(text);
    this.timer ??= setImmediate(() => {
      this.timer = null;
      // A failure here is recorded by the 'error' listener and reported by the next send or flush().
      this.flush().catch(() => undefined);
    });
    return this.afterWrite();
  }

  /**
   * Queues the first pieces of a row, whose last piece goes through send (which reports failures and pushes
   * back). At most 3 bytes of UTF-8 per UTF-16 unit: a piece that may not fit goes after what is gathered, and
   * one larger than a whole buffer goes as it is.
   */
  put(text: string): void {
    if (this.used + text.length * 3 > this.size) {
      if (this.used > 0) this.hand();
      if (text.length * 3 > this.size) {
        if (!this.out.destroyed) this.out.write(text);
        return;
      }
    }
    this.buf ??= Buffer.allocUnsafeSlow(this.size);
    this.used += this.buf.write(text, this.used);
  }

  /** Writes everything queued; resolves once `out` has taken it. */
  flush(): Promise<void> {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
    if (this.failure) return Promise.reject(this.failure);
    if (this.used === 0) return this.out.writableNeedDrain ? this.drained() : SENT;
    this.hand();
    return this.afterWrite();
  }

  // The gathered bytes to the stream, which keeps that buffer: the next rows go into a new one. Nothing is
  // written to a stream already destroyed (the next send or flush reports why).
  private hand(): void {
    const bytes = (this.buf as Buffer).subarray(0, this.used);
    this.buf = null;
    this.used = 0;
    if (!this.out.destroyed) this.out.write(bytes);
  }

  // Settled at once while `out` takes more; else at its 'drain'. A write may have destroyed `out` (EPIPE on a
  // pipe is reported synchronously): then it rejects with why, rather than wait for an event that never comes.
  private afterWrite(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.out.destroyed || this.gone) return Promise.reject(this.closed());
    return this.out.writableNeedDrain ? this.drained() : SENT;
  }

  // Why `out` is closed: its error (ENOSPC, EPIPE...) even before the 'error' event that tells it has come (a
  // stream is destroyed first, and says why a tick later: a generic error here was an exit 1 for a full disk).
  private closed(): Error {
    return this.failure ?? this.out.errored ?? new Error('output stream is closed');
  }

  // A stream destroyed already (the reader of a pipe gone: EPIPE) emits neither 'drain' nor 'close' again: waiting
  // for them would leave the run's promise unsettled for good.
  private drained(): Promise<void> {
    if (this.out.destroyed || this.gone) return Promise.reject(this.closed());
    return new Promise((resolve, reject) => {
      const settle = (err?: Error): void => {
        this.out.off('drain', onDrain);
        this.out.off('error', onError);
        this.out.off('close', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = (): void => settle();
      const onError = (err: Error): void => settle(err);
      const onClose = (): void => settle(this.closed());
      this.out.on('drain', onDrain);
      this.out.on('error', onError);
      this.out.on('close', onClose);
    });
  }
}
