// The part of undici the client uses: the Agent (pooled keep-alive connections) and request(), taken from
// the files that hold them. undici's index also loads fetch, WebSocket, caches, cookies, mocks and the
// proxy agents, none of which the client uses: two thirds of its load time, paid by every one-host
// lookup. Loaded by the client on its first request. The build bundles these files (scripts/build.mjs).
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import requestFn from 'undici/lib/api/api-request.js';
import util from 'undici/lib/core/util.js';

export const Agent: typeof UndiciAgent = AgentClass;

/** undici's request() as its top-level `request(url, { dispatcher })` runs it: with the dispatcher as `this`. */
export const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData> = requestFn;

/** undici's own URL check, the one its top-level request() applies. */
export const parseURL: (url: string) => URL = util.parseURL;
