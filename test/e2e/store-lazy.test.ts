// pg is loaded only when a PostgreSQL store is used (issue 25): every other command starts as it did. Told by
// node itself (NODE_DEBUG=module lists each CommonJS module loaded, as pg is) on the built bin, with a run on
// a PostgreSQL store as the control that the probe sees pg when it is loaded.
import { describe, expect, it } from 'vitest';
import { assertBuilt, cliEnv, runCli } from '../helpers/cli.js';
import { freshSchema, PG_URL, urlOf } from '../store/postgres-helpers.js';

/** How many of the modules the command loaded are pg's. */
async function pgModules(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; n: number }> {
  const r = await runCli(args, { env: { ...cliEnv(extra), NODE_DEBUG: 'module' } });
  return { code: r.code, n: r.stderr.split('\n').filter((l) => /node_modules[\\/]pg[\\/]/.test(l)).length };
}

describe.skipIf(PG_URL === null)('pg, loaded on demand', () => {
  it('is not loaded by commands on the local cache, and is by one on a PostgreSQL store', async () => {
    assertBuilt();
    for (const args of [['config', 'show'], ['cache', 'stats'], ['quota'], ['store', 'status']]) {
      const r = await pgModules(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.n, args.join(' ')).toBe(0);
    }
    const shared = await pgModules(['cache', 'stats'], { DOMAIN_INTEL_STORE: urlOf(freshSchema()) });
    expect(shared.code).toBe(0);
    expect(shared.n).toBeGreaterThan(0);
  }, 60_000);
});
