import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/store/memory.js';

describe('memoryStore', () => {
  it('gives back what was put, by endpoint and host, found or missing', async () => {
    const store = memoryStore();
    expect(await store.holdsAny('domain')).toBe(false);
    await store.putMany([
      { endpoint: 'domain', host: 'a.example', status: 'found', body: { domain: 'a.example' } },
      { endpoint: 'traffic', host: 'a.example', status: 'missing', body: null },
    ]);
    const hits = await store.getMany('domain', ['a.example', 'b.example'], 60_000);
    expect([...hits.keys()]).toEqual(['a.example']);
    expect(hits.get('a.example')).toMatchObject({ status: 'found', body: { domain: 'a.example' } });
    expect((await store.getMany('traffic', ['a.example'], 60_000)).get('a.example')?.status).toBe('missing');
    expect(await store.holdsAny('domain')).toBe(true);
    expect(await store.holdsAny('employees')).toBe(false);
  });

  it('leaves out answers older than maxAgeMs', async () => {
    const store = memoryStore();
    await store.putMany([{ endpoint: 'domain', host: 'a.example', status: 'found', body: {} }]);
    await new Promise((r) => setTimeout(r, 15));
    expect((await store.getMany('domain', ['a.example'], 5)).size).toBe(0);
    expect((await store.getMany('domain', ['a.example'], 60_000)).size).toBe(1);
  });
});
