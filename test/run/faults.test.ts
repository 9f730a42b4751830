import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { columnsFor, createRowWriter } from '../../src/output/write.js';
import type { EnrichedRow } from '../../src/domain/types.js';
import { harness, type Harness } from '../helpers/run.js';

const open: Harness[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/** The rows as CSV, every column but fetched_at (when two runs fetched the same answers differs, as it should). */
async function csvOf(rows: EnrichedRow[]): Promise<string> {
  let text = '';
  const sink = new Writable({ write: (chunk, _e, cb) => ((text += String(chunk)), cb()) });
  const kind = rows[0]?.kind ?? 'profile';
  const fields = columnsFor(kind).filter((c) => c !== 'fetched_at');
  const writer = createRowWriter(sink, { format: 'csv', kind, fields, shape: { format: 'lines', headers: null, hostColumn: 0 } });
  for (const r of rows) await writer.write(r);
  await writer.end();
  return text;
}

describe('faults survived', () => {
  it('gives byte-identical output under a fault mix (503s, resets, truncated and garbage bodies, HTML 500s, delays)', async () => {
    const clean = await harness({ rpm: 0 });
    open.push(clean);
    const faulty = await harness({
      rpm: 0,
      seed: 1,
      latencyJitterMs: 15,
      faults: { unavailable: 0.1, burst503: 0.02, reset: 0.02, truncated: 0.01, garbage: 0.01, html500: 0.02 },
    });
    open.push(faulty);
    const values = [...clean.sb.hostList().slice(0, 700), 'missing-a.example', 'missing-b.example', 'no good'];
    const a = await clean.run('profile', values);
    const b = await faulty.run('profile', values, { retries: 12, concurrency: 4 });
    expect(b.stats.retries).toBeGreaterThan(0);
    expect(faulty.sb.requests().some((r) => r.fault !== null)).toBe(true);
    expect(b.stats.errors).toBe(0);
    expect(await csvOf(b.rows)).toBe(await csvOf(a.rows));
  });

  it('per-host endpoints too: traffic under 503 bursts and resets matches the fault-free run', async () => {
    const clean = await harness({ rpm: 0 });
    open.push(clean);
    const faulty = await harness({ rpm: 0, faults: { unavailable: 0.15, reset: 0.05, html500: 0.05 } });
    open.push(faulty);
    const values = clean.sb.hostList().slice(0, 80);
    const a = await clean.run('traffic', values);
    const b = await faulty.run('traffic', values, { retries: 12 });
    expect(b.stats.retries).toBeGreaterThan(0);
    expect(await csvOf(b.rows)).toBe(await csvOf(a.rows));
  });

  it('gives up after --retries and marks only those rows as errors; a re-run fetches only them', async () => {
    const h = await harness({ rpm: 0, faults: { unavailable: 1 } });
    open.push(h);
    const values = h.sb.hostList().slice(0, 5);
    const first = await h.run('traffic', values, { retries: 2 });
    expect(first.rows.every((r) => r.status === 'error' && /503|metering/.test(r.reason ?? ''))).toBe(true);
    expect(first.stats.retries).toBe(10);
    expect(h.sb.charges().total).toBe(0); // a 503 spends nothing
  });

  it('never retries a 401: the run stops with the key error and spends nothing', async () => {
    const h = await harness({ rpm: 0 });
    open.push(h);
    h.sb.revokeKey(h.sb.key);
    await expect(h.run('profile', h.sb.hostList().slice(0, 10))).rejects.toThrow(/401|refused/);
    expect(h.sb.requests().length).toBe(1);
    expect(h.sb.charges().total).toBe(0);
  });
});
