// Bundles the CLI and the library into dist/ with esbuild: one file each, so start-up reads one module
// instead of resolving hundreds under node_modules. Native and heavy dependencies stay external and are
// imported lazily where they are used.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies ?? {});
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external,
  define: { __VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
};
await build({ ...common, entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts' }, outdir: 'dist', splitting: true, chunkNames: 'chunks/[name]-[hash]' });
