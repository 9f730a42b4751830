// The SQLite backend (the default): the answers in cache.sqlite (or a service's own file) and each account in
// state.sqlite, both in the cache directory.
import { basename, dirname } from 'node:path';
import type { Backend } from '../backend.js';
import { openCache } from './cache.js';
import { removeCacheFiles } from './schema.js';
import { openAccountState, stateReads } from './state.js';

export const sqlite: Backend = {
  openStore: (o) => openCache({ dir: o.dir, service: o.service, clock: o.clock }),
  openAccount: (o) => openAccountState({ dir: o.dir }, o.baseUrl, o.key, o.clock, o.onTrouble),
  accountReads: (o) => stateReads({ dir: o.dir }),
  discard: async (path) => removeCacheFiles({ dir: dirname(path), file: basename(path) }),
};
