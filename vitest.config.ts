import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The packed-tarball install test (minutes: npm pack, a global install): `npm run test:pack`, not `npm test`. */
export const PACK_TEST = 'test/e2e/pack.test.ts';

/**
 * Test files that run each in a fresh process: one asserts the process prints no warning at all, which another
 * file's garbage could break (a throwaway PostgreSQL cluster); and Ctrl-C during a settings write (it counted a
 * second SIGINT when it shared a worker). The other store files were here too, each paying a fresh process's
 * imports (19 files); their PostgreSQL helpers share one pool across files now. The xlsx tests were here too,
 * for failures that were exceljs's streaming reader dropping ZIP entries at random (src/input/workbook-entries.ts).
 */
const ISOLATED = ['test/store/postgres-cluster.test.ts', 'test/config/settings-signals.test.ts'];

/**
 * The files that take longest, longest first (as measured in full runs, after issue 28 shortened some): they
 * start first, whichever project holds them, so that no long file starts last and holds the run up while
 * the other worker is idle. vitest orders by the durations in its cache, but a fresh clone (CI) has none, and it
 * then orders by file size, which put the longest file (real time: three machines pacing) near the end.
 */
const SLOW_FIRST = [
  'test/e2e/machines.test.ts',
  // Beside the machines' pacing, which needs the CPU: a throwaway cluster mostly waits for PostgreSQL.
  'test/store/postgres-cluster.test.ts',
  'test/e2e/machines-kill.test.ts',
  'test/e2e/commands.test.ts',
  'test/e2e/completion.test.ts',
  'test/e2e/shared-store-lost.test.ts',
  'test/e2e/peek.test.ts',
  'test/store/postgres-slots.test.ts',
  'test/e2e/quota.test.ts',
  'test/e2e/cooperate.test.ts',
  'test/e2e/same-instant.test.ts',
];

/** vitest's order (its cache's durations, else size), with SLOW_FIRST ahead of everything, in its order. */
class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FIRST.indexOf(relative(f.project.config.root, f.moduleId).split('\\').join('/'));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** What every run of the tests shares (`npm test`, and `npm run test:pack` in vitest.pack.config.ts). */
export const common = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // vitest's default of one worker fewer than the cores ran this suite one file at a time on a 2-core
  // machine (237 s of files, 5 min 24 s under load). One worker a core: more (4 were tried) starve the
  // tests that read a real clock (progress lines) while the property tests hold the CPU.
  maxWorkers: availableParallelism(),
  // Transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache, keyed by each file's
  // content): a second run transforms nothing it did before (transform 2.8 s -> 0.6 s over three e2e and domain
  // files). A fresh clone (CI) starts without it; `vitest --clearCache` empties it.
  experimental: { fsModuleCache: true },
} as const;

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    ...common,
    sequence: { sequencer: SlowFirst },
    projects: [
      {
        extends: true,
        // A worker keeps its modules from one file to the next: importing the CLI, the sandbox and their
        // dependencies afresh for each of ~145 files cost 66 s of imports summed. None of these files mocks a
        // module, and those that touch process-wide state (fake timers, signal listeners, environment
        // variables) put it back after themselves.
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, PACK_TEST, ...ISOLATED], isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
