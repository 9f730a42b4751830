// The store contract (src/store/contract.ts), one suite for every backend: each backend's test file hands
// `storeContract` a factory, and the same tests run against it (contract-memory.test.ts,
// contract-sqlite.test.ts; PostgreSQL adds a third). Time is the injected clock, moved by hand; "another
// connection" is a second handle on the same store, as a second process would hold (two SQLite connections
// on one file, two handles on one memory store).
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountReads, AccountState, AnswerPut, Store } from '../../src/store/contract.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const A = 'https://api.example/api/v1';
const KEY = `di_live_${'0123456789abcdef'.repeat(3)}`;

/** A store made for one test, on a clock the test moves. */
interface Opened {
  /** The first handle. */
  store: Store;
  /** Another handle on the same store, as another process would hold (closed by `close`). */
  connect(): Promise<Store>;
  /** The state of an account in this store; two calls are two handles on the same account. */
  account(baseUrl: string, key: string): Promise<AccountState>;
  /** The reads of every account, where the backend keeps accounts past the process (else undefined). */
  reads?: () => Promise<AccountReads>;
  /** Closes every handle and removes what the store left. */
  close(): Promise<void>;
}

export interface ContractBackend {
  name: string;
  open(clock: () => number): Promise<Opened>;
}

const profile = (host: string, technologies = ['Nginx'], extra: Record<string, unknown> = {}) => ({ domain: host, technologies, ...extra });
const found = (host: string, body: unknown = profile(host), endpoint = 'domain'): AnswerPut => ({ endpoint, host, status: 'found', body });
const missing = (host: string, endpoint = 'domain'): AnswerPut => ({ endpoint, host, status: 'missing', body: null });
const sorted = <T>(list: Iterable<T>) => [...list].sort();

/** The contract's tests, against the backend `b`. */
export function storeContract(b: ContractBackend): void {
  describe(`the store contract (${b.name})`, () => {
    const clock = { now: T0 };
    let opened: Opened | undefined;
    const open = async () => {
      clock.now = T0;
      opened = await b.open(() => clock.now);
      return opened;
    };
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });

    describe('answers', () => {
      it('reads by age: an answer exactly maxAgeMs old is used, an older one only at any age; endpoints apart', async () => {
        const { store } = await open();
        await store.putMany([found('old.example'), missing('gone.example')]);
        clock.now += 10 * DAY;
        await store.putMany([found('new.example')]);
        const hosts = ['old.example', 'gone.example', 'new.example', 'none.example', 'new.example'];
        expect(sorted((await store.getMany('domain', hosts, 5 * DAY)).keys())).toEqual(['new.example']);
        expect(sorted((await store.getMany('domain', hosts, 10 * DAY)).keys())).toEqual(['gone.example', 'new.example', 'old.example']);
        const all = await store.getMany('domain', hosts, Number.POSITIVE_INFINITY);
        expect(all.get('old.example')).toMatchObject({ status: 'found', body: profile('old.example'), fetchedAt: T0 });
        expect(all.get('gone.example')).toMatchObject({ status: 'missing', body: null, fetchedAt: T0 });
        expect(all.has('none.example')).toBe(false);
        expect((await store.getMany('traffic', hosts, Number.POSITIVE_INFINITY)).size).toBe(0);
        expect((await store.getMany('domain', [], DAY)).size).toBe(0);
      });

      it('putMany resolves to when it recorded the answers, which they say; previousAt tells a first fetch from a later one', async () => {
        const o = await open();
        const at = await o.store.putMany([found('a.example'), found('b.example')]);
        expect(at).toBe(T0);
        expect((await o.store.getMany('domain', ['a.example'], DAY)).get('a.example')?.fetchedAt).toBe(T0);
        clock.now += DAY;
        expect(await o.store.putMany([found('a.example')])).toBe(T0 + DAY);
        expect(await o.store.putMany([])).toBe(T0 + DAY); // nothing stored, the time all the same
        // Once merged (a fresh handle reads what the writer left), a host fetched before says when.
        await o.store.close();
        const reader = await o.connect();
        const held = await reader.getMany('domain', ['a.example', 'b.example'], Number.POSITIVE_INFINITY);
        expect(held.get('a.example')).toMatchObject({ fetchedAt: T0 + DAY, previousAt: T0 });
        expect(held.get('b.example')).toMatchObject({ fetchedAt: T0, previousAt: null });
      });

      it('holdsAny says whether any answer of any age is held for an endpoint', async () => {
        const { store } = await open();
        expect(await store.holdsAny('domain')).toBe(false);
        await store.putMany([missing('a.example', 'traffic')]);
        clock.now += 400 * DAY;
        expect(await store.holdsAny('traffic')).toBe(true);
        expect(await store.holdsAny('domain')).toBe(false);
      });

      it('getFresh sees what another connection stored, a batch not merged yet included, for the hosts and endpoint asked', async () => {
        const o = await open();
        const other = await o.connect();
        await o.store.join();
        await other.join();
        clock.now += 1000;
        await other.putMany([found('x.example'), missing('y.example'), found('z.example', { host: 'z.example' }, 'traffic')]);
        const fresh = await o.store.getFresh('domain', ['x.example', 'y.example', 'z.example', 'none.example'], DAY);
        expect(sorted(fresh.keys())).toEqual(['x.example', 'y.example']);
        expect(fresh.get('x.example')).toMatchObject({ status: 'found', body: profile('x.example'), fetchedAt: T0 + 1000 });
        expect(fresh.get('y.example')).toMatchObject({ status: 'missing', body: null });
        // Not older than asked.
        clock.now += 2 * DAY;
        expect((await o.store.getFresh('domain', ['x.example'], DAY)).size).toBe(0);
      });
    });

    describe('claims and presence', () => {
      it('presence: a run joining alone learns it is alone; the next learns of the first; one that left is not counted', async () => {
        const o = await open();
        const second = await o.connect();
        const third = await o.connect();
        expect(await o.store.join()).toBe(false);
        expect(await second.join()).toBe(true);
        await o.store.leave();
        await second.leave();
        expect(await third.join()).toBe(false);
      });

      it('a host another connection is buying is reported busy, and free again once stored or released', async () => {
        const o = await open();
        const [a, b2] = [o.store, await o.connect()];
        // As a run does: join, then before each batch claim and getFresh.
        const claim = async (s: Store, hosts: string[]) => {
          const busy = sorted(await s.claim('domain', hosts));
          await s.getFresh('domain', hosts, DAY);
          return busy;
        };
        await a.join();
        await b2.join();
        expect(await claim(a, ['h1.example', 'h2.example'])).toEqual([]);
        expect(await claim(b2, ['h2.example', 'h3.example'])).toEqual(['h2.example']);
        expect(await claim(a, ['h3.example'])).toEqual(['h3.example']); // b claimed h3
        // Stored: the claim ends, and the answer is there to find.
        await a.putMany([missing('h2.example')]);
        expect(await claim(b2, ['h2.example'])).toEqual([]);
        expect((await b2.getFresh('domain', ['h2.example'], DAY)).get('h2.example')?.status).toBe('missing');
        // Released (its lookup gave up): free at once.
        await a.release('domain', ['h1.example']);
        expect(await claim(b2, ['h1.example'])).toEqual([]);
        // Another endpoint's host of the same name is not the same claim.
        await b2.getFresh('traffic', ['h3.example'], DAY);
        expect(await a.claim('traffic', ['h3.example'])).toEqual([]);
      });

      it('a run that believes itself alone claims all the same: one that joins a moment later finds its claims', async () => {
        const o = await open();
        const [a, b2] = [o.store, await o.connect()];
        expect(await a.join()).toBe(false); // alone when it looked
        expect(await a.claim('domain', ['h1.example', 'h2.example'])).toEqual([]);
        expect(await b2.join()).toBe(true);
        expect(sorted(await b2.claim('domain', ['h1.example', 'h2.example', 'h3.example']))).toEqual(['h1.example', 'h2.example']);
        // Stored, the claim ends: the later run, claiming first and looking next, finds the answer.
        await a.putMany([found('h1.example')]);
        expect(await b2.claim('domain', ['h1.example'])).toEqual([]);
        expect((await b2.getFresh('domain', ['h1.example'], DAY)).get('h1.example')?.status).toBe('found');
      });

      it('a run that left holds nothing: the claims it still had end with it', async () => {
        const o = await open();
        const [a, b2] = [o.store, await o.connect()];
        await a.join();
        await b2.join();
        expect(await a.claim('domain', ['h1.example', 'h2.example'])).toEqual([]);
        expect(await b2.claim('domain', ['h1.example'])).toEqual(['h1.example']);
        await a.leave(); // its lookups left unsent by a stop, or unanswered
        expect(await b2.claim('domain', ['h1.example', 'h2.example'])).toEqual([]);
      });
    });

    describe('history', () => {
      /** Two fetches a day apart, written by one connection and read by another once merged. */
      async function twoFetches() {
        const o = await open();
        await o.store.putMany([found('a.example')]); // a lone answer
        await o.store.putMany([found('b.example'), found('c.example'), missing('d.example')]); // a batch
        clock.now += DAY;
        await o.store.putMany([found('a.example')]); // the same again: nothing kept
        await o.store.putMany([found('b.example', profile('b.example', ['Nginx', 'Shopify'])), found('c.example'), found('d.example')]);
        await o.store.close();
        return { o, reads: (await o.connect()).past };
      }

      it('keeps the answer a differing refresh replaced, and nothing for the same answer; history newest first', async () => {
        const { reads } = await twoFetches();
        expect(await reads.history('domain', 'a.example')).toEqual([]);
        expect(await reads.history('domain', 'c.example')).toEqual([]);
        expect(await reads.history('domain', 'b.example')).toEqual([{ status: 'found', body: profile('b.example'), fetchedAt: T0, replacedAt: T0 + DAY }]);
        expect(await reads.history('domain', 'd.example')).toEqual([{ status: 'missing', body: null, fetchedAt: T0, replacedAt: T0 + DAY }]);
        expect(await reads.history('domain', 'none.example')).toEqual([]);
      });

      it('replacedByMany: for each ask, in order, the answer the fetch at that second replaced, else null', async () => {
        const { reads } = await twoFetches();
        const asks = [
          { host: 'b.example', at: T0 + DAY + 300 },
          { host: 'b.example', at: T0 + DAY + 1000 },
          { host: 'b.example', at: T0 + DAY - 1000 },
          { host: 'c.example', at: T0 + DAY },
          { host: 'none.example', at: T0 + DAY },
          { host: 'd.example', at: T0 + DAY - 250 },
        ];
        expect(await reads.replacedByMany('domain', asks)).toEqual([
          { status: 'found', body: profile('b.example'), fetchedAt: T0, replacedAt: T0 + DAY },
          null,
          null,
          null,
          null,
          { status: 'missing', body: null, fetchedAt: T0, replacedAt: T0 + DAY },
        ]);
        expect(await reads.replacedByMany('domain', [])).toEqual([]);
      });

      it('latest, pastAmong and previous: the answer held now, which hosts have a past, and the answer held at a moment', async () => {
        const { reads } = await twoFetches();
        const now = { status: 'found', body: profile('b.example', ['Nginx', 'Shopify']), fetchedAt: T0 + DAY, replacedAt: null };
        expect(await reads.latest('domain', 'b.example')).toEqual(now);
        expect(await reads.latest('domain', 'none.example')).toBeNull();
        const among = await reads.pastAmong('domain', ['a.example', 'b.example', 'd.example', 'none.example']);
        expect(new Map(sorted(among))).toEqual(
          new Map([
            ['a.example', false],
            ['b.example', true],
            ['d.example', true],
          ]),
        );
        expect(await reads.previous('domain', 'b.example')).toMatchObject({ body: profile('b.example'), fetchedAt: T0, replacedAt: T0 + DAY });
        expect(await reads.previous('domain', 'b.example', T0 + 1)).toMatchObject({ body: profile('b.example'), replacedAt: T0 + DAY });
        expect(await reads.previous('domain', 'b.example', T0 + DAY + 1)).toEqual(now);
        expect(await reads.previous('domain', 'a.example')).toBeNull();
        expect(await reads.previous('domain', 'none.example', T0)).toBeNull();
      });

      it('hostsWithHistory pages the hosts with a past, in host order, after the one given', async () => {
        const o = await open();
        const hosts = ['e.example', 'a.example', 'c.example', 'b.example'];
        await o.store.putMany([...hosts.map((h) => found(h)), found('plain.example')]);
        clock.now += DAY;
        await o.store.putMany(hosts.map((h) => found(h, profile(h, ['Other']))));
        await o.store.close();
        const reads = (await o.connect()).past;
        expect(await reads.hostsWithHistory('domain', null, 3)).toEqual(['a.example', 'b.example', 'c.example']);
        expect(await reads.hostsWithHistory('domain', 'c.example', 3)).toEqual(['e.example']);
        expect(await reads.hostsWithHistory('traffic', null, 3)).toEqual([]);
      });

      it("a profile's age_days alone moving keeps nothing; another field moving keeps the answer", async () => {
        const o = await open();
        await o.store.putMany([found('a.example', profile('a.example', ['Nginx'], { age_days: 100 }))]);
        clock.now += DAY;
        await o.store.putMany([found('a.example', profile('a.example', ['Nginx'], { age_days: 101 }))]);
        clock.now += DAY;
        await o.store.putMany([found('a.example', profile('a.example', ['Shopify'], { age_days: 102 }))]);
        await o.store.close();
        const reads = (await o.connect()).past;
        expect(await reads.history('domain', 'a.example')).toEqual([
          { status: 'found', body: profile('a.example', ['Nginx'], { age_days: 101 }), fetchedAt: T0 + DAY, replacedAt: T0 + 2 * DAY },
        ]);
      });
    });

    describe('upkeep', () => {
      it('stats counts answers and history; prune drops old answers with their history; pruneHistory old history; clear all', async () => {
        const o = await open();
        await o.store.putMany([found('a.example'), found('b.example'), missing('c.example', 'traffic')]);
        clock.now += 10 * DAY;
        await o.store.putMany([found('b.example', profile('b.example', ['Other'])), found('d.example')]);
        expect(await o.store.stats()).toMatchObject({
          entries: 4,
          found: 3,
          missing: 1,
          byEndpoint: { domain: 3, traffic: 1 },
          oldest: T0,
          newest: T0 + 10 * DAY,
          history: 1,
        });
        expect(await o.store.pruneHistory(20 * DAY)).toBe(0);
        expect(await o.store.prune(5 * DAY)).toBe(2); // a and c; b's history is younger than b, and stays
        expect((await o.store.stats()).history).toBe(1);
        clock.now += 6 * DAY; // b's past answer was replaced six days ago
        expect(await o.store.pruneHistory(7 * DAY)).toBe(0);
        expect(await o.store.pruneHistory(5 * DAY)).toBe(1);
        expect(await o.store.clear()).toBe(2);
        expect(await o.store.stats()).toMatchObject({ entries: 0, history: 0, oldest: null, newest: null });
      });
    });

    describe('the account', () => {
      const q = (remaining: number, seenAt: number, limit = 50_000) => ({
        limit,
        remaining,
        reset: new Date(T0 + 30 * DAY),
        resetRaw: new Date(T0 + 30 * DAY).toISOString(),
        seenAt,
      });

      it('keeps the lowest remaining of the current period, as either handle saw it; a pack starts a new period', async () => {
        const o = await open();
        const [one, two] = [await o.account(A, KEY), await o.account(A, KEY)];
        expect(await one.quota()).toBeNull();
        await one.noteQuota(q(300, T0));
        await two.noteQuota(q(400, T0 + 1)); // arrived later, from earlier in the period
        expect(await one.quota()).toMatchObject({ baseUrl: A, remaining: 300, limit: 50_000, seenAt: T0 + 1 });
        expect(await two.quota()).toMatchObject({ remaining: 300 });
        await one.noteQuota(q(900, T0 + 2, 75_000)); // a pack
        expect(await two.quota()).toMatchObject({ remaining: 900, limit: 75_000 });
        await two.noteExhausted(T0 + 3);
        expect(await one.quota()).toMatchObject({ remaining: 0, limit: 75_000, seenAt: T0 + 3 });
        expect(one.account).toBe(two.account);
        expect(one.account).not.toContain(KEY);
      });

      it('keeps a learned rate per account; one that says nothing is not kept', async () => {
        const o = await open();
        const one = await o.account(A, KEY);
        const other = await o.account('http://127.0.0.1:9/api/v1', KEY);
        expect(await one.learnedRate()).toBeNull();
        await one.saveLearnedRate({ requests: 40, windowMs: 2000 });
        await one.saveLearnedRate({ requests: 0, windowMs: 2000 });
        expect(await (await o.account(A, KEY)).learnedRate()).toEqual({ requests: 40, windowMs: 2000 });
        expect(await other.learnedRate()).toBeNull();
        if (o.reads) {
          const reads = await o.reads();
          expect(await reads.learnedRate(A, KEY)).toEqual({ requests: 40, windowMs: 2000 });
          await one.noteQuota(q(5, T0));
          expect((await reads.quotaMemos()).map((m) => [m.baseUrl, m.remaining])).toEqual([[A, 5]]);
        }
      });

      it('keeps a rate unconfirmed until a confirmed one replaces it; an unconfirmed one never replaces a confirmed one', async () => {
        const o = await open();
        const one = await o.account(A, KEY);
        await one.saveLearnedRate({ requests: 2, windowMs: 850, unconfirmed: true });
        expect(await (await o.account(A, KEY)).learnedRate()).toEqual({ requests: 2, windowMs: 850, unconfirmed: true });
        await one.saveLearnedRate({ requests: 2, windowMs: 900.4, unconfirmed: true }); // a later bound, wider
        if (o.reads) expect(await (await o.reads()).learnedRate(A, KEY)).toEqual({ requests: 2, windowMs: 900, unconfirmed: true });
        await one.saveLearnedRate({ requests: 2, windowMs: 1000 });
        expect(await one.learnedRate()).toEqual({ requests: 2, windowMs: 1000 });
        // Another run's, stopped before confirming: the confirmed rate stands.
        await (await o.account(A, KEY)).saveLearnedRate({ requests: 3, windowMs: 400, unconfirmed: true });
        expect(await one.learnedRate()).toEqual({ requests: 2, windowMs: 1000 });
        if (o.reads) expect(await (await o.reads()).learnedRate(A, KEY)).toEqual({ requests: 2, windowMs: 1000 });
      });

      it("slots: at most `limit` held until each frees, none during a pause, and the accepted counted; shared by the account's handles", async () => {
        const o = await open();
        const s = (await o.account(A, KEY)).slots;
        // Slot times on the store's clock: a backend may take a slot long in flight for one whose run died.
        const t = clock.now;
        const [a, b2] = [await s.take(t, 2, 1000), await s.take(t, 2, 1000)];
        if (!('id' in a) || !('id' in b2)) throw new Error('a slot was refused under the limit');
        expect(await s.take(t, 2, 1000)).toEqual({ retryAt: null, paused: false }); // both in flight
        await s.answer(a.id, t + 100, true, t + 1100);
        await s.answer(b2.id, t + 200, false, t + 1200);
        expect(await s.take(t + 500, 2, 1000)).toEqual({ retryAt: t + 1100, paused: false });
        const c = await s.take(t + 1100, 2, 1000);
        expect('id' in c).toBe(true);
        if ('id' in c) await s.release(c.id);
        expect(await s.acceptedBetween(t, t + 1000)).toEqual({ count: 1, first: t });
        expect(await s.acceptedBetween(t + 1, t + 1000)).toEqual({ count: 0, first: null });
        const other = (await o.account(A, KEY)).slots;
        await other.pause(t + 3000, false, t + 1100, 1000);
        expect(await s.pausedUntil()).toBe(t + 3000);
        expect(await s.take(t + 2000, null, 1000)).toEqual({ retryAt: t + 3000, paused: true });
        await s.noteReset(5000);
        expect(sorted(await other.noteReset(4000))).toEqual([4000, 5000]);
        expect(sorted(await other.noteReset(4000))).toEqual([4000, 5000]); // each once
      });

      // Issue 26: freeing every slot at a reset is right for a fixed window only; under a sliding one only the
      // oldest request leaves it there, and the rest of the slots met a 429 in every window.
      it('slots: an announced reset frees the refused slots and the oldest accepted one, once per pause; the rest one window after their answer', async () => {
        const o = await open();
        const s = (await o.account(A, KEY)).slots;
        const other = (await o.account(A, KEY)).slots;
        const t = clock.now;
        const HOLD = 2000;
        const ids: number[] = [];
        for (const at of [t, t + 10, t + 20, t + 30]) {
          const got = await s.take(at, 4, HOLD);
          if (!('id' in got)) throw new Error('a slot was refused under the limit');
          ids.push(got.id);
        }
        const [a, b2, c, d] = ids as [number, number, number, number];
        // Answered in an order other than sent: the oldest is the first sent, not the first answered.
        await s.answer(b2, t + 40, true, t + 60_040);
        await s.answer(a, t + 50, true, t + 60_050);
        // c's request went 5 ms after its slot was granted: its start is when it was sent.
        await s.answer(c, t + 60, true, t + 60_060, t + 25);
        expect(await s.recentAccepted(t + 1000, 1)).toBe(t + 25);
        expect(await s.recentAccepted(t + 1000, 3)).toBe(t);
        expect(await s.recentAccepted(t + 1000, 4)).toBeNull();
        expect(await s.recentAccepted(t + 15, 1)).toBe(t + 10);
        const reset = t + 1500;
        await s.pause(reset, true, t + 70, HOLD);
        // The 429 of d lands during the pause, and a second 429 of the same pause: it frees no other slot.
        await s.answer(d, t + 80, false, t + 60_080);
        await other.pause(reset + 400, true, t + 90, HOLD);
        expect(await s.pausedUntil()).toBe(reset + 400);
        // At the end of the pause: a (oldest) and d (refused) are free; b2 and c are held a window after their answers.
        expect(await s.take(reset + 400, 4, HOLD)).toMatchObject({ id: expect.any(Number) });
        expect(await s.take(reset + 400, 4, HOLD)).toMatchObject({ id: expect.any(Number) });
        expect(await s.take(reset + 400, 4, HOLD)).toEqual({ retryAt: t + 40 + HOLD, paused: false });
        // A bare 429's pause frees nothing early.
        const next = t + 5000;
        for (const at of [next, next + 10]) {
          const got = await s.take(at, 6, HOLD);
          if ('id' in got) await s.answer(got.id, at + 5, true, at + 60_005);
        }
        await s.pause(next + 1000, false, next + 20, HOLD);
        expect(await s.take(next + 1000, 6, HOLD)).toMatchObject({ id: expect.any(Number) });
        expect(await s.take(next + 1001, 4, HOLD)).toEqual({ retryAt: next + 5 + HOLD, paused: false });
      });
    });
  });
}
