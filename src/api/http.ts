// The part of undici the client uses: the Agent (pooled keep-alive connections) and request(), taken from
// the files that hold them (and, with a proxy only, its ProxyAgent: proxy-agent.ts). undici's index also loads
// fetch, WebSocket, caches, cookies and mocks, none of which the client uses: through the index, `lookup <host>` misses its start-up target
// (2.5x `node -e 0`; figures in BENCHMARKS.md, "Dependency routes"). These are undici's private files, so
// package.json pins undici to an exact version and test/api/undici-pin.test.ts fails when they change.
// Loaded by the client on its first request; the build bundles these files (scripts/build.mjs).
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import requestFn from 'undici/lib/api/api-request.js';
import util from 'undici/lib/core/util.js';

export const Agent: typeof UndiciAgent = AgentClass;

/** undici's request() as its top-level `request(url, { dispatcher })` runs it: with the dispatcher as `this`. */
export const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData> = requestFn;

/** undici's own URL check, the one its top-level request() applies. */
export const parseURL: (url: string) => URL = util.parseURL;
