// undici's ProxyAgent, taken from the file that holds it as http.ts takes the Agent (undici is pinned; see
// test/api/undici-pin.test.ts), and loaded only when a proxy is in force: a run without one never reads it.
// ProxyAgent opens its CONNECT tunnels with `connect()`, which undici's index puts on every dispatcher's
// prototype; taken without the index, it is put there here, as the index does (the same function).
import type { ProxyAgent as UndiciProxyAgent } from 'undici';
import connect from 'undici/lib/api/api-connect.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgentClass from 'undici/lib/dispatcher/proxy-agent.js';

const prototype = Dispatcher.prototype as { connect?: unknown };
prototype.connect ??= connect;

export const ProxyAgent: typeof UndiciProxyAgent = ProxyAgentClass;
