// A stale answer beats an error row (issue 14, deliverable 2), and every row says when its answer was
// fetched. Answers are aged by writing them through a second connection to the same cache whose clock is
// set back; the service's failures are real (a sandbox answering 503, a quota at 0, a budget), and what it
// charged is asked of the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, InvalidKeyError, NetworkError, ProtocolError, ServerError } from '../../src/api/errors.js';
import { failureCause, mayStandIn } from '../../src/run/stale-answers.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { harness, type Harness } from '../helpers/run.js';

const DAY = 86_400_000;

/** Writes answers into the harness's cache as if fetched `ageMs` ago; returns that time. */
async function seed(h: Harness, ageMs: number, entries: { host: string; status: 'found' | 'missing'; body: unknown }[], endpoint = 'domain') {
  const at = Date.now() - ageMs;
  const past = await openCache({ dir: h.dir, clock: () => at });
  await past.putMany(entries.map((e) => ({ endpoint, ...e })));
  await past.close();
  return at;
}

const second = (ms: number): number => Math.floor(ms / 1000) * 1000;

describe('a stale answer stands in for an error', () => {
  let failing: Harness;
  beforeAll(async () => {
    failing = await harness({ rpm: 0, faults: { unavailable: 1 } });
  });
  afterAll(async () => {
    await failing?.close();
  });

  it('gives rows the cached answer, found or missing as cached, when the service keeps failing; counts them and says why', async () => {
    const [held, other] = failing.sb.hostList();
    const profile = failing.sb.dataset.profile(held as string);
    const at = await seed(failing, 40 * DAY, [
      { host: held as string, status: 'found', body: profile },
      { host: 'gone-long-ago.example', status: 'missing', body: null },
    ]);
    failing.sb.resetCounters();
    const { rows, stats } = await failing.run('profile', [held as string, 'gone-long-ago.example', other as string, held as string, 'not a host'], {
      retries: 0,
      sleep: async () => {},
    });
    expect(rows.map((r) => r.status)).toEqual(['found', 'missing', 'error', 'found', 'invalid']);
    expect(rows[0]?.data).toEqual(profile);
    expect(rows[0]).toMatchObject({ cached: true, reason: null, fetchedAt: second(at) });
    expect(rows[1]).toMatchObject({ cached: true, reason: null, fetchedAt: second(at), data: null });
    // The repeat waits on the same lookup, and gets the same old answer.
    expect(rows[3]).toMatchObject({ status: 'found', fetchedAt: second(at) });
    expect(rows[2]).toMatchObject({ fetchedAt: null, cached: false });
    expect(rows[2]?.reason).toMatch(/503/);
    expect(rows[4]?.fetchedAt).toBeNull();
    expect(stats).toMatchObject({ stale: 3, staleCause: 'the service kept failing (503)', found: 2, missing: 1, errors: 1, cacheHits: 0, lookupsSpent: 0 });
    expect(failing.sb.charges().total).toBe(0);
  });

  it('--no-stale (stale: false): the same rows are errors', async () => {
    const host = failing.sb.hostList()[5] as string;
    await seed(failing, 40 * DAY, [{ host, status: 'found', body: failing.sb.dataset.profile(host) }]);
    const { rows, stats } = await failing.run('profile', [host, host], { retries: 0, sleep: async () => {}, stale: false });
    expect(rows.map((r) => r.status)).toEqual(['error', 'error']);
    expect(rows.map((r) => r.fetchedAt)).toEqual([null, null]);
    expect(stats).toMatchObject({ stale: 0, staleCause: null, errors: 2 });
  });

  it('under --refresh, an answer from before the run is stale too', async () => {
    const host = failing.sb.hostList()[6] as string;
    const at = await seed(failing, 60_000, [{ host, status: 'found', body: failing.sb.dataset.profile(host) }]);
    const { rows, stats } = await failing.run('profile', [host], { retries: 0, sleep: async () => {}, refresh: true });
    expect(rows[0]).toMatchObject({ status: 'found', cached: true, fetchedAt: second(at) });
    expect(stats.stale).toBe(1);
  });

  it('a traffic run (one host a request) does the same', async () => {
    const host = failing.sb.hostList().find((h) => failing.sb.dataset.traffic(h) !== null) as string;
    const at = await seed(failing, 45 * DAY, [{ host, status: 'found', body: failing.sb.dataset.traffic(host) }], 'traffic');
    const { rows, stats } = await failing.run('traffic', [host], { retries: 0, sleep: async () => {} });
    expect(rows[0]).toMatchObject({ status: 'found', cached: true, fetchedAt: second(at) });
    expect(stats).toMatchObject({ stale: 1, staleCause: 'the service kept failing (503)' });
  });
});

describe('a batch answer that leaves a host out', () => {
  it('the host left out keeps its old answer, and the cause says what happened', async () => {
    const h = await harness({ rpm: 0, faults: { omitHost: 1 } });
    try {
      const host = h.sb.hostList()[40] as string;
      const at = await seed(h, 40 * DAY, [{ host, status: 'found', body: h.sb.dataset.profile(host) }]);
      const { rows, stats } = await h.run('profile', [host]);
      expect(rows[0]).toMatchObject({ status: 'found', cached: true, fetchedAt: second(at) });
      expect(stats).toMatchObject({ stale: 1, staleCause: "the service's batch answer left them out", unanswered: 1, errors: 0 });
    } finally {
      await h.close();
    }
  });
});

describe('stops: the budget and the quota', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ rpm: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('--max-lookups reached: rows not looked up get their old answers; the one bought is fresh', async () => {
    const hosts = h.sb.hostList().slice(10, 13);
    const at = await seed(
      h,
      31 * DAY,
      hosts.map((host) => ({ host, status: 'found' as const, body: h.sb.dataset.profile(host) })),
    );
    h.sb.resetCounters();
    const before = Date.now();
    // One request in flight at a time, one lookup allowed: the first batch asks about one host only when the
    // budget is 1, and the rest stop on the budget.
    const { rows, stats } = await h.run('profile', hosts, { maxLookups: 1, concurrency: 1 });
    const after = Date.now();
    expect(h.sb.charges().total).toBe(1);
    expect(rows.every((r) => r.status === 'found')).toBe(true);
    const fresh = rows.filter((r) => r.fetchedAt !== null && r.fetchedAt >= second(before));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]?.fetchedAt).toBeLessThanOrEqual(after);
    expect(rows.filter((r) => r.fetchedAt === second(at))).toHaveLength(2);
    expect(stats).toMatchObject({ stale: 2, staleCause: '--max-lookups 1 reached', stoppedBy: 'budget', errors: 0, lookupsSpent: 1 });
  });

  it('the quota spent (402): every row with an old answer gets it', async () => {
    const hosts = h.sb.hostList().slice(20, 22);
    await seed(h, 90 * DAY, [{ host: hosts[0] as string, status: 'found', body: h.sb.dataset.profile(hosts[0] as string) }]);
    h.sb.setRemaining(0);
    try {
      h.sb.resetCounters();
      const { rows, stats } = await h.run('profile', hosts);
      expect(rows.map((r) => r.status)).toEqual(['found', 'error']);
      expect(stats).toMatchObject({ stale: 1, staleCause: "the month's lookups are spent", stoppedBy: 'quota' });
      expect(h.sb.charges().total).toBe(0);
    } finally {
      h.sb.setRemaining(1_000_000);
    }
  });
});

describe('fetched_at', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ rpm: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers of this run: when recorded, the same for every row of one answer; cache hits: when cached', async () => {
    const [a, b, c] = h.sb.hostList().slice(30, 33) as [string, string, string];
    const cachedAt = await seed(h, 2 * DAY, [{ host: c, status: 'found', body: h.sb.dataset.profile(c) }]);
    const before = second(Date.now());
    const first = await h.run('profile', [a, 'nobody-holds-this.example', c, a]);
    const after = Date.now();
    const [ra, rm, rc, ra2] = first.rows;
    expect(ra?.fetchedAt).toBeGreaterThanOrEqual(before);
    expect(ra?.fetchedAt).toBeLessThanOrEqual(after);
    expect(ra2?.fetchedAt).toBe(ra?.fetchedAt);
    expect(rm).toMatchObject({ status: 'missing' });
    expect(rm?.fetchedAt).toBeGreaterThanOrEqual(before);
    expect(rc).toMatchObject({ cached: true, fetchedAt: second(cachedAt) });

    // A second run reads them all from the cache, and says the same times; a repeat of a host not held is
    // answered from the seen-set and says its time too.
    const again = await h.run('profile', [a, 'nobody-holds-this.example', b, 'nobody-holds-this.example', c]);
    expect(again.rows.map((r) => r.fetchedAt)).toEqual([ra?.fetchedAt, rm?.fetchedAt, again.rows[2]?.fetchedAt, rm?.fetchedAt, second(cachedAt)]);
    expect(again.stats.stale).toBe(0);
  });
});

describe('which failures an older answer stands in for, and the words for why', () => {
  it('the service unreachable, slow, failing or unreadable: yes; a host the service refuses or a refused key: no', () => {
    const refused = new NetworkError('batch: connection failed (ECONNREFUSED)', { code: 'ECONNREFUSED' });
    const slow = new NetworkError('batch: no answer within 10 ms', { code: 'timeout' });
    const failing = new ServerError('batch: 502', { code: 'server_error', status: 502 });
    const garbled = new ProtocolError('batch: not JSON', { code: 'bad_json' });
    expect([refused, slow, failing, garbled, undefined].every(mayStandIn)).toBe(true);
    expect(mayStandIn(new BadRequestError('bad host', { code: 'invalid_host', status: 400 }))).toBe(false);
    expect(mayStandIn(new InvalidKeyError('revoked', { code: 'invalid_key', status: 401 }))).toBe(false);
    expect([refused, slow, failing, garbled].map(failureCause)).toEqual([
      'the service could not be reached',
      'the service did not answer in time',
      'the service kept failing (502)',
      "the service's answers could not be read",
    ]);
  });
});
