// The shapes of answers that depend on a reading: the 429's reset and the batch result's lists.
import type { DomainProfile } from '../api/types.js';
import type { BatchEntry } from './input.js';
import { restatedProfile } from './restate.js';
import type { Readings, ResetStyle } from './readings.js';
import type { Dataset } from './types.js';

export const HTML_500 =
  '<!doctype html>\n<html><head><title>500 Internal Server Error</title></head>\n<body><h1>Internal Server Error</h1><p>The upstream did not answer.</p></body></html>\n';

/** The 429 answer in the configured style; the spec does not name the reset field (§7). */
export function rateLimited(style: ResetStyle, resetAt: number, now: number): { body: object; headers: Record<string, string> } {
  const error = 'rate_limited';
  switch (style) {
    case 'iso':
      return { body: { error, reset_at: new Date(resetAt).toISOString() }, headers: {} };
    case 'epoch-s':
      return { body: { error, reset: Math.ceil(resetAt / 1000) }, headers: {} };
    case 'epoch-ms':
      return { body: { error, reset_ms: resetAt }, headers: {} };
    case 'seconds':
      return { body: { error, retry_after: Math.max(0, resetAt - now) / 1000 }, headers: {} };
    case 'retry-after':
      return { body: { error }, headers: { 'retry-after': String(Math.max(1, Math.ceil((resetAt - now) / 1000))) } };
    case 'resets-in-ms':
      return { body: { error, resets_in_ms: Math.max(0, resetAt - now) }, headers: {} };
    case 'ratelimit-reset':
      return { body: { error }, headers: { 'ratelimit-reset': String(Math.max(1, Math.ceil((resetAt - now) / 1000))) } };
    case 'x-ratelimit-reset':
      return { body: { error }, headers: { 'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)) } };
    case 'none':
      return { body: { error }, headers: {} };
  }
}

export interface BatchBody {
  data: DomainProfile[];
  missing: string[];
}

/** The batch result for the served entries, in the order and spelling the readings ask for. */
export function batchBody(
  entries: readonly BatchEntry[],
  dataset: Dataset,
  readings: Pick<Readings, 'order' | 'missingCase' | 'ageDrift' | 'asOf'>,
): BatchBody {
  let ordered = [...entries];
  if (readings.order === 'reversed') ordered.reverse();
  else if (readings.order === 'sorted') ordered = ordered.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  const data: DomainProfile[] = [];
  const missing: string[] = [];
  for (const { host, given } of ordered) {
    const profile = servedProfile(dataset, host, readings);
    if (profile !== null) data.push(profile);
    else missing.push(readings.missingCase === 'lower' ? host : given);
  }
  return { data, missing };
}

/** A profile as the readings serve it: its age counted `ageDrift` days later, its dates as `asOf` says (restate.ts). */
export function servedProfile(dataset: Dataset, host: string, readings: Pick<Readings, 'ageDrift' | 'asOf'>): DomainProfile | null {
  const profile = aged(dataset.profile(host), readings.ageDrift);
  return readings.asOf === 'release' ? restatedProfile(profile, dataset.release) : profile;
}

/** `profile` as served `drift` days later by a service whose age_days counts to today (the ageDrift reading). */
function aged(profile: DomainProfile | null, drift: number): DomainProfile | null {
  return profile === null || drift === 0 || profile.age_days === null ? profile : { ...profile, age_days: profile.age_days + drift };
}

/** Drops the host at `fraction` of the submitted list from a batch answer (the omitHost fault). */
export function omitFromBatch(body: BatchBody, entries: readonly BatchEntry[], fraction: number): void {
  const dropped = entries[Math.floor(fraction * entries.length)];
  if (dropped === undefined) return;
  body.data = body.data.filter((profile) => profile.domain !== dropped.host);
  body.missing = body.missing.filter((host) => host !== dropped.host && host !== dropped.given);
}
