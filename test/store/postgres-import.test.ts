// `store import` at the library's level: a local SQLite cache's answers and history copied into a PostgreSQL
// store that already holds some of the same hosts, each case of the merge on clocks the test sets: a newer local
// answer replaces the shared one (whose history the trigger keeps), an older one becomes a past answer, the
// local history comes along, and a second import adds nothing.
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { openPostgresStore } from '../../src/store/postgres/backend.js';
import { profile } from './cache-helpers.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL, sql, urlOf } from './postgres-helpers.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const SECOND = 1000;
const withTech = (host: string, technologies: string[]) => ({ ...profile(host), technologies });
const found = (host: string, technologies: string[]) => ({ endpoint: 'domain', host, status: 'found' as const, body: withTech(host, technologies) });

describe.skipIf(PG_URL === null)('PostgreSQL store: importing a local cache', () => {
  it('merges by fetch time, keeps both histories, copies bodies as kept, and adds nothing the second time', async () => {
    const schema = freshSchema();
    const clock = { now: T0 };
    const local = await openStore({ dir: tempDir(), clock: () => clock.now });
    const shared = await openPostgresStore(urlOf(schema), { clock: () => clock.now });
    try {
      // Local: a.example at T0, refreshed with a change at T0+3s (its first answer is local history); b at T0.
      await local.putMany([found('a.example', ['Nginx']), found('b.example', ['Nginx']), found('c.example', ['Nginx'])]);
      clock.now = T0 + 3 * SECOND;
      await local.putMany([found('a.example', ['Nginx', 'Shopify'])]);
      // Shared: a at T0+2s (older than the local refresh), b at T0+5s (newer than the local answer), d only here.
      clock.now = T0 + 2 * SECOND;
      await shared.putMany([found('a.example', ['Apache'])]);
      clock.now = T0 + 5 * SECOND;
      await shared.putMany([found('b.example', ['Caddy']), found('d.example', ['Caddy'])]);

      const first = await shared.importAll?.((local.exportAll as NonNullable<typeof local.exportAll>)());
      // a replaced, c added; the local history of a, and b's older local answer as a past one.
      expect(first).toEqual({ answers: 2, history: 2 });
      const answers = await sql<{ host: string; body: string; fetched_at: number }>(
        `SELECT host, body, fetched_at::float8 AS fetched_at FROM ${schema}.answers ORDER BY host`,
      );
      expect(answers.map((r) => [r.host, (JSON.parse(r.body) as { technologies: string[] }).technologies, r.fetched_at - T0])).toEqual([
        ['a.example', ['Nginx', 'Shopify'], 3 * SECOND],
        ['b.example', ['Caddy'], 5 * SECOND],
        ['c.example', ['Nginx'], 0],
        ['d.example', ['Caddy'], 5 * SECOND],
      ]);
      // The body as the local cache kept it, byte for byte.
      expect(answers[0]?.body).toBe(JSON.stringify(withTech('a.example', ['Nginx', 'Shopify'])));
      const history = async () =>
        (
          await sql<{ host: string; body: string; fetched_at: number; replaced_at: number }>(
            `SELECT host, body, fetched_at::float8 AS fetched_at, replaced_at::float8 AS replaced_at FROM ${schema}.history ORDER BY host, fetched_at`,
          )
        ).map((r) => [r.host, (JSON.parse(r.body) as { technologies: string[] }).technologies, r.fetched_at - T0, r.replaced_at - T0]);
      const past = [
        ['a.example', ['Nginx'], 0, 3 * SECOND], // the local history
        ['a.example', ['Apache'], 2 * SECOND, 3 * SECOND], // the shared answer the import replaced (the trigger's)
        ['b.example', ['Nginx'], 0, 5 * SECOND], // the older local answer, a past one
      ];
      expect(await history()).toEqual(past);
      // The feed reads it as a refresh's: a.example's latest answer replaced the Apache one.
      const [replaced] = await shared.past.replacedByMany('domain', [{ host: 'a.example', at: T0 + 3 * SECOND }]);
      expect(replaced?.fetchedAt).toBe(T0 + 2 * SECOND);

      const second = await shared.importAll?.((local.exportAll as NonNullable<typeof local.exportAll>)());
      expect(second).toEqual({ answers: 0, history: 0 });
      expect(await history()).toEqual(past);
    } finally {
      await Promise.all([local.close(), shared.close()]);
    }
  });
});
