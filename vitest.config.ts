import { configDefaults, defineConfig } from 'vitest/config';

/** The packed-tarball install test (minutes: npm pack, a global install): `npm run test:pack`, not `npm test`. */
export const PACK_TEST = 'test/e2e/pack.test.ts';

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, PACK_TEST],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
