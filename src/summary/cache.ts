// --from-cache: a plain host list summarised from what the cache holds, spending nothing. Each value is
// normalised as batch would and looked up in the cache at any age; a host the cache does not hold is `unknown`
// (no lookup is made to find out).
import type { DomainProfile } from '../api/types.js';
import type { AnswerStore, StoredAnswer } from '../store/contract.js';
import type { RecordSource } from '../run/intake.js';
import { KINDS } from '../domain/kinds.js';
import { normaliseHost } from '../domain/normalise.js';
import { bareRow, profileRow, type SummaryRow } from './row.js';

/** The rows of a host list, each answered from `store` alone. */
export async function* cachedRows(records: RecordSource, store: Pick<AnswerStore, 'getMany'>): AsyncGenerator<SummaryRow[]> {
  const spec = KINDS.profile;
  for await (const item of records) {
    const list = (Array.isArray(item) ? item : [item]).map((r) => (typeof r === 'string' ? r : r.value));
    const normal = list.map((value) => normaliseHost(value));
    const keys = [...new Set(normal.flatMap((n) => (n.ok ? [spec.keyOf(n.host)] : [])))];
    const held = keys.length === 0 ? new Map<string, StoredAnswer>() : await store.getMany(spec.endpoint, keys, Number.POSITIVE_INFINITY);
    yield normal.map((n) => {
      if (!n.ok) return bareRow('invalid', null);
      const answer = held.get(spec.keyOf(n.host));
      if (answer === undefined) return bareRow('unknown', n.host);
      return answer.status === 'found' ? profileRow(n.host, answer.body as DomainProfile) : bareRow('missing', n.host);
    });
  }
}
