// The SQLite backend (the default): the answers in cache.sqlite (or a service's own file) and each account in
// state.sqlite, both in the cache directory.
import { basename, dirname } from 'node:path';
import type { Backend } from '../backend.js';
import { openCache } from './cache.js';
import { removeCacheFiles } from './schema.js';

export const sqlite: Backend = {
  openStore: (o) => openCache({ dir: o.dir, service: o.service, clock: o.clock }),
  // The account's file loads apart: a command answered from the cache alone (a cached lookup) opens no account.
  openAccount: async (o) => (await import('./state.js')).openAccountState({ dir: o.dir }, o.baseUrl, o.key, o.clock, o.onTrouble),
  accountReads: (o) => {
    const reads = import('./state.js').then((m) => m.stateReads({ dir: o.dir }));
    return {
      quotaMemos: async () => (await reads).quotaMemos(),
      learnedRate: async (baseUrl, key) => (await reads).learnedRate(baseUrl, key),
    };
  },
  discard: async (path) => removeCacheFiles({ dir: dirname(path), file: basename(path) }),
};
