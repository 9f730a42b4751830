// The whole product under every reading of the spec's open points (issue 13): the sandbox plays one
// reading at a time (SandboxOptions), and the same batch job must spend what the sandbox charged, give
// each row its true status, and spend nothing on a re-run. Charges are read from the sandbox, never from
// the client; "spent" is read from the summary the user sees.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { sandboxTime, virtualTime } from '../helpers/virtual-time.js';

const dir = mkdtempSync(join(tmpdir(), 'di-readings-'));
let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

/** The figure the summary reports as spent. */
function spentIn(stderr: string): number {
  const m = /lookups ([\d,]+) spent/.exec(stderr);
  if (!m?.[1]) throw new Error(`no "lookups N spent" in:\n${stderr}`);
  return Number(m[1].replace(/,/g, ''));
}

/** The remaining figure the summary shows. */
function quotaIn(stderr: string): number {
  const m = /quota ([\d,]+) \/ [\d,?]+ left/.exec(stderr);
  if (!m?.[1]) throw new Error(`no "quota N / M left" in:\n${stderr}`);
  return Number(m[1].replace(/,/g, ''));
}

/** Hosts the sandbox does not hold, plausible and distinct. */
function absentHosts(s: Sandbox, n: number, tag: string): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const host = `${tag}-nothing-${i}.com`;
    if (!s.dataset.isHeld(host)) out.push(host);
  }
  return out;
}

/**
 * An input that meets every case: two whole batches of absent hosts first (an all-absent batch), then held
 * and absent hosts mixed, repeats, and held hosts spelled in upper case (the run lowers them: §2.9).
 */
function input(s: Sandbox, name: string): { file: string; hosts: string[]; distinct: number } {
  const held = s.hostList().slice(0, 120);
  const absent = absentHosts(s, 260, name);
  const shout = held.slice(0, 20).map((h) => h.toUpperCase());
  const hosts = [...absent.slice(0, 200), ...held.slice(0, 60), ...absent.slice(200), ...held.slice(60), ...shout, ...held.slice(0, 10)];
  const file = join(dir, `${name}.csv`);
  writeFileSync(file, `website,note\n${hosts.map((h, i) => `${h},row ${i}`).join('\n')}\n`);
  return { file, hosts, distinct: held.length + absent.length };
}

interface Case {
  name: string;
  sandbox: SandboxOptions;
  /** CLI flags for the pace: a known plan, or none (the run learns from 429s). */
  pace: string[];
}

// A known plan, compressed: the sandbox's window and the run's agree, so the run must trip no 429.
const FAST: SandboxOptions = { rpm: 600, windowMs: 1000 };
const KNOWN = ['--rate', '600/1s'];
const CASES: Case[] = [
  { name: 'defaults', sandbox: FAST, pace: KNOWN },
  { name: 'all-absent-404', sandbox: { ...FAST, allAbsent: 'not-found' }, pace: KNOWN },
  { name: 'order-reversed', sandbox: { ...FAST, order: 'reversed' }, pace: KNOWN },
  { name: 'order-sorted', sandbox: { ...FAST, order: 'sorted' }, pace: KNOWN },
  { name: 'missing-as-submitted', sandbox: { ...FAST, missingCase: 'submitted' }, pace: KNOWN },
  { name: 'upper-case-rejected', sandbox: { ...FAST, upperCase: 'reject' }, pace: KNOWN },
  { name: 'quota-reset-date', sandbox: { ...FAST, quotaResetStyle: 'date' }, pace: KNOWN },
  { name: 'quota-reset-epoch', sandbox: { ...FAST, quotaResetStyle: 'epoch-s' }, pace: KNOWN },
  { name: 'quota-reset-http-date', sandbox: { ...FAST, quotaResetStyle: 'http-date' }, pace: KNOWN },
  { name: 'sliding-window', sandbox: { window: 'sliding', rpm: 3, windowMs: 500 }, pace: ['--rate', '3/500ms'] },
  { name: 'free-limited-with-headers', sandbox: { ...FAST, freeLimited: true, freeQuotaHeaders: true }, pace: KNOWN },
  { name: 'out-of-order', sandbox: { ...FAST, latencyJitterMs: 200 }, pace: KNOWN },
  ...(['iso', 'epoch-s', 'epoch-ms', 'seconds', 'retry-after', 'none'] as const).map(
    (resetStyle): Case => ({ name: `429-reset-${resetStyle}`, sandbox: { rpm: 2, windowMs: 400, resetStyle }, pace: ['--rpm', '0'] }),
  ),
];

describe('one batch job under every reading of the spec', () => {
  it.each(CASES)('$name: spends what the sandbox charged, once, with true statuses', { timeout: 20_000 }, async (c) => {
    // One virtual clock for the sandbox's windows and latency and the CLI's waits: the 429 cases wait out
    // their resets, and the jittered answers arrive out of order, in no real time.
    const time = virtualTime(Date.now());
    sb = await startSandbox({ port: 0, ...c.sandbox, ...sandboxTime(time) });
    const s = sb;
    const { file, hosts, distinct } = input(s, c.name);
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const out = join(dir, `${c.name}-out.csv`);
    const args = ['batch', file, '-o', out, ...c.pace];

    const first = await runInProcess(args, { env, time });
    expect(first.stderr).toMatch(/errors 0/);
    expect(first.code).toBe(0);
    const charged = s.charges();
    expect(charged.total).toBe(distinct);
    if (c.pace === KNOWN) expect(charged.rateLimited).toBe(0);
    expect(Object.values(charged.byHost).every((n) => n === 1)).toBe(true);
    expect(spentIn(first.stderr)).toBe(charged.total);
    // The lowest figure of the period, whatever order the answers arrived in.
    expect(quotaIn(first.stderr)).toBe(charged.remaining);

    const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    expect(rows.length).toBe(hosts.length);
    rows.forEach((row, i) => {
      const host = (hosts[i] as string).toLowerCase();
      expect(row.website).toBe(hosts[i]); // the user's cell, as given
      expect(row.status).toBe(s.dataset.isHeld(host) ? 'found' : 'missing');
    });

    s.resetCounters();
    const again = await runInProcess(args, { env, time });
    expect(again.code).toBe(0);
    expect(s.charges().total).toBe(0);
    expect(spentIn(again.stderr)).toBe(0);
  });
});

describe('readings that end a run or slow the free endpoints', () => {
  it('a key revoked mid-run: the run stops with the key code, what was paid is kept, a new key buys only the rest', async () => {
    const time = virtualTime(Date.now());
    sb = await startSandbox({ port: 0, ...FAST, revokeAfter: 3, ...sandboxTime(time) });
    const s = sb;
    const { file, distinct } = input(s, 'revoked');
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const out = join(dir, 'revoked-out.csv');
    const first = await runInProcess(['batch', file, '-o', out, ...KNOWN, '--concurrency', '1'], { env, time });
    expect(first.code).toBe(6);
    const paid = s.charges().total;
    expect(paid).toBeGreaterThan(0);
    expect(paid).toBeLessThan(distinct);
    expect(first.stderr).toMatch(/^error: the API key was refused \(401 invalid_key\)/m);
    // The cron log still says what was spent before the key was refused.
    expect(spentIn(first.stderr)).toBe(paid);
    const fresh = s.newKey();
    s.resetCounters();
    const again = await runInProcess(['batch', file, '-o', out, ...KNOWN], { env: { ...env, DOMAIN_INTEL_API_KEY: fresh }, time });
    expect(again.code).toBe(0);
    expect(s.charges().total).toBe(distinct - paid);
  });

  it('technology and catalog rate-limited and carrying quota headers: both still answer, waiting out the 429', async () => {
    const time = virtualTime(Date.now());
    sb = await startSandbox({ port: 0, rpm: 1, windowMs: 500, freeLimited: true, freeQuotaHeaders: true, ...sandboxTime(time) });
    const s = sb;
    const env = cliEnv({ DOMAIN_INTEL_BASE_URL: s.baseUrl, DOMAIN_INTEL_API_KEY: s.key });
    const catalog = await runInProcess(['catalog', '--json'], { env, time });
    expect(catalog.code).toBe(0);
    const name = s.dataset.catalog()[0]?.technologies[0]?.tech as string;
    const tech = await runInProcess(['tech', name, '--json'], { env, time });
    expect(tech.code).toBe(0);
    expect(JSON.parse(tech.stdout)).toMatchObject([{ tech: name }]);
    expect(s.charges().total).toBe(0);
  });
});
