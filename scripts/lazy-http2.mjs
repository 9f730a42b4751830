// An esbuild plugin for the bundle of undici (scripts/build.mjs). undici's Client requires its HTTP/2 half
// when it loads, and with it node:http2 and node:tls: time every one-host lookup pays (BENCHMARKS.md,
// "Dependency routes") for connections the client never makes (its Agent does not set allowH2, so it offers
// only HTTP/1.1). The bundle loads that half on its first use instead. It edits undici's source
// text, so undici is pinned to an exact version and test/api/undici-pin.test.ts checks the line is there.
import { sourceEdit } from './source-edit.mjs';

/** The line of undici/lib/dispatcher/client.js that loads HTTP/2 support eagerly. */
export const EAGER_H2 = "const connectH2 = require('./client-h2.js')";
/** What the bundle has instead: the same function, required on its first call. */
export const LAZY_H2 = "const connectH2 = (...args) => require('./client-h2.js')(...args)";

/** Rewrites EAGER_H2 to LAZY_H2 as esbuild loads undici's client.js; warns (and changes nothing) if the line is gone. */
export function lazyHttp2() {
  return sourceEdit({
    name: 'lazy-http2',
    filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    file: 'undici/lib/dispatcher/client.js',
    eager: EAGER_H2,
    lazy: LAZY_H2,
    what: 'HTTP/2 support',
  });
}
