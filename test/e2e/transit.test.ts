// Answers lost in transit (issue 13): a request that timed out may have been served and charged (§8.6), so a
// retry waits longer rather than buy the same hosts again at the same pace, and the summary says how many
// lookups may have been charged with no answer to record. Charges are read from the sandbox.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { sandboxTime, virtualTime } from '../helpers/virtual-time.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

describe('a slow service and a short timeout', () => {
  it('a batch timed out twice is bought twice, not five times; spent and unconfirmed add up to the charges', async () => {
    // The first two requests take 1.5 s: the first times out at 1 s, the retry waits 2 s and gets its answer.
    // On one virtual clock: the slow answers, the timeouts and the backoff take the time it says, in no real time.
    const time = virtualTime(Date.now());
    sb = await startSandbox({ port: 0, rpm: 0, slowRequests: [1, 2], slowMs: 1300, ...sandboxTime(time) });
    const s = sb;
    const file = join(mkdtempSync(join(tmpdir(), 'di-transit-')), 'in.csv');
    writeFileSync(file, `domain\n${s.hostList().slice(0, 100).join('\n')}\n`);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const r = await runInProcess(['batch', file, '--timeout', '1s', '--rpm', '0', '--allow-partial'], { env, time });
    expect(r.code).toBe(0);
    expect(s.charges().total).toBe(200);
    expect(s.charges().requests).toBe(2);
    const spent = Number(/lookups (\d+) spent/.exec(r.stderr)?.[1]);
    const unconfirmed = Number(/unconfirmed (\d+): sent in requests that timed out or were cut off/.exec(r.stderr)?.[1]);
    expect([spent, unconfirmed]).toEqual([100, 100]);
    // Spent (recorded) and unconfirmed (lost in transit) together are what the service charged.
    expect(spent + unconfirmed).toBe(s.charges().total);
  });

  it('a single lookup that timed out is retried with more patience', async () => {
    const time = virtualTime(Date.now());
    sb = await startSandbox({ port: 0, rpm: 0, slowRequests: [1, 2], slowMs: 1300, ...sandboxTime(time) });
    const s = sb;
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const r = await runInProcess(['lookup', s.hostList()[0] as string, '--timeout', '1s', '--json'], { env, time });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ data: { domain: s.hostList()[0] } }]);
    expect(s.charges().requests).toBe(2);
    expect(s.charges().total).toBe(2);
  });
});
