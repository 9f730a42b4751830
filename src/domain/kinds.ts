// One spec per run kind: everything that differs between a profile, a traffic and an employees run (or
// lookup) stands here, so no other code asks which kind it runs. A new endpoint is a new entry.
import type { CallOptions, DomainIntelClient } from '../api/client.js';
import { NotFoundError } from '../api/errors.js';
import { MAX_BATCH, type ApiResponse, type QuotaInfo } from '../api/types.js';
import { apexOf } from './apex.js';
import { employeeValues, type FieldValue, profileValues, trafficValues } from './fields.js';
import type { EnrichedRow, RunKind } from './types.js';

/** The service's answer about the keys of one request. */
export interface Answer {
  quota: QuotaInfo | null;
  /** Body by key, for the keys the service holds. */
  found: Map<string, unknown>;
  /** Keys the service said it does not hold. A key in neither set was left out of the answer. */
  missing: Set<string>;
}

export interface KindSpec {
  /** The endpoint's name: the cache's endpoint column and the operation in errors. */
  readonly endpoint: string;
  /** Distinct keys per request: 100 through the batch endpoint, else 1. */
  readonly batchSize: number;
  /** What a host is looked up and cached by: the host itself, or its registrable domain. */
  keyOf(host: string): string;
  /**
   * Asks the service about `keys` (as many as batchSize), each sent as `hostOf(key)`. A 404 of a per-host
   * endpoint is an answer (the service does not hold it, and the lookup is charged, §8.6), not an error.
   */
  call(client: DomainIntelClient, keys: string[], hostOf: (key: string) => string, opts: CallOptions): Promise<Answer>;
  /** The answer as a row of `host` carries it (employees answers are per apex, each row keeps its own host). */
  fanOut(body: unknown, host: string): unknown;
  /** A row's values for the appended columns; its keys, in order, are the column list (flatten.ts). */
  values(row: EnrichedRow): Record<string, FieldValue>;
}

const sameHost = (host: string): string => host;
const asIs = (body: unknown): unknown => body;

/** One key through a per-host endpoint; a 404 says the service does not hold it. */
async function one(key: string, request: () => Promise<ApiResponse<unknown>>): Promise<Answer> {
  try {
    const r = await request();
    return { quota: r.quota, found: new Map([[key, r.data]]), missing: new Set() };
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    return { quota: err.quota, found: new Map(), missing: new Set([key]) };
  }
}

/** The spec of each run kind. */
export const KINDS: { readonly [K in RunKind]: KindSpec } = {
  profile: {
    endpoint: 'domain',
    batchSize: MAX_BATCH,
    keyOf: sameHost,
    async call(client, keys, _hostOf, opts) {
      try {
        const r = await client.batch(keys, opts);
        // Keys are sent lower-case (normalise.ts) and the answer's hosts come lower-cased (api/validate.ts),
        // however the service spelled them: `data` and `missing` match the keys case-insensitively, in any order.
        return { quota: r.quota, found: new Map(r.data.data.map((p) => [p.domain, p])), missing: new Set(r.data.missing) };
      } catch (err) {
        // What the service answers when every host of a batch is absent is "not shown" (§4 rule 5). A 404
        // not_found that carries the quota headers was metered (a 404 on a costed lookup still spends, §8.6):
        // it says none of the batch is held, and every host is charged. A 404 without them (a wrong base URL,
        // a proxy) was not metered and stays an error.
        if (!(err instanceof NotFoundError) || err.quota === null) throw err;
        return { quota: err.quota, found: new Map(), missing: new Set(keys) };
      }
    },
    fanOut: asIs,
    values: profileValues,
  },
  traffic: {
    endpoint: 'traffic',
    batchSize: 1,
    keyOf: sameHost,
    call: (client, keys, _hostOf, opts) => one(keys[0] as string, () => client.traffic(keys[0] as string, opts)),
    fanOut: asIs,
    values: trafficValues,
  },
  employees: {
    endpoint: 'employees',
    batchSize: 1,
    keyOf: apexOf,
    call: (client, keys, hostOf, opts) => one(keys[0] as string, () => client.employees(hostOf(keys[0] as string), opts)),
    fanOut: (body, host) => (body === null || typeof body !== 'object' ? body : { ...(body as object), host }),
    values: employeeValues,
  },
};
