// The SQLite backend (the default): the answers in cache.sqlite (or a service's own file) and each account in
// state.sqlite, both in the cache directory.
import { basename, dirname } from 'node:path';
import type { Backend } from '../backend.js';
import { openCache } from './cache.js';
import { removeCacheFiles, SCHEMA_VERSION } from './schema.js';

export const sqlite: Backend = {
  openStore: (o) => openCache({ dir: o.dir, service: o.service, clock: o.clock, throwaway: o.throwaway }),
  // The account's file loads apart: a command answered from the cache alone (a cached lookup) opens no account.
  openAccount: async (o) => (await import('./state.js')).openAccountState({ dir: o.dir }, o.baseUrl, o.key, o.clock, o.onTrouble),
  accountReads: (o) => {
    const reads = import('./state.js').then((m) => m.stateReads({ dir: o.dir }));
    return {
      quotaMemos: async () => (await reads).quotaMemos(),
      learnedRate: async (baseUrl, key) => (await reads).learnedRate(baseUrl, key),
    };
  },
  // The local cache is brought up to date whenever it opens: its status opens it, and so migrates it.
  async status(o, service) {
    const cache = await openCache({ dir: o.dir, service });
    try {
      const s = await cache.stats();
      return {
        backend: 'sqlite',
        where: s.path,
        schema: null,
        version: SCHEMA_VERSION,
        knownVersion: SCHEMA_VERSION,
        answers: s.entries,
        history: s.history,
        machines: null,
      };
    } finally {
      await cache.close();
    }
  },
  async migrate(o, service) {
    await (await openCache({ dir: o.dir, service })).close();
    return { before: SCHEMA_VERSION, after: SCHEMA_VERSION };
  },
  discard: async (path) => removeCacheFiles({ dir: dirname(path), file: basename(path) }),
};
