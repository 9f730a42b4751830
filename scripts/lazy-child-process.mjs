// An esbuild plugin for the bundle of commander (scripts/build.mjs). commander's Command requires
// node:child_process when it loads, for the one thing it uses it for: spawning a stand-alone executable
// subcommand, which this CLI has none of. Loading node:child_process costs every start, --help included (it
// pulls in net, dgram and their kin: issue 27). The bundle has instead a stand-in whose spawn() requires it
// on first use. It edits commander's source text: test/cli/commander-lazy.test.ts checks the line is there
// and that spawn() is all commander takes from the module.
import { sourceEdit } from './source-edit.mjs';

/** The line of commander/lib/command.js that loads node:child_process eagerly. */
export const EAGER_CP = "const childProcess = require('node:child_process');";
/** What the bundle has instead: spawn(), requiring the module on its first call. */
export const LAZY_CP = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";

/** Rewrites EAGER_CP to LAZY_CP as esbuild loads commander's command.js; warns (and changes nothing) if the line is gone. */
export function lazyChildProcess() {
  return sourceEdit({
    name: 'lazy-child-process',
    filter: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    file: 'commander/lib/command.js',
    eager: EAGER_CP,
    lazy: LAZY_CP,
    what: 'node:child_process',
  });
}
