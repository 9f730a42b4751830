// The store contract (contract.ts) against the SQLite backend, opened as the CLI opens it (store/open.ts):
// another handle is another connection to the same files, as a second process holds.
import type { Store } from '../../src/store/contract.js';
import { accountReads, openAccount, openStore } from '../../src/store/open.js';
import { storeContract } from './contract.js';
import { tempDir } from './helpers.js';

storeContract({
  name: 'sqlite',
  async open(clock) {
    const dir = tempDir();
    const handles: { close(): Promise<void> }[] = [];
    const kept = <T extends { close(): Promise<void> }>(handle: T): T => {
      handles.push(handle);
      return handle;
    };
    const connect = async (): Promise<Store> => kept(await openStore({ dir, clock }));
    return {
      store: await connect(),
      connect,
      account: async (baseUrl, key) => kept(await openAccount({ dir, baseUrl, key, clock })),
      reads: () => accountReads({ dir }),
      async close() {
        for (const h of handles.splice(0)) await h.close();
      },
    };
  },
});
