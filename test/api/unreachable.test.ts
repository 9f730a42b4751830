// Failures no retry can mend (connection refused, no such host name, a TLS certificate not trusted) fail at
// the first attempt, naming the base URL; timeouts and cut connections stay retried; and one request's time,
// attempts and backoffs together, is capped (api/retry.ts REQUEST_CAP_TIMEOUTS).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainIntelClient } from '../../src/api/client.js';
import { InvalidKeyError, MeteringUnavailableError, NetworkError, RateLimitedError } from '../../src/api/errors.js';
import { decide, firstAttempt, isRetryable, isUnreachable, REQUEST_CAP_TIMEOUTS, withRetry } from '../../src/api/retry.js';
import { startSandbox } from '../../src/sandbox/index.js';

const KEY = `k_${'0'.repeat(48)}`;

/** A loopback port that refuses connections: a sandbox started, then closed. */
async function refusedBaseUrl(): Promise<string> {
  const sb = await startSandbox({ port: 0 });
  const url = sb.baseUrl;
  await sb.close();
  return url;
}

/** The error one call fails with, and how many attempts withRetry made. */
async function oneLookup(baseUrl: string): Promise<{ err: NetworkError; attempts: number }> {
  const client = new DomainIntelClient({ baseUrl, apiKey: KEY });
  let attempts = 0;
  try {
    await withRetry(
      (patience) => {
        attempts++;
        return client.domain('example.com', { patience });
      },
      { sleep: async () => {} },
    );
  } catch (err) {
    return { err: err as NetworkError, attempts };
  } finally {
    await client.close();
  }
  throw new Error('the lookup succeeded');
}

describe('failures no retry can mend', () => {
  it('connection refused: one attempt, the base URL and the cause in the message', async () => {
    const baseUrl = await refusedBaseUrl();
    const { err, attempts } = await oneLookup(baseUrl);
    expect(attempts).toBe(1);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('ECONNREFUSED');
    const port = new URL(baseUrl).port;
    expect(err.message).toBe(`cannot reach the service at ${baseUrl}: the connection was refused (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port})`);
    expect(isUnreachable(err)).toBe(true);
    expect(isRetryable(err)).toBe(false);
  });

  it('no such host name (a name under .invalid): one attempt, the name and the base URL', async () => {
    const baseUrl = 'https://api.nowhere.invalid/api/v1';
    const { err, attempts } = await oneLookup(baseUrl);
    expect(attempts).toBe(1);
    expect(err.code).toBe('ENOTFOUND');
    expect(err.message).toBe(`cannot reach the service at ${baseUrl}: no such host name api.nowhere.invalid (ENOTFOUND)`);
  });

  describe('a TLS certificate the system does not trust', () => {
    let server: HttpsServer;
    let baseUrl: string;
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'di-tls-'));
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], {
        stdio: 'ignore',
      });
      server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end('{"data":{}}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('a self-signed certificate: one attempt, the base URL and the verification error', async () => {
      const { err, attempts } = await oneLookup(baseUrl);
      expect(attempts).toBe(1);
      expect(err.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(err.message).toBe(
        `cannot reach the service at ${baseUrl}: its TLS certificate was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate)`,
      );
      expect(isUnreachable(err)).toBe(true);
    });
  });

  it('every certificate code is unreachable; resets, timeouts and EAI_AGAIN stay retried', () => {
    for (const code of ['CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN']) {
      expect([code, isRetryable(new NetworkError('x', { code }))]).toEqual([code, false]);
    }
    // EAI_AGAIN is the resolver failing to answer just now, not the name being wrong: retried, within the cap.
    for (const code of ['ECONNRESET', 'timeout', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'EPIPE']) {
      expect([code, isRetryable(new NetworkError('x', { code }))]).toEqual([code, true]);
    }
  });

  it('a key is asked for only when a request goes; a missing one fails that request, sending nothing', async () => {
    let asked = 0;
    const client = new DomainIntelClient({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      apiKey: () => {
        asked++;
        throw new InvalidKeyError('no key here', { code: 'invalid_key' });
      },
    });
    expect(asked).toBe(0);
    await expect(client.domain('example.com')).rejects.toThrow(new InvalidKeyError('no key here', { code: 'invalid_key' }));
    expect(asked).toBe(1);
    await client.close();
  });
});

describe("the cap on one request's time", () => {
  const limits = { retries: 4, maxRateLimitWaits: 10, timeoutMs: 30_000 };
  const timedOut = () => new NetworkError('domain: no answer within 30000 ms', { code: 'timeout' });

  it('a host that never answers: one attempt, one with twice the patience, then the error names the cap', async () => {
    let now = 0;
    const patience: number[] = [];
    const run = withRetry(
      async (p) => {
        patience.push(p);
        now += limits.timeoutMs * p; // each attempt runs out its whole timeout
        throw timedOut();
      },
      { ...limits, clock: () => now, sleep: async (ms) => void (now += ms), random: () => 0 },
    );
    await expect(run).rejects.toThrow(
      new NetworkError('domain: no answer within 30000 ms (gave up after 1 retry: one request may take 90 s in all, 3 times its timeout)', {
        code: 'timeout',
      }),
    );
    // Twice the patience, less the 10 ms backoff: the second attempt ends on the cap.
    expect(patience).toEqual([1, 59_990 / 30_000]);
    // 90 s in all, where 5 attempts with doubling took 30 + 60 + 120 + 240 + 480 s.
    expect(now).toBe(REQUEST_CAP_TIMEOUTS * limits.timeoutMs);
  });

  it("the last attempt's patience is cut to the time left, and none starts with under a second left", () => {
    const state = firstAttempt(0, limits);
    expect(state.deadline).toBe(90_000);
    // A 503 at 70 s: 20 s are left after a 10 ms backoff, so the next attempt may wait 2/3 of a timeout.
    expect(decide(new MeteringUnavailableError('m', { code: 'metering_unavailable' }), state, limits, 70_000, () => 0)).toEqual({
      action: 'backoff',
      delayMs: 10,
    });
    expect(state.patience).toBeCloseTo(19_990 / 30_000);
    expect(decide(new MeteringUnavailableError('m', { code: 'metering_unavailable' }), state, limits, 89_000, () => 0)).toEqual({
      action: 'give-up',
      reason: 'm (gave up: one request may take 90 s in all, 3 times its timeout)',
    });
  });

  it('a 429 pause is the service pacing, not a failure: it moves the cap on by its length', () => {
    const state = firstAttempt(0, limits);
    const limited = new RateLimitedError('slow down', { code: 'rate_limited', status: 429 }, 45_000);
    expect(decide(limited, state, limits, 5_000)).toEqual({ action: 'wait', resumeAt: 45_000 });
    expect(state.deadline).toBe(130_000);
  });
});
