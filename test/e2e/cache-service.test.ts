// An answer is only as true as the service that gave it: one cache directory used against two services (the
// sandbox, then the real one; or two sandboxes here) keeps each service's answers apart. A tryout pasted the
// sandbox's exports, later pointed at another service, and got the sandbox's made-up profile back, exit 0.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { serviceCacheFile } from '../../src/store/sqlite/cache.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

let a: Sandbox;
let b: Sandbox;
let cacheDir: string;
const envFor = (s: Sandbox) => ({ ...cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key }), DOMAIN_INTEL_CACHE_DIR: cacheDir });

beforeAll(async () => {
  [a, b] = await Promise.all([startSandbox({ port: 0 }), startSandbox({ port: 0 })]);
  cacheDir = cliEnv().DOMAIN_INTEL_CACHE_DIR as string;
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe('one cache directory, two services', () => {
  it("never answers for one service from another's answers, and keeps each service's own", async () => {
    const host = a.hostList()[0] as string;
    const first = await runInProcess(['lookup', host, '--format', 'json'], { env: envFor(a) });
    expect(first.code, first.stderr).toBe(0);
    expect(a.charges().total).toBe(1);
    // The other service is asked (and charges), though the same host is in the directory's cache.
    const other = await runInProcess(['lookup', host, '--format', 'json'], { env: envFor(b) });
    expect(other.code, other.stderr).toBe(0);
    expect(b.charges().total).toBe(1);
    // Each service's answer is still kept: asked again, neither charges.
    for (const s of [a, b]) expect((await runInProcess(['lookup', host, '--format', 'json'], { env: envFor(s) })).code).toBe(0);
    expect(a.charges().total).toBe(1);
    expect(b.charges().total).toBe(1);
    // The first service's answers are in the default file, the second's in a file of its own.
    expect(existsSync(join(cacheDir, 'cache.sqlite'))).toBe(true);
    expect(existsSync(join(cacheDir, serviceCacheFile(b.baseUrl)))).toBe(true);
    const stats = await runInProcess(['cache', 'stats'], { env: envFor(b) });
    expect((JSON.parse(stats.stdout) as { path: string }).path).toBe(join(cacheDir, serviceCacheFile(b.baseUrl)));
  });
});
