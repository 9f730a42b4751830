// The store contract (contract.ts) against the memory store: two handles on one memory store stand for two
// processes; an account is the process's own (memoryAccount), the same object for each handle.
import { memoryAccount } from '../../src/store/account.js';
import type { AccountState } from '../../src/store/contract.js';
import { memoryStore } from '../../src/store/memory.js';
import { storeContract } from './contract.js';

storeContract({
  name: 'memory',
  async open(clock) {
    const store = memoryStore({ clock });
    const accounts = new Map<string, AccountState>();
    return {
      store,
      connect: async () => store.connect(),
      async account(baseUrl, key) {
        const name = `${baseUrl} ${key}`;
        const account = accounts.get(name) ?? memoryAccount(baseUrl, key);
        accounts.set(name, account);
        return account;
      },
      close: () => store.close(),
    };
  },
});
