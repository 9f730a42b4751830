// The ledger of a run against every reading of the spec's open points: what was charged is what is recorded
// and reported as spent (read from the sandbox, never trusted from the client), and nothing is bought twice.
import { afterEach, describe, expect, it } from 'vitest';
import { DomainIntelClient } from '../../src/api/client.js';
import { renderSummary } from '../../src/cli/output/summary.js';
import { RateLimiter, type Ticket } from '../../src/run/limit/limiter.js';
import { type RunStats, stopText } from '../../src/run/stats.js';
import { openCache } from '../../src/store/sqlite/cache.js';
import { harness, type Harness } from '../helpers/run.js';

const DAY = 86_400_000;
let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** A real limiter that runs `before` each time a request asks for a slot (before the slot is granted). */
class HookedLimiter extends RateLimiter {
  readonly #before: () => void;
  constructor(before: () => void) {
    super({ limit: null, windowMs: 60_000, given: false });
    this.#before = before;
  }
  override acquire(signal?: AbortSignal): Promise<Ticket> {
    this.#before();
    return super.acquire(signal);
  }
}

/**
 * Sets the account to `before` lookups left now, and to `after` once the run has spent its first: another
 * client spending while the run's first answer lands, unknown to the run until its next answers.
 */
function spendElsewhere(h: Harness, before: number, after: number): (stats: Readonly<RunStats>) => void {
  h.sb.setRemaining(before);
  let spent = false;
  return (stats) => {
    if (spent || stats.lookupsSpent === 0) return;
    spent = true;
    h.sb.setRemaining(after);
  };
}

describe('the ledger: spent is what was charged', () => {
  it('takes a metered 404 for an all-absent batch as every host missing: spends 150, no error, a re-run spends 0', async () => {
    h = await harness({ rpm: 0, allAbsent: 'not-found' });
    const values = Array.from({ length: 150 }, (_, i) => `absent-${i}.example`);
    const first = await h.run('profile', values);
    expect(h.sb.requests().map((r) => r.status)).toEqual([404, 404]);
    expect(first.rows.every((r) => r.status === 'missing' && r.reason === null && !r.cached)).toBe(true);
    expect(first.stats).toMatchObject({ lookupsSpent: 150, missing: 150, errors: 0, unanswered: 0, stoppedBy: null, quotaDrop: 150 });
    expect(first.stats.lookupsSpent).toBe(h.sb.charges().total);
    expect((await h.cache.getMany('domain', values, DAY)).size).toBe(150);

    h.sb.resetCounters();
    const second = await h.run('profile', values);
    expect(h.sb.charges().total).toBe(0);
    expect(second.stats).toMatchObject({ lookupsSpent: 0, cacheHits: 150, missing: 150, errors: 0 });
    expect(second.rows.every((r) => r.status === 'missing' && r.cached)).toBe(true);
  });

  it('counts a batch served in part over quota as what was served: the rest unanswered, then stops on the quota', async () => {
    h = await harness({ rpm: 0, overQuota: 'partial' });
    const held = h.sb.hostList().slice(0, 400);
    // Two batches of 100 go out at once, believing 900 are left, where 150 are: the second to arrive is served
    // 50 of 100. (The first batch goes alone (slow start) and tells the quota, so another client spends the
    // account down as its answer lands.)
    const { rows, stats } = await h.run('profile', held, { concurrency: 2, onProgress: spendElsewhere(h, 1000, 150) });
    expect(h.sb.requests().map((r) => [r.status, r.charged])).toEqual([
      [200, 100],
      [200, 100],
      [200, 50],
    ]);
    expect(h.sb.charges().total).toBe(250);
    expect(stats).toMatchObject({ lookupsSpent: 250, unanswered: 50, found: 250, errors: 150, stoppedBy: 'quota', quotaDrop: 1000 });
    expect(stats.quota?.remaining).toBe(0);
    expect(rows.filter((r) => r.status === 'error').every((r) => r.reason === stopText('quota', null))).toBe(true);
    expect((await h.cache.getMany('domain', held, DAY)).size).toBe(250); // the left out are not recorded
    expect(renderSummary(stats)).toContain('unanswered 50: left out of the service');

    // After a pack, a re-run needs no flag and buys only the rest.
    h.sb.addPack();
    h.sb.resetCounters();
    const again = await h.run('profile', held, { concurrency: 1 });
    expect(h.sb.charges().total).toBe(150);
    expect(again.stats).toMatchObject({ lookupsSpent: 150, cacheHits: 250, found: 400, errors: 0, unanswered: 0 });
  });

  it('after a 402 for a batch that costs more than is left, sends what fits, then stops: spent 250', async () => {
    h = await harness({ rpm: 0, overQuota: 'refuse' });
    const held = h.sb.hostList().slice(0, 400);
    // Two batches of 100 go out at once, believing 900 are left, where 150 are: the second to arrive is
    // refused whole (another client spends the account down as the first answer lands, as above).
    const { rows, stats } = await h.run('profile', held, { concurrency: 2, onProgress: spendElsewhere(h, 1000, 150) });
    expect(h.sb.requests().map((r) => [r.status, r.hosts.length])).toEqual([
      [200, 100],
      [200, 100],
      [402, 100],
      [200, 50],
    ]);
    expect(h.sb.charges().total).toBe(250);
    expect(stats).toMatchObject({ lookupsSpent: 250, unanswered: 0, found: 250, errors: 150, stoppedBy: 'quota' });
    expect(rows.filter((r) => r.status === 'error').every((r) => r.reason === stopText('quota', null))).toBe(true);
  });

  it.each(['refuse', 'partial'] as const)('spends exactly what the service charged with batches in flight at once (%s)', async (overQuota) => {
    h = await harness({ rpm: 0, overQuota });
    h.sb.setRemaining(150);
    const { stats } = await h.run('profile', h.sb.hostList().slice(0, 400), { concurrency: 4 });
    expect(h.sb.charges().total).toBe(150);
    expect(stats.lookupsSpent).toBe(150);
    expect(stats.stoppedBy).toBe('quota');
    expect(stats.found + stats.errors).toBe(400);
  });

  it.each(['reversed', 'sorted'] as const)('matches batch answers in %s order, missing spelled as submitted, to the hosts sent', async (order) => {
    h = await harness({ rpm: 0, order, missingCase: 'submitted' });
    const held = h.sb.hostList().slice(0, 60);
    const values = [...held.map((x) => x.toUpperCase()), 'ABSENT-ONE.EXAMPLE', 'Absent-Two.Example'];
    const { rows, stats } = await h.run('profile', values);
    for (const r of rows.slice(0, 60)) expect(r).toMatchObject({ status: 'found', data: { domain: r.host } });
    expect(rows.slice(60).map((r) => [r.status, r.host])).toEqual([
      ['missing', 'absent-one.example'],
      ['missing', 'absent-two.example'],
    ]);
    expect(stats).toMatchObject({ lookupsSpent: 62, errors: 0, unanswered: 0 });
    expect(stats.lookupsSpent).toBe(h.sb.charges().total);
  });

  it('shows the lowest remaining of the period, not the last answer to arrive (one slow answer)', async () => {
    h = await harness({ rpm: 0, slowRequests: [1], slowMs: 400 });
    const { stats } = await h.run('profile', h.sb.hostList().slice(0, 300), { concurrency: 4 });
    const log = h.sb.requests();
    expect(log.length).toBe(3);
    const charges = h.sb.charges();
    expect(stats.quota?.remaining).toBe(charges.remaining);
    expect(stats.lookupsSpent).toBe(charges.total);
    expect(stats.quotaDrop).toBe(300);
    expect(renderSummary(stats)).not.toContain('quota check');
  });

  it('reports a fall in remaining larger than what it recorded: another client spends on the account', async () => {
    h = await harness({ rpm: 0 });
    const other = new DomainIntelClient({ baseUrl: h.sb.baseUrl, apiKey: h.sb.newKey() });
    const held = h.sb.hostList();
    const mine = held.slice(0, 300);
    // The gate runs between the run's first answer and its second: the other client spends 7 meanwhile.
    const quotaGate = async () => {
      await other.batch(held.slice(1000, 1007));
      return true;
    };
    const { stats } = await h.run('profile', mine, { concurrency: 1, quotaGate });
    await other.close();
    const charges = h.sb.charges();
    expect(charges.total).toBe(307);
    expect(mine.reduce((sum, host) => sum + (charges.byHost[host] ?? 0), 0)).toBe(stats.lookupsSpent);
    expect(stats).toMatchObject({ lookupsSpent: 300, quotaDrop: 307 });
    expect(renderSummary(stats)).toContain('quota check: remaining fell by 307, 300 recorded as spent (another run or client on the account');
  });
});

describe('the quota gate', () => {
  it('holds the run to one request, about one host, until the first quota figure is put to it; true goes on', async () => {
    h = await harness({ rpm: 0 });
    const start = h.sb.charges().remaining;
    const asked: { remaining: number | null; sent: number }[] = [];
    const quotaGate = async (q: { remaining: number | null }) => {
      asked.push({ remaining: q.remaining, sent: h.sb.requests().length });
      return true;
    };
    const { rows, stats } = await h.run('profile', h.sb.hostList().slice(0, 500), { concurrency: 4, quotaGate });
    expect(asked).toEqual([{ remaining: start - 1, sent: 1 }]);
    expect(h.sb.requests()[0]?.hosts.length).toBe(1);
    expect(rows.every((r) => r.status === 'found')).toBe(true);
    expect(stats).toMatchObject({ lookupsSpent: 500, stoppedBy: null, requests: 6 });
    expect(stats.lookupsSpent).toBe(h.sb.charges().total);
  });

  it("stops with 'short' when the gate says the quota cannot cover the run: the one answer kept, nothing more sent", async () => {
    h = await harness({ rpm: 0 });
    const { rows, stats } = await h.run('profile', h.sb.hostList().slice(0, 500), { concurrency: 4, quotaGate: async () => false });
    expect(h.sb.requests().length).toBe(1);
    expect(h.sb.charges().total).toBe(1);
    expect(stats).toMatchObject({ lookupsSpent: 1, found: 1, errors: 499, stoppedBy: 'short' });
    expect(rows[0]?.status).toBe('found');
    expect(rows.slice(1).every((r) => r.status === 'error' && r.reason === 'not looked up: the quota left cannot cover this run')).toBe(true);
  });
});

describe('processes sharing a cache', () => {
  it('does not buy a host another connection bought between planning and sending, though the cache started empty', async () => {
    h = await harness({ rpm: 0 });
    const held = h.sb.hostList().slice(0, 250);
    const other = await openCache({ dir: h.dir });
    // SQLite does the work at the call (the promise only reports it), so the hook below stays synchronous.
    const put = (hosts: string[]) =>
      void other.putMany(hosts.map((host) => ({ endpoint: 'domain', host, status: 'found' as const, body: h.sb.dataset.profile(host) })));
    let asks = 0;
    // When the first batch asks for its slot, every batch is planned: the other process buys one host of the
    // second batch alone (straight into `answers`), then 30 of the first and all of the third (unmerged).
    const limiter = new HookedLimiter(() => {
      if (asks++ > 0) return;
      put([held[150]!]);
      put([...held.slice(0, 30), ...held.slice(200)]);
    });
    const { rows, stats } = await h.run('profile', held, { limiter, concurrency: 4 });
    await other.close();
    const charges = h.sb.charges();
    expect(charges.total).toBe(250 - 81);
    expect(Math.max(...Object.values(charges.byHost))).toBe(1);
    expect(h.sb.requests().map((r) => r.hosts.length)).toEqual([70, 99]); // the third batch was not sent
    expect(stats).toMatchObject({ lookupsSpent: 169, cacheHits: 81, found: 250, errors: 0 });
    const bought = new Set([...held.slice(0, 30), held[150], ...held.slice(200)]);
    for (const r of rows) {
      expect(r.cached).toBe(bought.has(r.host!));
      expect(r.data).toEqual(h.sb.dataset.profile(r.host!));
    }
  });

  it('two runs on two handles of one cache, over lists that overlap by half, buy the overlap about once', async () => {
    h = await harness({ rpm: 0, latencyMs: 5 });
    const held = h.sb.hostList();
    const second = await openCache({ dir: h.dir });
    const [a, b] = await Promise.all([
      h.run('profile', held.slice(0, 2000), { concurrency: 2 }),
      h.run('profile', held.slice(1000, 3000), { concurrency: 2, store: second }),
    ]);
    second.close();
    const charges = h.sb.charges();
    expect(a.stats.lookupsSpent + b.stats.lookupsSpent).toBe(charges.total);
    // At most the batches each run had in flight when the other's answers landed are bought twice.
    expect(charges.total).toBeLessThanOrEqual(3000 + 2 * 2 * 100);
    expect(a.stats.cacheHits + b.stats.cacheHits).toBeGreaterThanOrEqual(1000 - 2 * 2 * 100);
    expect([...a.rows, ...b.rows].every((r) => r.status === 'found')).toBe(true);
  });
});
