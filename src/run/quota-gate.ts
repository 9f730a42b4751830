// The quota gate (EnrichOptions.quotaGate, contract C4): when the caller cannot trust what it remembers of
// the quota, the run starts with one request in flight, about one host (all a refusal may cost), and the first
// figure an answer reports is put to the caller, who says whether what is left covers the run. Until then no
// second request goes out.
import type { QuotaInfo } from '../api/types.js';

/** Whether a run may go on at full pace, and the one question that decides it. */
export class QuotaGate {
  readonly #ask: ((quota: QuotaInfo) => Promise<boolean>) | undefined;
  #state: 'open' | 'pending' | 'asking';
  #probed = false;

  constructor(ask: ((quota: QuotaInfo) => Promise<boolean>) | undefined) {
    this.#ask = ask;
    this.#state = ask ? 'pending' : 'open';
  }

  /** Requests in flight at once: `concurrency` once the gate is passed, else one. */
  most(concurrency: number): number {
    return this.#state === 'open' ? concurrency : 1;
  }

  /**
   * Keys the request about to go may carry: one for the first while the gate is pending (all a refusal may
   * cost), else `n`. Only the first: should it fail without a figure, the run goes on in whole batches.
   */
  keys(n: number): number {
    if (this.#state !== 'pending' || this.#probed) return n;
    this.#probed = true;
    return 1;
  }

  /**
   * Puts `quota` to the caller while the gate is pending and it carries a remaining figure, and stops the run
   * ('short') when the caller says it cannot cover the run, or for the error the caller failed with.
   * `answered`: it came with an answer the run recorded.
   */
  async pass(quota: QuotaInfo | null, answered: boolean, stop: (reason: 'short' | 'error', cause?: unknown) => void): Promise<void> {
    if (this.#state !== 'pending' || this.#ask === undefined) return;
    // Nothing left: there is nothing to ask (a request now is a 402, which spends nothing and stops the run).
    if (quota?.remaining === 0) {
      this.#state = 'open';
      return;
    }
    if (quota?.remaining == null) {
      // An answer that says nothing of the quota leaves nothing to check: the spec does not promise every
      // answer carries the headers (§8.5), so a service that sends none is not held to one request at a
      // time for the whole run. An error without them (a 503) tells nothing either way.
      if (answered) this.#state = 'open';
      return;
    }
    this.#state = 'asking';
    try {
      if (!(await this.#ask(quota))) stop('short');
    } catch (err) {
      stop('error', err);
    }
    this.#state = 'open';
  }
}
