// Types for scripts/lazy-http2.mjs, which the undici pin test imports.
import type { Plugin } from 'esbuild';

export declare const EAGER_H2: string;
export declare const LAZY_H2: string;
export declare function lazyHttp2(): Plugin;
