// openCache as a whole: answers outlive the connection that stored them, even one killed with SIGKILL.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { openCache } from '../../src/store/sqlite/cache.js';
import { DAY, get, profile, putOne } from './cache-helpers.js';
import { tempDir } from './helpers.js';

describe('openCache', () => {
  it('persists across reopen, and survives an instance that was never closed', async () => {
    const dir = tempDir();
    const first = await openCache({ dir });
    await putOne(first, 'domain', 'kept.example', 'found', profile('kept.example'));
    // No close(): the next instance must still see the committed answer.
    const second = await openCache({ dir });
    expect((await get(second, 'domain', 'kept.example', DAY))?.body).toEqual(profile('kept.example'));
    await second.close();
    await first.close();
    const third = await openCache({ dir });
    expect((await third.stats()).entries).toBe(1);
    await third.close();
  });

  it('keeps committed answers when the process is killed with SIGKILL', async () => {
    const dir = tempDir();
    const work = tempDir();
    // The real module, bundled for a plain node child; better-sqlite3 stays the installed copy: imported by its
    // path, and required (store/sqlite/driver.ts) from outside the project, so found through NODE_PATH.
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const modules = path.dirname(path.dirname(path.dirname(sqlite)));
    const bundle = path.join(work, 'cache.mjs');
    await build({
      entryPoints: [path.resolve(import.meta.dirname, '../../src/store/sqlite/cache.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
      plugins: [{ name: 'sqlite', setup: (b) => b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: pathToFileURL(sqlite).href, external: true })) }],
    });
    const child = path.join(work, 'child.mjs');
    fs.writeFileSync(
      child,
      `import { openCache } from ${JSON.stringify(pathToFileURL(bundle).href)};
       const cache = await openCache({ dir: ${JSON.stringify(dir)} });
       await cache.putMany([{ endpoint: 'domain', host: 'one.example', status: 'found', body: { domain: 'one.example' } }]); // a lone answer
       await cache.putMany([
         { endpoint: 'domain', host: 'two.example', status: 'missing', body: null },
         { endpoint: 'domain', host: 'three.example', status: 'found', body: { domain: 'three.example' } },
       ]); // a batch: appended to the journal, not merged
       process.kill(process.pid, 'SIGKILL');`,
    );
    const r = spawnSync(process.execPath, [child], { encoding: 'utf8', env: { ...process.env, NODE_PATH: modules } });
    expect(r.stderr).toBe('');
    expect(r.signal).toBe('SIGKILL');
    const cache = await openCache({ dir });
    expect(await get(cache, 'domain', 'one.example', DAY)).toMatchObject({ status: 'found', body: { domain: 'one.example' } });
    expect(await get(cache, 'domain', 'two.example', DAY)).toMatchObject({ status: 'missing', body: null });
    expect(await get(cache, 'domain', 'three.example', DAY)).toMatchObject({ status: 'found', body: { domain: 'three.example' } });
    await cache.close();
  });
});
