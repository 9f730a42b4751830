// Unauthenticated control routes under /__sandbox/, for tests and benchmarks that run the sandbox in
// another process. Never rate limited, never metered, never faulted, and not in the request log.
import type { Sandbox } from './types.js';

export const ADMIN_PREFIX = '/__sandbox/';

export type AdminControls = Omit<Sandbox, 'close' | 'dataset' | 'url' | 'baseUrl' | 'key'>;

export interface AdminAnswer {
  status: number;
  body: unknown;
}

function jsonObject(body: Buffer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8') || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Answers one admin request. */
export function handleAdmin(controls: AdminControls, method: string, target: string, body: Buffer): AdminAnswer {
  const name = (target.split('?')[0] ?? '').slice(ADMIN_PREFIX.length);
  const get = method === 'GET';
  const post = method === 'POST';
  const bad = (message: string): AdminAnswer => ({ status: 400, body: { error: 'bad_request', message } });

  if (get && name === 'info') return { status: 200, body: controls.info() };
  if (get && name === 'charges') return { status: 200, body: controls.charges() };
  if (get && name === 'requests') return { status: 200, body: controls.requests() };
  if (get && name === 'hosts') return { status: 200, body: controls.hostList() };
  if (post && name === 'reset-counters') {
    controls.resetCounters();
    return { status: 200, body: { ok: true } };
  }
  if (get && name === 'readings') return { status: 200, body: controls.readings() };
  if (post && name === 'readings') {
    const changes = jsonObject(body);
    if (changes === null) return bad('body must be a JSON object of readings, e.g. {"allAbsent": "not-found"}');
    try {
      return { status: 200, body: controls.setReadings(changes) };
    } catch (err) {
      return bad((err as Error).message);
    }
  }
  if (get && name === 'release') return { status: 200, body: { release: controls.release() } };
  if (post && name === 'release') {
    const release = jsonObject(body)?.release;
    if (typeof release !== 'string') return bad('body must be {"release": "YYYY-MM"}');
    try {
      return { status: 200, body: { release: controls.setRelease(release) } };
    } catch (err) {
      return bad((err as Error).message);
    }
  }
  // What changed between two releases (?from=YYYY-MM&to=YYYY-MM; to defaults to the release served), for a
  // test whose sandbox runs in another process.
  if (get && name === 'changes') {
    const query = new URLSearchParams(target.split('?')[1] ?? '');
    const from = query.get('from');
    if (from === null) return bad('give ?from=YYYY-MM (and &to=YYYY-MM, default the release served)');
    try {
      return { status: 200, body: controls.changesBetween(from, query.get('to') ?? undefined) };
    } catch (err) {
      return bad((err as Error).message);
    }
  }
  if (post && name === 'rollover') {
    controls.rollover();
    const { limit, remaining } = controls.charges();
    return { status: 200, body: { ok: true, limit, remaining } };
  }
  if (post && name === 'key') return { status: 200, body: { key: controls.newKey() } };
  if (post && name === 'pack') {
    controls.addPack();
    const { limit, remaining } = controls.charges();
    return { status: 200, body: { ok: true, limit, remaining } };
  }
  if (post && name === 'revoke') {
    const key = jsonObject(body)?.key;
    if (typeof key !== 'string') return bad('body must be {"key": "<api key>"}');
    controls.revokeKey(key);
    return { status: 200, body: { ok: true } };
  }
  if (post && name === 'allowance') {
    const allowance = jsonObject(body)?.allowance;
    if (typeof allowance !== 'number' || !Number.isInteger(allowance) || allowance < 0) {
      return bad('body must be {"allowance": <non-negative integer>}');
    }
    controls.setAllowance(allowance);
    const { limit, remaining } = controls.charges();
    return { status: 200, body: { ok: true, limit, remaining } };
  }
  if (post && name === 'remaining') {
    const remaining = jsonObject(body)?.remaining;
    if (typeof remaining !== 'number' || !Number.isInteger(remaining) || remaining < 0) {
      return bad('body must be {"remaining": <non-negative integer>}');
    }
    controls.setRemaining(remaining);
    return { status: 200, body: { ok: true, remaining: controls.charges().remaining } };
  }
  return { status: 404, body: { error: 'not_found' } };
}
