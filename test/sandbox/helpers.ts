// Small HTTP helpers for the sandbox tests: real requests through global fetch (undici).
import type { Sandbox } from '../../src/sandbox/index.js';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface CallOptions {
  /** Key to send as a bearer token; null sends no Authorization header. Defaults to the sandbox key. */
  key?: string | null;
  /** Raw Authorization header, overriding `key`. */
  authorization?: string;
  method?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  rawBody?: string;
  contentType?: string;
}

/** Calls `path` (relative to the sandbox's baseUrl unless it starts with '/') and reads the whole answer. */
export async function call(sb: Sandbox, path: string, options: CallOptions = {}): Promise<Answer> {
  const url = path.startsWith('/') ? sb.url + path : `${sb.baseUrl}/${path}`;
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? sb.key : options.key;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const res = await fetch(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POSTs a batch of hosts. */
export function batch(sb: Sandbox, domains: unknown, options: CallOptions = {}): Promise<Answer> {
  return call(sb, 'domains/batch', { ...options, body: { domains } });
}

/** A controllable clock for rate-limit and month tests. */
export function fakeClock(start: number): { now: () => number; set: (ms: number) => void; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, set: (ms) => (t = ms), advance: (ms) => (t += ms) };
}
