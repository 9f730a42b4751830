// `npm run test:pack`: only the packed-tarball install test, which `npm test` leaves out (see vitest.config.ts).
import { configDefaults, defineConfig } from 'vitest/config';
import base, { PACK_TEST } from './vitest.config.js';

// Spread, not mergeConfig: that would append to the base's include and exclude lists.
export default defineConfig({ ...base, test: { ...base.test, include: [PACK_TEST], exclude: configDefaults.exclude } });
