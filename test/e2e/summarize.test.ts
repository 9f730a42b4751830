// `domain-intel summarize` from outside (issue 18): files written by `batch` against the sandbox (CSV, NDJSON,
// JSON), summarised; the expected counts are computed here from the CSV itself (csv-parse), independently of
// src/summary, and compared with the JSON and the terminal's numbers. --from-cache spends nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import type { Count, Summary } from '../../src/summary/types.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';
import { type El, findAll, findOne, parseReport, textOf } from '../summary/html-parse.js';

let sb: Sandbox;
let env: Record<string, string | undefined>;
let dir: string;
let rows: Record<string, string>[];
let categoryOf: Map<string, string>;

type Tally = Map<string, number>;
const bump = (m: Tally, v: string | undefined) => v !== undefined && v !== '' && m.set(v, (m.get(v) ?? 0) + 1);
const asCounts = (m: Tally) => new Map([...m]);
const fromList = (list: Count[]) => new Map(list.map((c) => [c.value, c.count]));

/** What the summary must say, computed from the CSV rows alone. */
function expected(): {
  rows: Summary['rows'];
  hosts: Summary['hosts'];
  lists: Record<string, Tally>;
  redirects: number;
  resolves: Summary['resolves'];
  visits: number[];
} {
  const byStatus = { found: 0, missing: 0, invalid: 0, error: 0, unknown: 0 };
  const distinct = new Set<string>();
  const found = new Map<string, Record<string, string>>();
  for (const r of rows) {
    byStatus[r.status as keyof typeof byStatus]++;
    if (r.host !== '') distinct.add(r.host as string);
    if (r.status === 'found' && !found.has(r.host as string)) found.set(r.host as string, r);
  }
  const lists: Record<string, Tally> = {};
  for (const k of ['technologies', 'categories', 'platforms', 'networks', 'countries', 'languages', 'trafficBands', 'employees', 'httpStatus'])
    lists[k] = new Map();
  let redirects = 0;
  const resolves = { yes: 0, no: 0, unknown: 0 };
  const visits: number[] = [];
  for (const r of found.values()) {
    const techs = new Set((r.technologies as string).split(';').filter((t) => t !== ''));
    for (const t of techs) bump(lists.technologies as Tally, t);
    for (const c of new Set([...techs].map((t) => categoryOf.get(t)))) bump(lists.categories as Tally, c);
    bump(lists.platforms as Tally, r.platform);
    bump(lists.networks as Tally, r.network);
    bump(lists.countries as Tally, r.country_iso);
    bump(lists.languages as Tally, r.lang_norm);
    bump(lists.trafficBands as Tally, r.traffic_band);
    if (r.employees_low !== '') bump(lists.employees as Tally, r.employees_high === '' ? `${r.employees_low}+` : `${r.employees_low}-${r.employees_high}`);
    bump(lists.httpStatus as Tally, r.http_status);
    if (r.redirect_to !== '') redirects++;
    if (r.resolves === 'true') resolves.yes++;
    else if (r.resolves === 'false') resolves.no++;
    else resolves.unknown++;
    if (r.traffic_visits !== '') visits.push(Number(r.traffic_visits));
  }
  return { rows: byStatus, hosts: { distinct: distinct.size, found: found.size }, lists, redirects, resolves, visits: visits.sort((a, b) => a - b) };
}

async function summary(args: string[]): Promise<Summary> {
  const r = await runInProcess(['summarize', ...args, '--format', 'json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Summary;
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 500 });
  dir = mkdtempSync(join(tmpdir(), 'di-summarize-'));
  const hosts = sb.hostList().slice(0, 300);
  // Repeats (counted once as hosts), an invalid row, and a host the service does not hold.
  const lines = [...hosts.map((h, i) => `${i},https://${h}/`), `900,${hosts[0]}`, `901,www.${hosts[1]}`, '902,not a host', '903,nobody-holds-this-one.example'];
  writeFileSync(join(dir, 'crm.csv'), `id,website\n${lines.join('\n')}\n`);
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  for (const [out, ...flags] of [['out.csv'], ['out.ndjson'], ['out.json'], ['out.xlsx'], ['prefixed.csv', '--prefix', 'di_']]) {
    const r = await runInProcess(['batch', join(dir, 'crm.csv'), '-o', join(dir, out as string), '--quiet', ...flags], { env });
    expect(r.code, r.stderr).toBe(0);
  }
  const catalog = await runInProcess(['catalog', '--format', 'json'], { env });
  expect(catalog.code, catalog.stderr).toBe(0);
  // catalog's JSON is its records, one per technology (issue 16), as its NDJSON and CSV.
  categoryOf = new Map((JSON.parse(catalog.stdout) as { category: string; tech: string }[]).map((t) => [t.tech, t.category] as const));
  rows = parse(readFileSync(join(dir, 'out.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
}, 60_000);
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('domain-intel summarize', () => {
  it('counts what the CSV holds: rows by status, each section per distinct found host', async () => {
    const want = expected();
    // The input holds what the checks rely on: a repeated host, an invalid row, a missing host.
    expect(want.hosts.found).toBeLessThan(want.rows.found);
    expect(want.rows.invalid).toBe(1);
    expect(want.rows.missing).toBe(1);
    const s = await summary([join(dir, 'out.csv')]);
    expect(s.input).toEqual({ name: join(dir, 'out.csv'), format: 'csv', rows: rows.length });
    expect(s.rows).toEqual(want.rows);
    expect(s.hosts).toEqual(want.hosts);
    for (const [key, tally] of Object.entries(want.lists))
      expect(fromList(s[key as keyof typeof want.lists & keyof Summary] as Count[]), key).toEqual(asCounts(tally));
    expect(s.categories.length).toBeGreaterThan(0);
    expect(s.redirects).toBe(want.redirects);
    expect(s.resolves).toEqual(want.resolves);
    for (const c of s.technologies) expect(c.share).toBeCloseTo(c.count / want.hosts.found, 12);
    // Nearest rank, from the sorted figures.
    const rank = (p: number) => want.visits[Math.ceil(p * want.visits.length) - 1];
    expect(s.visits).toEqual({
      count: want.visits.length,
      min: want.visits[0],
      p25: rank(0.25),
      p50: rank(0.5),
      p75: rank(0.75),
      p90: rank(0.9),
      max: want.visits.at(-1),
    });
  });

  it('orders: technologies by count then name, bands in band order, employees and status codes numerically', async () => {
    const s = await summary([join(dir, 'out.csv')]);
    const sorted = [...s.technologies].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
    expect(s.technologies).toEqual(sorted);
    const bands = ['<1K', '1K-10K', '10K-100K', '100K-1M', '1M-10M', '10M+'];
    expect(s.trafficBands.map((c) => c.value)).toEqual(bands.filter((b) => s.trafficBands.some((c) => c.value === b)));
    const lows = s.employees.map((c) => Number(c.value.split('-')[0]));
    expect(lows).toEqual([...lows].sort((a, b) => a - b));
    const codes = s.httpStatus.map((c) => Number(c.value));
    expect(codes).toEqual([...codes].sort((a, b) => a - b));
  });

  it('gives the same summary from the NDJSON, the JSON, the workbook and a --prefix CSV batch wrote', async () => {
    const { input: _i, generatedAt: _g, ...fromCsv } = await summary([join(dir, 'out.csv')]);
    for (const [file, format, ...flags] of [
      ['out.ndjson', 'ndjson'],
      ['out.json', 'json'],
      ['out.xlsx', 'xlsx'],
      ['prefixed.csv', 'csv', '--prefix', 'di_'],
    ] as const) {
      const { input, generatedAt: _, ...rest } = await summary([join(dir, file), ...flags]);
      expect(input.format).toBe(format);
      expect(input.rows).toBe(rows.length);
      expect(rest).toEqual(fromCsv);
    }
  });

  it('draws the counts the file holds, in full with --by, cut to --top otherwise', async () => {
    const want = expected();
    const tech = [...(want.lists.technologies as Tally)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const full = await runInProcess(['summarize', join(dir, 'out.csv'), '--by', 'technologies'], { env });
    expect(full.code, full.stderr).toBe(0);
    const bar = /^ {2}(.+?) +[█▏▎▍▌▋▊▉]* +([\d,]+) +([\d.]+)%$/;
    const drawn = full.stdout.split('\n').flatMap((l) => {
      const m = bar.exec(l);
      return m ? [[m[1] as string, Number((m[2] as string).replace(/,/g, ''))] as const] : [];
    });
    expect(drawn.map(([, n]) => n)).toEqual(tech.map(([, n]) => n));
    for (const [i, [label]] of drawn.entries()) {
      const name = tech[i]?.[0] as string;
      expect(label.endsWith('…') ? name.startsWith(label.slice(0, -1)) : label === name, `${label} / ${name}`).toBe(true);
    }
    const top = await runInProcess(['summarize', join(dir, 'out.csv'), '--top', '3'], { env, stdoutTTY: true, columns: 100 });
    expect(top.code, top.stderr).toBe(0);
    expect(top.stdout).toContain(`rows       ${rows.length}: ${want.rows.found} found, ${want.rows.missing} missing, ${want.rows.invalid} invalid`);
    expect(top.stdout).toContain(`Technologies, top 3 of ${tech.length}`);
    expect(top.stdout).toContain(`redirects  ${want.redirects} of ${want.hosts.found} found hosts`);
    for (const line of top.stdout.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(100);
    // NO_COLOR is set by cliEnv: no escape sequence even on a terminal.
    expect(top.stdout).not.toContain('\x1b[');
    // Without NO_COLOR: colour on a terminal, none in a pipe.
    const colourEnv = { ...env, NO_COLOR: undefined, TERM: 'xterm' };
    const tty = await runInProcess(['summarize', join(dir, 'out.csv')], { env: colourEnv, stdoutTTY: true, columns: 100 });
    expect(tty.stdout).toContain('\x1b[');
    const pipe = await runInProcess(['summarize', join(dir, 'out.csv')], { env: colourEnv });
    expect(pipe.code, pipe.stderr).toBe(0);
    expect(pipe.stdout).not.toContain('\x1b[');
  });

  it('--from-cache summarises a host list from the cache alone, spending nothing; hosts not held are unknown', async () => {
    const held = rows.filter((r) => r.status === 'found').map((r) => r.host as string);
    const never = sb.hostList().slice(400, 410);
    writeFileSync(join(dir, 'hosts.txt'), `${[...held.slice(0, 50), ...never, 'not a host'].join('\n')}\n`);
    sb.resetCounters();
    const s = await summary([join(dir, 'hosts.txt'), '--from-cache']);
    expect(sb.charges()).toMatchObject({ total: 0, requests: 0 });
    expect(s.input.format).toBe('hosts');
    expect(s.rows).toEqual({ found: 50, missing: 0, invalid: 1, error: 0, unknown: never.length });
    expect(s.hosts).toEqual({ distinct: 50 + never.length, found: 50 });
  });

  it('reads NDJSON from stdin (told by its first byte), and cuts the JSON lists only when --top is given', async () => {
    const whole = await summary([join(dir, 'out.csv')]);
    const r = await runInProcess(['summarize', '-', '--format', 'json', '--top', '2'], { env, input: readFileSync(join(dir, 'out.ndjson')) });
    expect(r.code, r.stderr).toBe(0);
    const cut = JSON.parse(r.stdout) as Summary;
    expect(cut.input).toEqual({ name: 'stdin', format: 'ndjson', rows: rows.length });
    expect(whole.technologies.length).toBeGreaterThan(2);
    expect(cut.technologies).toEqual(whole.technologies.slice(0, 2));
    expect(cut.rows).toEqual(whole.rows);
    expect(cut.visits).toEqual(whole.visits);
  });

  it('says plainly when a file is not one batch wrote', async () => {
    const r = await runInProcess(['summarize', join(dir, 'crm.csv')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has no status column');
    expect(r.stdout).toBe('');
    const by = await runInProcess(['summarize', join(dir, 'out.csv'), '--by', 'countries', '--format', 'json'], { env });
    expect(by.code).toBe(2);
    expect(by.stdout).toBe('');
  });
});

describe('domain-intel summarize --html', () => {
  /** A report table's rows, as value -> count (the count cell's sort key, the figure itself). */
  function tableCounts(doc: El, id: string): Map<string, number> {
    const table = findOne(doc, (e) => e.name === 'table' && e.attrs['data-table'] === id);
    const body = findOne(table, (e) => e.name === 'tbody');
    return new Map(
      findAll(body, (e) => e.name === 'tr').map((tr) => {
        const cells = findAll(tr, (e) => e.name === 'td');
        return [textOf(cells[0] as El), Number((cells[1] as El).attrs['data-sort'] ?? textOf(cells[1] as El).replace(/,/g, ''))];
      }),
    );
  }

  it('writes one self-contained page whose tables hold the counts computed from the CSV, and still draws the charts', async () => {
    const want = expected();
    const file = join(dir, 'report.html');
    const r = await runInProcess(['summarize', join(dir, 'out.csv'), '--html', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('technologies'); // the terminal's charts as without --html
    expect(r.stderr).toContain(`report written to ${file}`);
    const html = readFileSync(file, 'utf8');
    const doc = parseReport(html); // well-formed as XML
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["'](?:https?:)?\/\//i);
    expect(findOne(doc, (e) => e.name === 'h1').attrs['data-input']).toBe(join(dir, 'out.csv'));
    // Without --top the tables hold every value.
    for (const key of ['technologies', 'platforms', 'countries', 'trafficBands', 'employees', 'httpStatus'] as const)
      expect(tableCounts(doc, key), key).toEqual(asCounts(want.lists[key] as Tally));
  });

  it('writes the page alone to stdout with --html -, and refuses it with --format json', async () => {
    const r = await runInProcess(['summarize', join(dir, 'out.csv'), '--html', '-'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(r.stdout).not.toContain('█');
    const both = await runInProcess(['summarize', join(dir, 'out.csv'), '--html', '-', '--format', 'json'], { env });
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
  });

  it('leaves an existing report as it was when the summary fails, and refuses to write over the input', async () => {
    const file = join(dir, 'kept.html');
    writeFileSync(file, 'the report of last month\n');
    const bad = await runInProcess(['summarize', join(dir, 'crm.csv'), '--html', file], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('has no status column');
    expect(readFileSync(file, 'utf8')).toBe('the report of last month\n');
    const before = readFileSync(join(dir, 'out.csv'));
    const over = await runInProcess(['summarize', join(dir, 'out.csv'), '--html', join(dir, 'out.csv')], { env });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain('is the input file');
    expect(readFileSync(join(dir, 'out.csv')).equals(before)).toBe(true);
  });
});

describe('domain-intel summarize, as a tryout found it', () => {
  it('uses the catalog cached for another service when the base URL in force has none (the file was enriched elsewhere)', async () => {
    const withCatalog = await summary([join(dir, 'out.csv')]);
    expect(withCatalog.categories.length).toBeGreaterThan(0);
    // The same cache directory, another base URL (the default one, and a second loopback one): no catalog cached for
    // either, and nothing is fetched for a summary.
    for (const other of [{ DOMAIN_INTEL_BASE_URL: undefined }, { DOMAIN_INTEL_BASE_URL: 'http://127.0.0.1:9/api/v1' }]) {
      const r = await runInProcess(['summarize', join(dir, 'out.csv'), '--format', 'json'], { env: { ...env, ...other } });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Summary).categories).toEqual(withCatalog.categories);
      expect(r.stderr).toContain(`categories from the one cached for ${sb.baseUrl}, fetched just now`);
      expect(r.stderr).not.toContain('no catalog in the cache');
    }
  });

  it('keeps the scales whole under --top: their own order is no ranking (terminal and JSON)', async () => {
    const whole = await summary([join(dir, 'out.csv')]);
    expect(whole.trafficBands.length).toBeGreaterThan(2);
    const cut = await summary([join(dir, 'out.csv'), '--top', '2']);
    expect(cut.technologies).toEqual(whole.technologies.slice(0, 2));
    for (const key of ['trafficBands', 'employees', 'httpStatus'] as const) expect(cut[key], key).toEqual(whole[key]);
    const bars = await runInProcess(['summarize', join(dir, 'out.csv'), '--top', '2'], { env });
    for (const band of whole.trafficBands) expect(bars.stdout).toContain(`  ${band.value} `);
    expect(bars.stdout).toMatch(/^Technologies, top 2 of \d+$/m);
  });

  it('says how many found hosts a one-value section covers when not all', async () => {
    const s = await summary([join(dir, 'out.csv')]);
    const covered = s.employees.reduce((sum, c) => sum + c.count, 0);
    expect(covered).toBeLessThan(s.hosts.found); // the sandbox has hosts with no employee range
    const r = await runInProcess(['summarize', join(dir, 'out.csv')], { env });
    expect(r.stdout).toContain(`Employees (${covered.toLocaleString('en-US')} of ${s.hosts.found.toLocaleString('en-US')} found hosts)`);
  });

  it('warns of our columns a --fields file lacks, refuses one without host, and names the --prefix a file was written with', async () => {
    const fields = join(dir, 'fields.csv');
    const w = await runInProcess(['batch', join(dir, 'crm.csv'), '-o', fields, '--fields', 'host,status,technologies,country_iso', '--quiet'], { env });
    expect(w.code, w.stderr).toBe(0);
    const r = await runInProcess(['summarize', fields, '--format', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'has no platform, network, lang_norm, traffic_band, traffic_visits, employees_low, employees_high, http_status, redirect_to, resolves columns',
    );
    expect((JSON.parse(r.stdout) as Summary).countries.length).toBeGreaterThan(0);
    const hostless = join(dir, 'hostless.csv');
    expect((await runInProcess(['batch', join(dir, 'crm.csv'), '-o', hostless, '--fields', 'status,technologies', '--quiet'], { env })).code).toBe(0);
    const refused = await runInProcess(['summarize', hostless], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has no host column (written with --fields?)');
    expect(refused.stdout).toBe('');
    const prefixed = await runInProcess(['summarize', join(dir, 'prefixed.csv')], { env });
    expect(prefixed.code).toBe(2);
    expect(prefixed.stderr).toContain('(written with --prefix di_? give it here too)');
  });

  it('says an empty file is empty, and will not read an enriched file from the keyboard', async () => {
    writeFileSync(join(dir, 'empty.csv'), '');
    const empty = await runInProcess(['summarize', join(dir, 'empty.csv')], { env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('empty.csv: is empty: nothing to summarise');
    writeFileSync(join(dir, 'plain.txt'), 'usi.example\nmafa.example\n');
    const plain = await runInProcess(['summarize', join(dir, 'plain.txt')], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('plain.txt: is a plain list, not a file batch wrote');
    expect(plain.stderr).toContain('--from-cache');
    const tty = await runInProcess(['summarize'], { env, stdinTTY: true });
    expect(tty.code).toBe(2);
    expect(tty.stderr).toContain('summarize reads a file batch wrote: give its name, or pipe it in');
    expect(tty.stderr).not.toContain('Ctrl-D');
  });

  it('warns when no host of a --from-cache list is cached, and says why --by categories has nothing without a catalog', async () => {
    const bare = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key, DOMAIN_INTEL_CACHE_DIR: join(dir, 'empty-cache') });
    const r = await runInProcess(['summarize', join(dir, 'hosts.txt'), '--from-cache', '--format', 'json'], { env: bare });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('none of the hosts of');
    const by = await runInProcess(['summarize', join(dir, 'out.csv'), '--by', 'categories'], { env: bare });
    expect(by.code, by.stderr).toBe(0);
    expect(by.stdout).toBe('');
    expect(by.stderr).toContain('no categories in');
    expect(by.stderr).toContain('no catalog is cached');
  });
});

describe('domain-intel summarize in a narrow terminal', () => {
  it('wraps its lines of figures between words at 40 and 60 columns, cutting none, and keeps the visits on one line at 120', async () => {
    const s = await summary([join(dir, 'out.csv')]);
    const g = (x: number) => x.toLocaleString('en-US');
    for (const columns of [40, 60, 120]) {
      const r = await runInProcess(['summarize', join(dir, 'out.csv')], { env, stdoutTTY: true, columns });
      expect(r.code, r.stderr).toBe(0);
      const plain = r.stdout.replace(/\x1b\[[0-9;]*m/g, '');
      const lines = plain.split('\n');
      const rowsAt = lines.findIndex((l) => l.startsWith('rows '));
      const rowsText = lines
        .slice(
          rowsAt,
          lines.findIndex((l) => l.startsWith('hosts ')),
        )
        .join(' ');
      expect(rowsText, `${columns} columns`).toContain(`${g(s.rows.error)} error`);
      expect(rowsText).not.toContain('…');
      const visits = lines.findIndex((l) => l.includes('visits, '));
      const visitsText = lines.slice(visits, visits + 3).join(' ');
      expect(visitsText).toContain(`max ${g(s.visits?.max ?? 0)}`);
      if (columns === 120) expect(lines[visits]).toContain(`max ${g(s.visits?.max ?? 0)}`);
    }
  });
});

describe('domain-intel summarize of a run cut short', () => {
  it('counts the rows the run never looked up as unknown, not as errors, as the run itself did', async () => {
    const cut = join(dir, 'cut.csv');
    const fresh = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
    const run = await runInProcess(['batch', join(dir, 'crm.csv'), '-o', cut, '--max-lookups', '3', '--replace-incomplete'], { env: fresh });
    const untried = Number(/not looked up (\d+)/.exec(run.stderr)?.[1]);
    expect(untried, run.stderr).toBeGreaterThan(100);
    const written = parse(readFileSync(cut, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(written.filter((r) => r.status === 'error' && r.reason?.startsWith('not looked up: '))).toHaveLength(untried);
    const s = await summary([cut]);
    expect(s.rows.error).toBe(0);
    expect(s.rows.unknown).toBe(untried);
    const bars = await runInProcess(['summarize', cut], { env });
    expect(bars.stdout).toContain(`${untried} not looked up`);
  });
});
