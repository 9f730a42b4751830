// Bundles the CLI and the library into dist/ with esbuild: one file each, so start-up reads one module
// instead of resolving hundreds under node_modules. Native and heavy dependencies stay external and are
// imported lazily where they are used.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

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
await build({ ...common, entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts' }, outdir: 'dist', splitting: true, chunkNames: 'chunks/[name]-[hash]' });

/**
 * undici's Client requires its HTTP/2 half when it loads, and with it node:http2 and node:tls: about 20 ms
 * of a lookup, for connections the client never makes (its Agent does not set allowH2, so it offers only
 * HTTP/1.1). The bundle loads that half on its first use instead. Should undici change the line, the build
 * says so and the bundle simply loads it eagerly, as before.
 */
function lazyHttp2() {
  const eager = "const connectH2 = require('./client-h2.js')";
  const lazy = "const connectH2 = (...args) => require('./client-h2.js')(...args)";
  return {
    name: 'lazy-http2',
    setup(b) {
      b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (text.includes(eager)) return { contents: text.replace(eager, lazy), loader: 'js' };
        return { contents: text, loader: 'js', warnings: [{ text: 'lazy-http2: undici/lib/dispatcher/client.js has changed; HTTP/2 support loads eagerly' }] };
      });
    },
  };
}
