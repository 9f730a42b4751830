// Input as real exports come (issue 15): the same 2,000-row export saved as UTF-8 CSV, `;`-delimited, CR-only,
// Windows-1252 and UTF-16LE tab-separated gives the same enriched rows each time (our columns and the user's
// cells, decoded), and the sandbox charges the same hosts, once each; CSV output keeps the input's delimiter
// and line ends, in UTF-8.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { exportRows, FORMS, writeExport } from '../helpers/exports.js';

let sb: Sandbox;
let dir: string;
let rows: string[][];
const homes: string[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 200 });
  dir = mkdtempSync(join(tmpdir(), 'di-dialects-'));
  homes.push(dir);
  rows = exportRows(sb.hostList().slice(0, 40), 2000);
});
afterAll(async () => {
  await sb?.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A batch run on a fresh cache: its exit, stderr, output, and what the sandbox charged for it by host. */
async function batch(file: string, ...extra: string[]) {
  sb.resetCounters();
  const env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  homes.push(join(env.DOMAIN_INTEL_CACHE_DIR as string, '..'));
  const r = await runInProcess(['batch', file, '--quiet', ...extra], { env });
  return { ...r, charged: sb.charges().byHost };
}

describe('one export in every dialect', () => {
  it('gives the same enriched rows and the same charges each time', async () => {
    const seen: { form: string; rows: unknown[]; charged: Record<string, number> }[] = [];
    for (const form of FORMS) {
      const r = await batch(writeExport(dir, form, rows), '--format', 'ndjson');
      expect({ form, code: r.code }).toEqual({ form, code: 0 });
      // Only the Windows-1252 file is said to be read as such (the one guess the reader makes).
      if (form === 'windows-1252')
        expect(r.stderr).toMatch(/export-windows-1252\.csv: not UTF-8 \(from line 2\): read as Windows-1252.*for Excel to read it so, add --bom/);
      else expect({ form, stderr: r.stderr }).toEqual({ form, stderr: '' });
      const out = r.stdout
        .trim()
        .split('\n')
        .map((l) => {
          const { fetched_at: _, ...rest } = JSON.parse(l) as Record<string, unknown>;
          return rest;
        });
      seen.push({ form, rows: out, charged: r.charged });
    }
    const [first, ...others] = seen;
    expect(first!.rows).toHaveLength(2000);
    // The user's cells, decoded: what the export holds, whatever the file's encoding and delimiter.
    const [header, ...data] = rows;
    expect(first!.rows.map((o) => (o as { input: Record<string, string> }).input)).toEqual(
      data.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]]))),
    );
    expect(first!.rows.filter((o) => (o as { status: string }).status === 'found').length).toBeGreaterThan(0);
    // Each of the 40 hosts charged once.
    expect(Object.values(first!.charged)).toEqual(Array(40).fill(1));
    for (const o of others) {
      expect({ form: o.form, rows: o.rows }).toEqual({ form: o.form, rows: first!.rows });
      expect({ form: o.form, charged: o.charged }).toEqual({ form: o.form, charged: first!.charged });
    }
  });

  it('CSV out keeps the delimiter and line ends in, in UTF-8; --delimiter and --encoding force them', async () => {
    const semi = await batch(writeExport(dir, 'semicolon', rows.slice(0, 4)));
    expect(semi.stdout.split('\r\n')[0]).toMatch(/^id;Company;Website;City;/);
    const cr = await batch(writeExport(dir, 'cr', rows.slice(0, 4)));
    expect(cr.stdout.split('\r')).toHaveLength(5);
    expect(cr.stdout).not.toContain('\n');
    const wide = await batch(writeExport(dir, 'utf16le-tab', rows.slice(0, 4)));
    expect(wide.stdout.startsWith('\ufeffid\tCompany\tWebsite\tCity\t')).toBe(true);
    expect(wide.stdout).toContain('Zürich');
    // Forced: the `;` file read with commas is one column with no host in it, a usage error listing it.
    const forced = await batch(writeExport(dir, 'semicolon', rows.slice(0, 4)), '--delimiter', ',');
    expect(forced.code).toBe(2);
    expect(forced.stderr).toMatch(/no host column found.*id;Company;Website;City/);
    // A value that is no delimiter is a usage error naming the choices, not a crash.
    for (const bad of ['x', '', ',,']) {
      const r = await batch(writeExport(dir, 'semicolon', rows.slice(0, 4)), '--delimiter', bad);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(/--delimiter.*expected one of , ; tab \|/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const latin = await batch(writeExport(dir, 'windows-1252', rows.slice(0, 4)), '--encoding', 'latin1');
    expect({ code: latin.code, stderr: latin.stderr }).toEqual({ code: 0, stderr: '' });
    expect(latin.stdout).toContain('Zürich');
  });

  it('ragged rows: one warning with the count and the first lines; rows kept', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(dir, 'ragged.csv');
    const [h1, h2] = sb.hostList();
    writeFileSync(file, `domain,n\n${h1},1\n${h2},2,extra\n${h1}\n${h2},4\n`);
    const r = await batch(file, '--format', 'ndjson');
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      `warning: ${file}: 2 rows have another number of cells than the header's 2 (lines 3, 4); kept: missing cells read as empty, extra cells are written after our columns`,
    ]);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
  });
});
