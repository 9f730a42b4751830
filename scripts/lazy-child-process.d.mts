// Types for scripts/lazy-child-process.mjs, which test/cli/commander-lazy.test.ts imports.
import type { Plugin } from 'esbuild';

export declare const EAGER_CP: string;
export declare const LAZY_CP: string;
export declare function lazyChildProcess(): Plugin;
