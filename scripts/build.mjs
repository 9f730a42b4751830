// Bundles the CLI and the library into dist/ with esbuild: one file each, so start-up reads one module
// instead of resolving hundreds under node_modules. Native and heavy dependencies stay external and are
// imported lazily where they are used.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { lazyChildProcess } from './lazy-child-process.mjs';
import { lazyHttp2 } from './lazy-http2.mjs';
import { startGroups } from './start-groups.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// commander and chalk are small and needed at start-up: bundled, they cost no module resolution. undici is
// bundled too, as far as src/api/http.ts takes it (the Agent and request(), not fetch and the rest): every
// network command loads it, and resolving its ~40 files one by one costs more than reading them in one. So is
// better-sqlite3's JavaScript (its 15 files were half of a cached lookup's modules), its native addon loaded
// from the installed package (src/store/sqlite/driver.ts checks the versions match); `bindings`, which it
// calls only when not told where the addon is, stays external. The rest stay external and load lazily, only
// when a command needs them.
const bundled = new Set(['commander', 'chalk', 'undici', 'better-sqlite3']);
const external = [...Object.keys(pkg.dependencies ?? {}).filter((name) => !bundled.has(name)), 'bindings'];
const require = createRequire(import.meta.url);
const sqliteVersion = JSON.parse(readFileSync(require.resolve('better-sqlite3/package.json'), 'utf8')).version;
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external,
  define: { __VERSION__: JSON.stringify(pkg.version), __SQLITE_VERSION__: JSON.stringify(sqliteVersion) },
  logLevel: 'warning',
  // Bundled CommonJS (commander, undici) calls require() for node: built-ins; ESM output has none of its own.
  banner: { js: "import { createRequire as __diCreateRequire } from 'node:module'; const require = __diCreateRequire(import.meta.url);" },
  outdir: 'dist',
  splitting: true,
  // Chunk names carry a content hash: without a clean start, every build would leave its old chunks behind
  // (and npm pack would ship them).
  chunkNames: 'chunks/[name]-[hash]',
};
const CLI = 'src/cli/entry.ts';
// What a cached `lookup <host>` loads beyond --help, in two groups (scripts/start-groups.mjs): the command's
// machinery, and the SQLite cache (the second apart, so a command that keeps nothing does not load SQLite).
const GROUPS = {
  command: [
    'src/cli/action.ts',
    'src/cli/commands/lookup.ts',
    'src/config/settings.ts',
    'src/config/resolve.ts',
    'src/config/proxy.ts',
    'src/store/open.ts',
    'src/cli/output/rows.ts',
  ],
  sqlite: ['src/store/sqlite/backend.ts'],
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
// The CLI twice: a first pass for its module graph, then the bundle with its start-up paths grouped.
const probe = await build({
  ...common,
  entryPoints: { cli: CLI },
  plugins: [lazyHttp2(), lazyChildProcess()],
  write: false,
  metafile: true,
  logLevel: 'error',
});
const cli = await build({
  ...common,
  entryPoints: { cli: CLI },
  plugins: [lazyHttp2(), lazyChildProcess(), startGroups(probe.metafile, { entry: CLI, groups: GROUPS })],
  metafile: true,
});
checkGroups(cli.metafile);
// The library apart: its lazy imports are its own, and it shares no start-up path with the CLI.
await build({ ...common, entryPoints: { index: 'src/index.ts' }, plugins: [lazyHttp2(), lazyChildProcess()] });

/** Fails the build if a grouping module carries code of its own: a module bundled twice would run twice. */
function checkGroups(meta) {
  for (const [name, output] of Object.entries(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (/^start-(entry|group):/.test(input) && bytesInOutput > 0) throw new Error(`${name}: ${input} holds ${bytesInOutput} bytes of code`);
    }
  }
}
