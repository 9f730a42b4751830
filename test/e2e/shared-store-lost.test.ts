// The shared store lost in the middle of a batch (issue 25), on a throwaway PostgreSQL server of the test's own
// (pg_createcluster, as root), stopped under the run: the run stops buying, every answer the service charged
// for is in FILE.partial (never an error row), -o FILE is left alone, and it exits 13 with one line naming the
// store. It never goes on alone, with a store or a rate of its own.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, startInProcess } from '../helpers/cli.js';
import { CLUSTER_USABLE, type Cluster, startCluster } from '../helpers/pg-cluster.js';

if (!CLUSTER_USABLE) console.warn('the lost-store test is skipped: it needs root and pg_createcluster (PostgreSQL 15)');

const CLUSTER = `di_lost_${process.pid}`;
const HOSTS = 1200;
let sb: Sandbox;
let dir: string;
let cluster: Cluster | undefined;
let port = 0;

describe.skipIf(!CLUSTER_USABLE)('the shared store lost mid-run', () => {
  beforeAll(async () => {
    cluster = await startCluster(CLUSTER, 'trust');
    port = cluster.port;
    // Each request takes a while, so the server can be stopped between the first answers and the last.
    sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS, latencyMs: 150 });
    dir = mkdtempSync(join(tmpdir(), 'di-lost-'));
  }, 60_000);

  afterAll(async () => {
    await sb?.close();
    cluster?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stops buying, keeps every paid answer in FILE.partial, leaves FILE alone and exits 13 in one line', async () => {
    const input = join(dir, 'leads.csv');
    const hosts = sb.hostList();
    writeFileSync(input, `website\n${hosts.join('\n')}\n`);
    const out = join(dir, 'enriched.csv');
    writeFileSync(out, 'website,status\nkept.example,found\n');
    const store = `postgres://postgres@127.0.0.1:${port}/postgres?schema=lost`;
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_STORE: store });
    const run = startInProcess(['batch', input, '-o', out, '--concurrency', '1'], { env });
    // Stopped once some answers are paid for, with most of the file still to buy.
    while (sb.charges().total < 200) await new Promise((r) => setTimeout(r, 10));
    cluster?.stop();
    const r = await run.done;
    const charged = new Set(sb.requests().flatMap((q) => (q.charged > 0 ? q.hosts : [])));

    expect(r.code, r.stderr).toBe(EXIT.STORE);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual([expect.stringMatching(/^error: cannot use the store postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?schema=lost: /)]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // FILE is as it was; the rows so far are in FILE.partial, and the summary says so.
    expect(readFileSync(out, 'utf8')).toBe('website,status\nkept.example,found\n');
    expect(r.stderr).toMatch(/enriched\.csv unchanged \(incomplete: .*\); [\d,]+ rows in .*enriched\.csv\.partial/);
    const rows = parse(readFileSync(`${out}.partial`, 'utf8'), { columns: true }) as Record<string, string>[];
    const answered = new Map(rows.filter((row) => row.status === 'found' || row.status === 'missing').map((row) => [row.website, row.status]));
    // Every host the service charged for is answered in the partial file: none was lost to an error row.
    expect(charged.size).toBeGreaterThanOrEqual(200);
    for (const host of charged) expect(answered.has(host), host).toBe(true);
    // And it stopped buying: at most the request in flight when the server went (a batch of 100) after the stop.
    expect(charged.size).toBeLessThan(HOSTS);
    expect(sb.charges().total).toBe(charged.size);
    const settledAfter = rows.filter((row) => row.status === 'error');
    expect(settledAfter.length + answered.size).toBe(rows.length);
  }, 60_000);
});
