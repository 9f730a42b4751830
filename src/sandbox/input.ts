// Reading the hostnames a request names (§2.9, §4): path parameters and batch bodies, under the upperCase
// reading.
import type { IncomingHttpHeaders } from 'node:http';
import { isPlausibleHostname } from '../api/hostname.js';
import { MAX_BATCH } from '../api/types.js';
import type { Readings } from './readings.js';

/** One distinct host of a batch: lower-cased, and its first spelling as submitted. */
export interface BatchEntry {
  host: string;
  given: string;
}

/**
 * The host a raw name stands for, or null when rule 2.9 refuses it. Under 'lower', upper case is lowered
 * first: §4.1 answers the domain lower-cased, which only makes sense if upper-case input is accepted; the
 * same rule serves traffic, employees and batch entries so one input never gets two treatments. Under
 * 'reject', rule 2.9's "lower-case" is read strictly.
 */
export function hostname(raw: string | null, upperCase: Readings['upperCase']): string | null {
  if (raw === null) return null;
  if (upperCase === 'reject' && raw !== raw.toLowerCase()) return null;
  const host = raw.toLowerCase();
  return isPlausibleHostname(host) ? host : null;
}

/** Distinct valid hosts of a batch body in submitted order, or null when the body breaks §4 / §8.3. */
export function batchHosts(headers: IncomingHttpHeaders, body: Buffer, upperCase: Readings['upperCase']): BatchEntry[] | null {
  const mediaType = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const domains = (parsed as { domains?: unknown }).domains;
  if (!Array.isArray(domains)) return null;
  const distinct = new Map<string, BatchEntry>();
  for (const entry of domains) {
    const host = typeof entry === 'string' ? hostname(entry, upperCase) : null;
    if (host === null) return null;
    if (!distinct.has(host)) distinct.set(host, { host, given: entry as string });
  }
  return distinct.size >= 1 && distinct.size <= MAX_BATCH ? [...distinct.values()] : null;
}
