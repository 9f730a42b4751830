// Reading what the service answered: the body (capped, JSON or not), the `data` it wraps, and the typed error
// (errors.ts) for a non-200 status or a transport failure. The client (client.ts) makes the call; this decides
// what came back.
import {
  AbortedError,
  BadRequestError,
  DomainIntelError,
  type ErrorDetails,
  InvalidKeyError,
  MeteringUnavailableError,
  NetworkError,
  NotFoundError,
  ProtocolError,
  QuotaExhaustedError,
  RateLimitedError,
  ServerError,
} from './errors.js';
import { rateLimitResume } from './reset.js';
import { isCertificateCode } from './retry.js';

/** The typed error for a non-200 answer (§7); `key` is masked out of any service text it carries. */
export function statusError(
  status: number,
  parsed: unknown,
  text: string,
  headers: Record<string, string | string[] | undefined> | null,
  details: ErrorDetails,
  ctx: { now: number; key: string; windowMs: number },
): DomainIntelError {
  // Service text travels on into messages, error codes and output rows (a row's `reason`): a service that
  // echoes the request's Authorization header must not put the key there. Masked at the source, here, since
  // the client is the only part that knows the key; and capped, since a code is a word, not a page.
  const scrub = (s: string): string =>
    s
      .split(ctx.key)
      .join(`…${ctx.key.slice(-4)}`)
      .slice(0, 80);
  const rawCode = parsed !== null && typeof parsed === 'object' ? (parsed as { error?: unknown }).error : undefined;
  const bodyCode = typeof rawCode === 'string' ? scrub(rawCode) : null;
  const what = details.host === undefined ? details.operation : `${details.operation} ${details.host}`;
  const d = (code: string): ErrorDetails => ({ ...details, code: bodyCode ?? code });
  switch (status) {
    case 400:
      return new BadRequestError(`${what}: the service rejected the request as not plausible (400 ${bodyCode ?? 'bad_request'})`, d('bad_request'));
    case 401:
      return new InvalidKeyError('the API key was refused (401 invalid_key): it is missing, malformed or revoked', d('invalid_key'));
    case 402:
      return new QuotaExhaustedError("the month's lookups are spent (402 quota_exhausted)", d('quota_exhausted'));
    case 404:
      return new NotFoundError(`${what}: not held by the service (404 not_found)`, d('not_found'));
    case 429: {
      const resume = rateLimitResume(headers, parsed, ctx.now, ctx.windowMs);
      const when = resume.announced ? 'resume in' : 'named no reset; guessing';
      const message = `rate limited (429): ${when} ${Math.max(0, resume.at - ctx.now)} ms`;
      return new RateLimitedError(message, d('rate_limited'), resume.at, resume.announced, resume.rounded);
    }
    case 503:
      if (bodyCode === 'metering_unavailable') {
        return new MeteringUnavailableError('the service could not read the quota (503 metering_unavailable); nothing was spent', d('metering_unavailable'));
      }
      break;
  }
  const snippet = bodyCode ?? scrub(text.slice(0, 1000).replace(/\s+/g, ' '));
  return new ServerError(`${what}: unexpected answer ${status}${snippet ? ` (${snippet})` : ''}`, d(`http_${status}`));
}

/** The typed error for a request that got no usable answer: aborted by the caller, timed out, or failed to connect. */
export function transportError(
  err: unknown,
  userSignal: AbortSignal | undefined,
  timeout: AbortSignal,
  timeoutMs: number,
  base: ErrorDetails,
  baseUrl: string,
  proxy: string | null = null,
): DomainIntelError {
  if (err instanceof DomainIntelError) return err;
  if (userSignal?.aborted) return new AbortedError();
  const code = (err as { code?: string }).code ?? (err as Error).name ?? 'network';
  // Named by what was asked (the operation and its host: "domain usi.com"), and the time in seconds: "domain:
  // no answer within 3867 ms" named neither the host nor the service (a tryout).
  const what = base.host === undefined ? base.operation : `${base.operation} ${base.host}`;
  if (timeout.aborted || /TIMEOUT/i.test(code)) {
    return new NetworkError(`${what}: no answer from ${baseUrl} within ${seconds(timeoutMs)}`, { ...base, code: 'timeout', cause: err });
  }
  const message = (err as Error).message ?? String(err);
  if (proxy !== null) {
    const refused = proxyRefusal(message, baseUrl, proxy);
    if (refused !== null) return new NetworkError(refused.text, { ...base, code: refused.code, cause: err });
  }
  const unreachable = unreachableText(code, message, baseUrl, proxy);
  if (unreachable !== null) return new NetworkError(unreachable, { ...base, code, cause: err });
  return new NetworkError(`${what}: connection to ${baseUrl} failed (${code}: ${message})`, { ...base, code, cause: err });
}

/**
 * What a failure no retry can mend (retry.ts isUnreachable) says: the base URL it was sent to and the cause in
 * words, then the system's code and text. Null for any other failure.
 */
function unreachableText(code: string, message: string, baseUrl: string, proxy: string | null): string | null {
  // Through a proxy, the only connection made is the one to the proxy: its failure is the proxy's.
  const where = proxy === null ? `cannot reach the service at ${baseUrl}` : `cannot reach the proxy ${proxy} (on the way to ${baseUrl})`;
  const { host } = new URL(proxy === null ? baseUrl : proxyOrigin(proxy));
  if (code === 'ECONNREFUSED') return `${where}: the connection was refused (${code}: ${message})`;
  if (code === 'ENOTFOUND') return `${where}: no such host name ${host} (${code})`;
  if (isCertificateCode(code)) return `${where}: its TLS certificate was not accepted (${code}: ${message})`;
  return null;
}

/**
 * A proxy's refusal, in words: a tunnel it would not open (`Proxy response (403) !== 200 when HTTP Tunneling`),
 * or a user and password it asks for (407). Asking again cannot mend a 407 (code proxy_auth, never retried);
 * a tunnel refused for another reason (a 502: the proxy could not reach the service) may be mended.
 */
function proxyRefusal(message: string, baseUrl: string, proxy: string): { text: string; code: string } | null {
  const status = /Proxy response \((\d+)\)|Proxy Authentication Required \((\d+)\)/.exec(message);
  if (status === null) return null;
  const code = Number(status[1] ?? status[2]);
  if (code === 407) {
    return { code: 'proxy_auth', text: `the proxy ${proxy} asks for a user and password (407): give them in its URL, http://user:password@host:port` };
  }
  return { code: `proxy_${code}`, text: `the proxy ${proxy} would not open a tunnel to ${new URL(baseUrl).host} (${code})` };
}

/** A masked proxy URL's origin, for its host name (the mask is no valid password, but URL parses it). */
function proxyOrigin(proxy: string): string {
  try {
    return new URL(proxy).origin;
  } catch {
    return 'http://proxy';
  }
}

/** The `data` member every successful body wraps its result in (§2). */
export function dataOf(body: unknown, operation: string, host?: string): unknown {
  if (body !== null && typeof body === 'object' && 'data' in body) return (body as { data: unknown }).data;
  throw new ProtocolError('the service sent an answer without `data`', { code: 'bad_response', operation, ...(host === undefined ? {} : { host }) });
}

/** The body as JSON, or undefined when it is empty or does not parse (the caller decides what that means). */
export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The body as text, refused past `max` bytes so a runaway answer cannot exhaust memory. */
export async function readCapped(body: AsyncIterable<Buffer> & { destroy?: (e?: Error) => void }, max: number, details: ErrorDetails): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy?.();
      throw new ProtocolError(`the service's answer exceeded ${max} bytes; refused`, { ...details, code: 'too_large' });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A timeout in seconds as a person reads it: 30000 -> "30 s", 3867 -> "3.87 s", 150 -> "0.15 s". */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number(s.toFixed(s < 10 ? 2 : 1))} s`;
}
