import { afterEach, describe, expect, it } from 'vitest';
import { READING_CHOICES, startSandbox, type ResetStyle, type Sandbox } from '../../src/sandbox/index.js';
import { batch, call, fakeClock } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

// The clock sits 250 ms into a 1000 ms window, so the window ends at 10_001_000.
const START = 10_000_250;
const WINDOW_END = 10_001_000;

const expectedBody: Record<ResetStyle, object> = {
  iso: { error: 'rate_limited', reset_at: new Date(WINDOW_END).toISOString() },
  'epoch-s': { error: 'rate_limited', reset: 10_001 },
  'epoch-ms': { error: 'rate_limited', reset_ms: WINDOW_END },
  seconds: { error: 'rate_limited', retry_after: 0.75 },
  'retry-after': { error: 'rate_limited' },
  'resets-in-ms': { error: 'rate_limited', resets_in_ms: 750 },
  'ratelimit-reset': { error: 'rate_limited' },
  'x-ratelimit-reset': { error: 'rate_limited' },
  none: { error: 'rate_limited' },
};

describe('rate limit', () => {
  it.each(READING_CHOICES.resetStyle)('answers the (rpm+1)th request of a window with 429, reset told as %s', async (style) => {
    const clock = fakeClock(START);
    sb = await startSandbox({ rpm: 3, windowMs: 1000, resetStyle: style, clock: clock.now });
    const host = sb.hostList()[0] as string;
    for (let i = 0; i < 3; i++) expect((await call(sb, `domain/${host}`)).status).toBe(200);
    const limited = await call(sb, `domain/${host}`);
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual(expectedBody[style]);
    expect(limited.headers.get('retry-after')).toBe(style === 'retry-after' ? '1' : null);
    expect(limited.headers.get('ratelimit-reset')).toBe(style === 'ratelimit-reset' ? '1' : null);
    expect(limited.headers.get('x-ratelimit-reset')).toBe(style === 'x-ratelimit-reset' ? '10001' : null);
    expect(limited.headers.get('x-quota-remaining')).toBe(String(50_000 - 3));
    expect(sb.charges()).toMatchObject({ total: 3, rateLimited: 1 });
    clock.set(WINDOW_END);
    expect((await call(sb, `domain/${host}`)).status).toBe(200);
  });

  it('limits every metered endpoint per account, counting refused inputs, but not technology or catalog', async () => {
    const clock = fakeClock(START);
    sb = await startSandbox({ rpm: 4, windowMs: 1000, clock: clock.now });
    const other = sb.newKey();
    const host = sb.hostList()[0] as string;
    expect((await call(sb, `traffic/${host}`)).status).not.toBe(429);
    expect((await call(sb, `employees/${host}`, { key: other })).status).not.toBe(429);
    expect((await call(sb, 'domain/bad_domain')).status).toBe(400);
    expect((await batch(sb, [host], { key: other })).status).toBe(200);
    for (const res of [await call(sb, `domain/${host}`), await call(sb, `traffic/${host}`), await call(sb, `employees/${host}`), await batch(sb, [host])]) {
      expect(res.status).toBe(429);
    }
    for (let i = 0; i < 10; i++) {
      expect((await call(sb, 'meta/technologies')).status).toBe(200);
      expect((await call(sb, 'technology/Node.js')).status).toBe(200);
    }
    expect(sb.charges()).toMatchObject({ rateLimited: 4, total: 3 });
  });

  it('does not count 401s against the window', async () => {
    const clock = fakeClock(START);
    sb = await startSandbox({ rpm: 1, windowMs: 1000, clock: clock.now });
    for (let i = 0; i < 5; i++) expect((await call(sb, 'domain/abc.com', { key: null })).status).toBe(401);
    expect((await call(sb, 'domain/abc.com')).status).toBe(404);
  });

  it('is unlimited with rpm 0', async () => {
    sb = await startSandbox({ rpm: 0 });
    const results = await Promise.all(Array.from({ length: 50 }, () => call(sb as Sandbox, 'domain/abc.com')));
    expect(results.every((r) => r.status === 404)).toBe(true);
  });

  it('aligns windows to the real clock when none is injected', async () => {
    sb = await startSandbox({ rpm: 2, windowMs: 200 });
    const results = await Promise.all(Array.from({ length: 6 }, () => call(sb as Sandbox, 'domain/abc.com')));
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    const resetAt = Date.parse((limited[0]!.json as { reset_at: string }).reset_at);
    expect(resetAt % 200).toBe(0);
    expect(resetAt - Date.now()).toBeLessThanOrEqual(200);
  });
});
