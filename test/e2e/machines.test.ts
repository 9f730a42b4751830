// Several machines on one account sharing one PostgreSQL store (issue 25), played as users meet it: each
// "machine" is a real process with its own HOME, config and cache directories, and (as root) its own PID and
// UTS namespace (`unshare -p -f -u --mount-proc`), so every machine's CLI is PID 1 on a host of its own name and
// nothing can be judged by a pid. They share only the sandbox (one account, a known rate) and the database.
// The witness is the sandbox's charge and request log, never what the machines say they did.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { PG_URL, freshSchema, urlOf } from '../store/postgres-helpers.js';
import { assertBuilt, BIN, cliEnv, ROOT } from '../helpers/cli.js';

// Root is needed for namespaces; elsewhere the machines are plain processes (still separate directories, so
// still separate caches and settings), and the test says so.
const ROOT_USER = process.getuid?.() === 0;
if (!ROOT_USER) console.warn('machines: not root, so each machine is a plain process without a PID/UTS namespace of its own');

/** The account's known rate: requests per window. */
const RATE = 20;
const WINDOW_MS = 1000;
const PLAN = ['--rate', `${RATE}/${WINDOW_MS / 1000}s`];

let sb: Sandbox;
const dir = mkdtempSync(join(tmpdir(), 'di-machines-'));

beforeAll(async () => {
  assertBuilt();
  // A quota no test here spends: the runs add up to some 70,000 lookups.
  sb = await startSandbox({ port: 0, rpm: RATE, windowMs: WINDOW_MS, latencyMs: 20, quota: 10_000_000 });
});
afterAll(async () => {
  await sb?.close();
});

interface Machine {
  name: string;
  env: NodeJS.ProcessEnv;
}

/** A machine of its own: separate HOME, config and cache, the account's key, the shared store. */
function machine(name: string, store: string, withKey = true): Machine {
  const home = mkdtempSync(join(tmpdir(), `di-${name}-`));
  const env = cliEnv({
    HOME: home,
    DOMAIN_INTEL_BASE_URL: sb.baseUrl,
    ...(withKey ? { DOMAIN_INTEL_API_KEY: sb.key } : {}),
    DOMAIN_INTEL_STORE: store,
  });
  return { name, env };
}

interface Run {
  /** The CLI's own process: PID 1 of its namespace where there is one. */
  cliPid: () => number | undefined;
  kill9: () => void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number }>;
}

/** Runs the CLI on `m`; in a namespace of its own (PID and hostname) when root. */
function run(m: Machine, args: string[]): Run {
  const started = Date.now();
  const child = ROOT_USER
    ? spawn('unshare', ['-p', '-f', '-u', '--mount-proc', 'sh', '-c', `hostname "$0" && exec "$@"`, m.name, process.execPath, BIN, ...args], {
        env: m.env,
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [BIN, ...args], { env: m.env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  // Under unshare -f the CLI is unshare's child: killing unshare would leave it running.
  const cliPid = (): number | undefined => {
    if (!ROOT_USER) return child.pid;
    try {
      const kids = execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
        .trim()
        .split('\n');
      return Number(kids[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  return {
    cliPid,
    kill9: () => {
      const pid = cliPid();
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    },
    done: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }))),
  };
}

function list(name: string, hosts: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `domain\n${hosts.join('\n')}\n`);
  return file;
}
const sites = (from: number, to: number, tag: string) => Array.from({ length: to - from }, (_, i) => `${tag}-${from + i}.example.com`);

/** Hosts the service charged more than once since the counters were last reset. */
const twice = () => Object.entries(sb.charges().byHost).filter(([, n]) => n > 1);

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(PG_URL === null)('three machines, one account, one PostgreSQL store', () => {
  it('over overlapping lists, started at the same instant: charged = distinct hosts, no 429, wall time within 1.3x of the ideal', async () => {
    const store = urlOf(freshSchema());
    // 18,000 each, overlapping by half: 36,000 distinct hosts, 360 batches at 20 a second: 17 s ideal.
    const lists = [list('a.csv', sites(0, 18_000, 'same')), list('b.csv', sites(9000, 27_000, 'same')), list('c.csv', sites(18_000, 36_000, 'same'))];
    const distinct = 36_000;
    // The schema is made before the clock starts (each machine would otherwise race to create it: that is
    // tested by the same-instant starts below, not timed here).
    const prep = await run(machine('prep', store), ['store', 'migrate']).done;
    expect(prep.code, prep.stderr).toBe(0);
    sb.resetCounters();
    const started = Date.now();
    const runs = lists.map((file, i) => run(machine(`m${i}`, store), ['batch', file, '-o', join(dir, `out-${i}.csv`), '--quiet', ...PLAN]));
    const results = await Promise.all(runs.map((r) => r.done));
    const wall = Date.now() - started;
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const charged = sb.charges();
    expect(twice()).toEqual([]);
    expect(charged.total).toBe(distinct);
    expect(charged.rateLimited).toBe(0);
    // The ideal: every batch at the account's rate, a window's worth at the first instant. Paced is from the
    // first request the service saw to the last: what the shared limiter made of the rate. Start-up (three node
    // processes and their connections) is the machine's, not the rate's: on a loaded 2-core machine it took up
    // to 2.4 s, so the whole wall time gets that much on top of the same 1.3x.
    const batches = distinct / 100;
    const ideal = (batches / RATE - 1) * WINDOW_MS;
    const api = sb.requests().filter((e) => e.operation !== null);
    const paced = (api.at(-1)?.time ?? 0) - (api[0]?.time ?? 0);
    console.log(
      `machines: ${batches} batches, paced ${paced} ms, wall ${wall} ms, ideal ${ideal} ms, ${(paced / ideal).toFixed(2)}x, 429s ${charged.rateLimited}`,
    );
    expect(paced).toBeLessThanOrEqual(1.3 * ideal);
    expect(wall).toBeLessThanOrEqual(1.3 * ideal + 3000);
    // Every machine's output is whole.
    for (let i = 0; i < 3; i++)
      expect(
        readFileSync(join(dir, `out-${i}.csv`), 'utf8')
          .trimEnd()
          .split('\n'),
      ).toHaveLength(18_001);
  }, 120_000);

  it('five same-instant starts of three machines on a fresh store buy nothing twice', async () => {
    for (let round = 0; round < 5; round++) {
      const store = urlOf(freshSchema());
      const hosts = sites(0, 600, `instant${round}`);
      const file = list(`instant-${round}.csv`, hosts);
      sb.resetCounters();
      const runs = [0, 1, 2].map((i) =>
        run(machine(`i${round}${i}`, store), ['batch', file, '-o', join(dir, `instant-${round}-${i}.csv`), '--quiet', ...PLAN]),
      );
      const results = await Promise.all(runs.map((r) => r.done));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      expect(twice(), `round ${round}`).toEqual([]);
      expect(sb.charges().total, `round ${round}`).toBe(hosts.length);
    }
  }, 120_000);

  it('a machine killed with -9 mid-run blocks nobody beyond its leases, and its re-run buys at most one batch twice', async () => {
    const store = urlOf(freshSchema());
    const lists = [list('k-a.csv', sites(0, 6000, 'kill')), list('k-b.csv', sites(3000, 9000, 'kill')), list('k-c.csv', sites(6000, 12_000, 'kill'))];
    const prep = await run(machine('kprep', store), ['store', 'migrate']).done;
    expect(prep.code, prep.stderr).toBe(0);
    sb.resetCounters();
    const ms = lists.map((_, i) => machine(`k${i}`, store));
    // What a killed machine loses is what it had in flight: answers the service charged for that never reached
    // its store. The machine to be killed sends one batch at a time (--concurrency 1), so that is one batch; at
    // the default concurrency it is up to that many (2 were seen here), which the re-run buys again.
    const runs = lists.map((file, i) =>
      run(ms[i] as Machine, ['batch', file, '-o', join(dir, `k-out-${i}.csv`), '--quiet', ...PLAN, ...(i === 0 ? ['--concurrency', '1'] : [])]),
    );
    // Killed once the account has bought a quarter of the work, with requests in flight.
    await waitFor(() => sb.charges().total >= 3000, 60_000);
    (runs[0] as Run).kill9();
    const killed = await (runs[0] as Run).done;
    expect(killed.signal ?? killed.code).not.toBe(0);
    const [b, c] = await Promise.all([(runs[1] as Run).done, (runs[2] as Run).done]);
    expect(b.code, b.stderr).toBe(0);
    expect(c.code, c.stderr).toBe(0);
    // Unblocked: the rest at the account's rate, plus at most one lease (30 s) for the dead machine's claims.
    const rest = ((12_000 - 3000) / 100 / RATE) * WINDOW_MS;
    expect(Math.max(b.ms, c.ms)).toBeLessThanOrEqual(1.3 * rest + 30_000 + 5000);
    expect(twice()).toEqual([]);
    // The re-run on the same machine buys only what nobody bought: what was in flight at most (one batch).
    const again = await run(ms[0] as Machine, ['batch', lists[0] as string, '-o', join(dir, 'k-out-0.csv'), '--quiet', ...PLAN]).done;
    expect(again.code, again.stderr).toBe(0);
    expect(twice().length).toBeLessThanOrEqual(100);
    expect(sb.charges().total - 12_000).toBe(twice().length);
    expect(sb.charges().rateLimited).toBe(0);
  }, 180_000);

  it("a third machine with no key runs `changes` and reports exactly the hosts another machine's refresh changed", async () => {
    const store = urlOf(freshSchema());
    const from = sb.release();
    const to = from === '2025-10' ? '2025-11' : '2025-10';
    // Hosts a release moves and hosts it does not, from the sandbox's own dataset.
    const moved = [...new Set(sb.changesBetween(from, to).map((c) => c.host))].slice(0, 150);
    const still = sb
      .hostList()
      .filter((h) => !moved.includes(h))
      .slice(0, 50);
    const file = list('crm.csv', [...moved, ...still]);
    const a = await run(machine('night1', store), ['batch', file, '-o', join(dir, 'night1.csv'), '--quiet', ...PLAN]).done;
    expect(a.code, a.stderr).toBe(0);
    // fetched_at has millisecond resolution: the refresh comes strictly later.
    await new Promise((r) => setTimeout(r, 5));
    sb.setRelease(to);
    const b = await run(machine('night2', store), ['batch', file, '-o', join(dir, 'night2.csv'), '--quiet', '--refresh', ...PLAN]).done;
    expect(b.code, b.stderr).toBe(0);
    sb.resetCounters();
    const c = await run(machine('analyst', store, false), ['changes', file, '--format', 'ndjson']).done;
    expect(c.code, c.stderr).toBe(0);
    const reported = new Set(
      c.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (JSON.parse(l) as { host: string }).host),
    );
    const expected = new Set(
      sb
        .changesBetween(from, to)
        .filter((ch) => moved.includes(ch.host))
        .map((ch) => ch.host),
    );
    expect(expected.size).toBeGreaterThan(0);
    expect([...reported].sort()).toEqual([...expected].sort());
    // The analyst spent nothing and asked nothing.
    expect(sb.charges()).toMatchObject({ total: 0, requests: 0 });
  }, 120_000);
});
