// An esbuild plugin that replaces one line of a dependency's source as the bundle loads it: how the build makes
// a dependency load part of itself on first use rather than at every start (lazy-http2.mjs, lazy-child-process.mjs).
// A line that is gone (the dependency changed) is left alone, with a warning; each edit's test checks it is there.
import { readFileSync } from 'node:fs';

/** A plugin named `name` rewriting `eager` to `lazy` in the file matching `filter`; `what` says what then loads eagerly. */
export function sourceEdit({ name, filter, file, eager, lazy, what }) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (text.includes(eager)) return { contents: text.replace(eager, lazy), loader: 'js' };
        return { contents: text, loader: 'js', warnings: [{ text: `${name}: ${file} has changed; ${what} loads eagerly` }] };
      });
    },
  };
}
