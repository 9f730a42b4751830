// The store contract (contract.ts) against the PostgreSQL backend, opened as the CLI opens it (store/open.ts,
// by the URL's scheme), each test in a schema of its own: another handle is another run's, as on another
// machine. The clock given stands for the server's (postgres/backend.ts), so the suite's time moves by hand.
import { describe, it } from 'vitest';
import type { Store } from '../../src/store/contract.js';
import { accountReads, openAccount, openStore } from '../../src/store/open.js';
import { storeContract } from './contract.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL, urlOf } from './postgres-helpers.js';

if (PG_URL === null) {
  describe.skip('the store contract (postgres)', () => it('needs a PostgreSQL server (postgres-helpers.ts)', () => {}));
} else {
  storeContract({
    name: 'postgres',
    async open(clock) {
      const where = { url: urlOf(freshSchema()), dir: tempDir() };
      const handles: { close(): Promise<void> }[] = [];
      const kept = <T extends { close(): Promise<void> }>(handle: T): T => {
        handles.push(handle);
        return handle;
      };
      const connect = async (): Promise<Store> => kept(await openStore({ ...where, clock }));
      return {
        store: await connect(),
        connect,
        account: async (baseUrl, key) => kept(await openAccount({ ...where, baseUrl, key, clock })),
        reads: () => accountReads(where),
        async close() {
          for (const h of handles.splice(0)) await h.close();
        },
      };
    },
  });
}
