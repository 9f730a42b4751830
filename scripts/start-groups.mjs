// An esbuild plugin for the CLI's bundle (scripts/build.mjs): the modules a start-up path loads, in a few files.
//
// With splitting, esbuild gives every set of entry points (the CLI, and each `import()` target) that reach a
// module a chunk of its own. The CLI's lazy imports reach the modules of `--help` and of a cached `lookup` in
// dozens of different sets, so `--help` loaded 21 files and a cached lookup 60, and each file costs its own
// resolve, read, compile and link (about 1 ms of CPU each on the bench machine: issue 27). esbuild does not
// know that a lazy import runs only once the CLI's own modules are loaded.
//
// So each start-up path is a group of modules, and every lazy import enters its module through a small
// module of its own that first imports, for their side effects alone, every group its module touches. Every
// module of a group is then reached by the same entry points, and esbuild puts the group in one chunk. The
// groups are the closures of the roots given, found from a first pass's metafile; a group holds no module of
// an earlier one. At run time nothing changes but the files: a lazily imported module still loads when it
// did, and a group is whole once any of it is (what is loaded and in what order is decided by the imports).
// Two finishing touches: the CLI's entry imports its own group's anchor too (last, so its own imports still
// decide the order), or the anchor would make a chunk of its own; and a lazy import of a module of the
// importer's own group becomes a static one (the module is in the same chunk, loaded already), unless the
// module imports the importer back.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The groups of the CLI's bundle, from a first pass's metafile (`meta`) and the roots of each group (paths
 * relative to the working directory, as the metafile names inputs). `static` names the CLI's entry: its own
 * closure (the entry excluded) is the first group. Returns the plugin for the second pass.
 */
export function startGroups(meta, { entry, groups: roots }) {
  const inputs = meta.inputs;
  const staticImports = (path) => (inputs[path]?.imports ?? []).filter((i) => !i.external && i.kind !== 'dynamic-import').map((i) => i.path);
  const closure = (starts) => {
    const seen = new Set();
    const todo = [...starts];
    while (todo.length > 0) {
      const path = todo.pop();
      if (seen.has(path)) continue;
      if (inputs[path] === undefined) throw new Error(`start-groups: ${path} is not in the bundle`);
      seen.add(path);
      todo.push(...staticImports(path));
    }
    return seen;
  };
  const taken = new Set([entry]);
  const groups = [];
  for (const [name, starts] of [['startup', staticImports(entry)], ...Object.entries(roots)]) {
    const members = [...closure(starts)].filter((path) => !taken.has(path)).sort();
    for (const path of members) taken.add(path);
    groups.push({ name, members: new Set(members) });
  }
  const groupOf = new Map(groups.flatMap((g) => [...g.members].map((path) => [path, g])));

  /** The groups a lazily imported module touches, and those those touch in turn. */
  const touched = (path) => {
    const found = new Set([groups[0]]); // the CLI's own group is loaded before any lazy import
    const todo = [...closure([path])];
    while (todo.length > 0) {
      const g = groupOf.get(todo.pop());
      if (g === undefined || found.has(g)) continue;
      found.add(g);
      todo.push(...closure(g.members));
    }
    return groups.filter((g) => found.has(g));
  };
  /** Whether the lazily imported module has a default export (`export *` passes on every other). */
  const hasDefault = (path) => Object.values(meta.outputs).some((o) => o.entryPoint === path && o.exports.includes('default'));

  const cwd = process.cwd();
  /** The source of `file` (relative path `path`) as the bundle takes it, or undefined to take it as it is. */
  const rewrite = (file, path) => {
    const group = groupOf.get(path);
    if (group === undefined && path !== entry) return undefined;
    const text = readFileSync(file, 'utf8');
    if (path === entry) return `${text}\nimport ${JSON.stringify(`start-group:${groups[0].name}`)};\n`;
    const calls = [];
    const visit = (node) => {
      if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments.length === 1 &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        const spec = node.arguments[0].text;
        const target = relative(cwd, resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        if (spec.startsWith('.') && groupOf.get(target) === group && !closure([target]).has(path)) calls.push({ node, spec });
      }
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
    if (calls.length === 0) return undefined;
    let out = text;
    const heads = [];
    for (const [i, { node, spec }] of [...calls.entries()].reverse()) {
      out = `${out.slice(0, node.getStart())}Promise.resolve(__startGroupNs${i})${out.slice(node.getEnd())}`;
      heads.push(`import * as __startGroupNs${i} from ${JSON.stringify(spec)};`);
    }
    return `${heads.join(' ')}${out}`;
  };
  return {
    name: 'start-groups',
    setup(b) {
      b.onLoad({ filter: /\.ts$/, namespace: 'file' }, (args) => {
        const contents = rewrite(args.path, relative(cwd, args.path));
        return contents === undefined ? undefined : { contents, loader: 'ts', resolveDir: dirname(args.path) };
      });
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.namespace !== 'file') return undefined;
        const r = await b.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir, importer: args.importer });
        if (r.errors.length > 0 || r.external || inputs[relative(cwd, r.path)] === undefined) return undefined;
        return { path: r.path, namespace: 'start-entry' };
      });
      b.onLoad({ filter: /.*/, namespace: 'start-entry' }, (args) => {
        const path = relative(cwd, args.path);
        const lines = touched(path).map((g) => `import ${JSON.stringify(`start-group:${g.name}`)};`);
        lines.push(`export * from ${JSON.stringify(args.path)};`);
        if (hasDefault(path)) lines.push(`export { default } from ${JSON.stringify(args.path)};`);
        return { contents: lines.join('\n'), loader: 'js', resolveDir: dirname(args.path) };
      });
      b.onResolve({ filter: /^start-group:/ }, (args) => ({ path: args.path.slice('start-group:'.length), namespace: 'start-group' }));
      b.onLoad({ filter: /.*/, namespace: 'start-group' }, (args) => {
        const g = groups.find((x) => x.name === args.path);
        // CommonJS files are reached through the ES modules that import them; importing them here would run them.
        // Re-exported rather than imported bare: esbuild drops a bare import of a package marked free of side effects (chalk).
        const esm = [...g.members].filter((path) => inputs[path].format !== 'cjs');
        const lines = esm.map((path, i) => `export * as m${i} from ${JSON.stringify(resolve(cwd, path))};`);
        return { contents: lines.join('\n'), loader: 'js', resolveDir: cwd };
      });
    },
  };
}
