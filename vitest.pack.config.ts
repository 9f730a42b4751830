// `npm run test:pack`: only the packed-tarball install test, which `npm test` leaves out (see vitest.config.ts).
import { configDefaults, defineConfig } from 'vitest/config';
import { common, PACK_TEST } from './vitest.config.js';

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: { ...common, include: [PACK_TEST], exclude: configDefaults.exclude },
});
