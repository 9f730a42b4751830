// Issue 16, "one shape per format" and "narrow terminals": every command's JSON is an array and its NDJSON one
// object per line, of one record shape per command; lookup, batch, traffic and employees write the row
// envelope {line, input, status, host, reason, data, fetched_at} whether one host or many, `input` an object
// keyed as the CSV output of the same run names those columns. Tables on a terminal of 40, 60 and 120 columns
// never cut a host or a figure. In-process against the sandbox over real HTTP.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { displayWidth } from '../../src/cli/output/terminal.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const ENVELOPE = ['line', 'input', 'status', 'host', 'reason', 'data', 'fetched_at'];
const HELD = ['usi.com', 'alzota-cloud.com', 'www.alzota-cloud.com'];
const MISSING = 'nothere-xyz.com';

let sb: Sandbox;
let env: NodeJS.ProcessEnv;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  dir = mkdtempSync(join(tmpdir(), 'di-formats-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

type Row = Record<string, unknown> & { input: Record<string, unknown> };

/** Runs the command in JSON, NDJSON and CSV; checks the JSON array equals the NDJSON lines; returns both. */
async function threeWays(args: string[], expectCode = 0): Promise<{ rows: Row[]; header: string[] }> {
  const json = await runInProcess([...args, '--format', 'json'], { env });
  expect(json.code, json.stderr).toBe(expectCode);
  const rows = JSON.parse(json.stdout) as Row[];
  expect(Array.isArray(rows)).toBe(true);
  const ndjson = await runInProcess([...args, '--format', 'ndjson'], { env });
  expect(ndjson.code, ndjson.stderr).toBe(expectCode);
  expect(
    ndjson.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l)),
  ).toEqual(rows);
  const csv = await runInProcess([...args, '--format', 'csv'], { env });
  expect(csv.code, csv.stderr).toBe(expectCode);
  const [header] = parse(csv.stdout) as string[][];
  return { rows, header: header ?? [] };
}

describe('one shape per format (issue 16)', () => {
  it('lookup of one host and of several: the same envelope, input keyed as the CSV names its column', async () => {
    const one = await threeWays(['lookup', HELD[0]!]);
    const many = await threeWays(['lookup', ...HELD, MISSING]);
    expect(one.rows).toHaveLength(1);
    expect(many.rows).toHaveLength(4);
    for (const r of [...one.rows, ...many.rows]) expect(Object.keys(r)).toEqual(ENVELOPE);
    // The CSV's input column (before status) is what `input` is keyed by: `input` for hosts typed in.
    expect(one.header.slice(0, one.header.indexOf('status'))).toEqual(['input']);
    expect(one.rows[0]!.input).toEqual({ input: HELD[0] });
    expect(many.rows.map((r) => r.input)).toEqual([...HELD, MISSING].map((h) => ({ input: h })));
    // The same host reads the same alone or in a list (its answer cached by then, so even fetched_at agrees).
    expect(many.rows[0]).toEqual(one.rows[0]);
    expect(many.rows[3]).toMatchObject({ status: 'missing', host: MISSING, data: null });
  });

  it('a host the service does not hold, alone: its missing row on stdout, the error on stderr, exit 8', async () => {
    const { rows } = await threeWays(['lookup', MISSING], 8);
    expect(rows).toEqual([{ line: 1, input: { input: MISSING }, status: 'missing', host: MISSING, reason: null, data: null, fetched_at: expect.any(String) }]);
  });

  it('traffic and employees of one host: the envelope with the answer in data', async () => {
    for (const command of ['traffic', 'employees']) {
      const { rows, header } = await threeWays([command, HELD[2]!]);
      expect(rows).toHaveLength(1);
      expect(Object.keys(rows[0]!)).toEqual(ENVELOPE);
      expect(rows[0]).toMatchObject({ line: 1, input: { input: HELD[2] }, status: 'found', host: HELD[2] });
      expect(header[0]).toBe('input');
    }
  });

  it('traffic HOST --fields: the flat objects a list run writes; an unknown field refused before anything is spent', async () => {
    const { rows, header } = await threeWays(['traffic', HELD[1]!, '--fields', 'traffic_visits,traffic_band']);
    expect(header).toEqual(['input', 'traffic_visits', 'traffic_band']);
    expect(rows).toEqual([
      { line: 1, traffic_visits: sb.dataset.traffic(HELD[1]!)?.estimated_monthly_visits, traffic_band: sb.dataset.traffic(HELD[1]!)?.band },
    ]);
    const before = sb.charges().total;
    const bad = await runInProcess(['traffic', 'usi.com', '--fields', 'nope', '--refresh'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown field nope; valid fields for traffic: /);
    expect(sb.charges().total).toBe(before);
  });

  it('batch of a newline list, of a CSV, and traffic --input: input keyed by the CSV output header', async () => {
    const list = join(dir, 'hosts.txt');
    writeFileSync(list, `${HELD.join('\n')}\n`);
    const table = join(dir, 'companies.csv');
    writeFileSync(table, `company,website,,website\nUSI,${HELD[0]},x,y\nAlzota,${HELD[1]},,\n`);
    for (const args of [
      ['batch', list],
      ['batch', table, '--column', '2'],
      ['traffic', '--input', list],
    ]) {
      const { rows, header } = await threeWays(args);
      const inputColumns = header.slice(0, header.indexOf('status'));
      for (const r of rows) {
        expect(Object.keys(r)).toEqual(ENVELOPE);
        expect(typeof r.input).toBe('object');
      }
      if (args[1] === table) {
        // An object holds a name once: the CSV's repeated and blank names made unique as `_2` and `column_N`.
        expect(inputColumns).toEqual(['company', 'website', '', 'website']);
        expect(Object.keys(rows[0]!.input)).toEqual(['company', 'website', 'column_3', 'website_2']);
        expect(rows[0]!.input).toEqual({ company: 'USI', website: HELD[0], column_3: 'x', website_2: 'y' });
      } else {
        expect(inputColumns).toEqual(['input']);
        expect(rows.map((r) => r.input)).toEqual(HELD.map((h) => ({ input: h })));
      }
    }
  });

  it('tech: an array of one {tech, domains}; catalog: the same {category, tech, domains} records as its CSV', async () => {
    const tech = await threeWays(['tech', 'WordPress']);
    expect(tech.rows).toEqual([sb.dataset.technology('WordPress')]);
    expect(tech.header).toEqual(['tech', 'domains']);
    const catalog = await threeWays(['catalog', '--category', 'cms']);
    expect(catalog.header).toEqual(['category', 'tech', 'domains']);
    for (const r of catalog.rows) expect(Object.keys(r)).toEqual(catalog.header);
    expect(catalog.rows.length).toBeGreaterThan(1);
  });
});

describe('tables on a narrow terminal (issue 16)', () => {
  const hosts = [...HELD, MISSING];
  const figures = () => HELD.map((h) => sb.dataset.profile(h)?.traffic?.estimated_monthly_visits).filter((v) => typeof v === 'number');

  // Issue 29: free text (technologies, reasons) wraps at word boundaries or goes under its row, never cut to `Hotja…`.
  it.each([120, 72, 60])('%i columns: a line per host, every host, figure and technology whole, no empty reason column, within the width', async (columns) => {
    const r = await runInProcess(['lookup', ...hosts], { env, stdoutTTY: true, columns });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
    const starts = hosts.map((h) => lines.findIndex((l) => l.startsWith(`${h} `)));
    expect(starts.every((at, i) => at >= 2 && (i === 0 || at > starts[i - 1]!))).toBe(true);
    for (const v of figures()) expect(r.stdout).toContain(v!.toLocaleString('en-US'));
    expect(lines[0]).not.toMatch(/reason/);
    expect(r.stdout).not.toContain('…');
    // Each technology's words are whole, on the host's lines (its own, the ones wrapped under it, or its `technologies:` line).
    for (const [i, h] of HELD.entries()) {
      const own = lines.slice(starts[i], starts[i + 1] ?? lines.length).join('\n');
      for (const word of (sb.dataset.profile(h)?.technologies ?? []).flatMap((t) => t.split(' '))) expect(own, h).toContain(word);
    }
    if (columns === 120) expect(lines[0]).toMatch(/technologies +country +visits\/mo +employees$/);
    if (columns === 60) expect(r.stdout).toMatch(/^ {2}technologies: \S/m);
  });

  it('40 columns: hosts and figures do not fit side by side, so each host is a block; nothing of them cut', async () => {
    const r = await runInProcess(['lookup', ...hosts], { env, stdoutTTY: true, columns: 40 });
    expect(r.code, r.stderr).toBe(0);
    for (const line of r.stdout.trimEnd().split('\n')) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    const blocks = r.stdout.trimEnd().split('\n\n');
    expect(blocks.map((b) => b.split('\n')[0])).toEqual(hosts.map((h) => `host          ${h}`));
    for (const v of figures()) expect(r.stdout).toContain(v!.toLocaleString('en-US'));
    expect(r.stdout).not.toMatch(/reason/);
  });

  it('an invalid row keeps its whole reason at 60 columns, under its row', async () => {
    const r = await runInProcess(['lookup', ...hosts, 'not a host'], { env, stdoutTTY: true, columns: 60 });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^host +status +cc +visits +empl\.$/);
    expect(lines.at(-2)).toMatch(/^not a host +invalid /);
    expect(lines.at(-1)).toMatch(/^ {2}reason: contains /);
    expect(r.stdout).not.toContain('…');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(60);
  });
});
