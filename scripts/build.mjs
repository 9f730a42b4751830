// Bundles the CLI and the library into dist/ with esbuild: one file each, so start-up reads one module
// instead of resolving hundreds under node_modules. Native and heavy dependencies stay external and are
// imported lazily where they are used.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { lazyHttp2 } from './lazy-http2.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// commander and chalk are small and needed at start-up: bundled, they cost no module resolution. undici is
// bundled too, as far as src/api/http.ts takes it (the Agent and request(), not fetch and the rest): every
// network command loads it, and resolving its ~40 files one by one costs more than reading them in one. The
// rest stay external: better-sqlite3 is native, and the others load lazily only when a command needs them.
const bundled = new Set(['commander', 'chalk', 'undici']);
const external = Object.keys(pkg.dependencies ?? {}).filter((name) => !bundled.has(name));
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external,
  define: { __VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
  plugins: [lazyHttp2()],
  // Bundled CommonJS (commander, undici) calls require() for node: built-ins; ESM output has none of its own.
  banner: { js: "import { createRequire as __diCreateRequire } from 'node:module'; const require = __diCreateRequire(import.meta.url);" },
};
// Chunk names carry a content hash: without a clean start, every build would leave its old chunks behind
// (and npm pack would ship them).
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { cli: 'src/cli/entry.ts', index: 'src/index.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
