// `npm run docs`: writes the option reference, docs/options.md, from the option table (src/cli/options/table.ts),
// between its markers. The table is TypeScript, so the generator is bundled with esbuild first, as the build does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const page = new URL('../docs/options.md', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'domain-intel-docs-'));
try {
  const file = join(dir, 'options-doc.mjs');
  await build({
    entryPoints: [new URL('../src/cli/options/doc.ts', import.meta.url).pathname],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
    // commander is CommonJS and calls require() for node: built-ins; ESM output has none of its own.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const { withOptionsSection } = await import(pathToFileURL(file).href);
  const before = readFileSync(page, 'utf8');
  const after = withOptionsSection(before);
  if (after === before) console.log('docs/options.md: the option reference is up to date');
  else {
    writeFileSync(page, after);
    console.log('docs/options.md: option reference rewritten from src/cli/options/table.ts');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
