// Which hosts the feed looks at: those of an input read as `batch` reads it (the same reader, normalisation
// and key, so the same hosts), or every host with a past in the cache (--all), a page at a time.
import { normaliseHost } from '../domain/normalise.js';
import { KINDS } from '../domain/kinds.js';
import { openSeenSet } from '../run/seen-keys.js';
import type { RecordSource } from '../run/intake.js';
import type { HistoryReads } from '../store/contract.js';

/** What reading the input met besides hosts. */
export interface InputCounts {
  /** Rows whose value is no hostname (batch would mark them invalid): skipped. */
  invalid: number;
  /** Rows of a host met earlier in the input: looked at once. */
  duplicates: number;
}

/**
 * The distinct keys of `records` (arrays of them, as the reader's chunks come, or one by one; a string is a
 * value as a library caller hands one), in input order.
 */
export async function* inputHosts(records: RecordSource, counts: InputCounts): AsyncGenerator<string> {
  // The pipeline's set: flat memory however many distinct hosts (run/seen-keys.ts), where a Set of strings would grow.
  const seen = openSeenSet();
  try {
    for await (const item of records) {
      const keys: string[] = [];
      for (const record of Array.isArray(item) ? item : [item]) {
        const n = normaliseHost(typeof record === 'string' ? record : record.value);
        if (n.ok) keys.push(KINDS.profile.keyOf(n.host));
        else counts.invalid++;
      }
      const fresh = seen.add(keys);
      for (let i = 0; i < keys.length; i++) {
        if (fresh[i]) yield keys[i] as string;
        else counts.duplicates++;
      }
    }
  } finally {
    seen.close();
  }
}

/** Hosts per page of --all: enough to make each query worth it, few enough to hold nothing much. */
const PAGE = 500;

/** Every host with a past answer of `endpoint`, in host order, read a page at a time. */
export async function* hostsWithHistory(reads: Pick<HistoryReads, 'hostsWithHistory'>, endpoint: string): AsyncGenerator<string> {
  let after: string | null = null;
  for (;;) {
    const page = await reads.hostsWithHistory(endpoint, after, PAGE);
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1] as string;
  }
}
