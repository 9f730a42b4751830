// The import rules of src/ (ARCHITECTURE.md), run by `npm run lint`: no circle, type imports included; nothing
// below cli/ imports from it; a store backend is imported only inside store/ (store/open.ts chooses one); and
// layers that point one way: cli -> (changes, summary) -> run -> (input, output, store, config) -> domain -> api.
// api/ is the service typed (its resources, errors and client) and imports nothing of ours but version.ts.
/** Folders below `from` may import only these (their own folder included). */
const layers = {
  api: [],
  domain: ['api'],
  config: ['api', 'domain'],
  input: ['domain', 'api'],
  output: ['domain', 'api', 'input', 'config'],
  store: ['domain', 'api', 'config'],
  run: ['domain', 'api', 'config', 'input', 'output', 'store'],
  changes: ['domain', 'api', 'config', 'input', 'output', 'store', 'run'],
  summary: ['domain', 'api', 'config', 'input', 'output', 'store', 'run'],
  sandbox: ['domain', 'api'],
};
const layerRules = Object.entries(layers).map(([from, allowed]) => ({
  name: `layer-${from}`,
  comment: `src/${from}/ may import only from ${[from, ...allowed].join(', ')} (layers point one way)`,
  severity: 'error',
  from: { path: `^src/${from}/` },
  to: { path: '^src/', pathNot: `^src/((${[from, ...allowed].join('|')})/|version\\.ts$)` },
}));
module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'an import circle, type imports included', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'store-backends-inside-store',
      comment: 'a backend is chosen in store/open.ts: nothing outside store/ imports one',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: '^src/store/(sqlite|postgres)/' },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'the library never reaches up into the CLI',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    ...layerRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
