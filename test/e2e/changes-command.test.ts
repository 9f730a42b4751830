// `domain-intel changes` from outside (issue 17), against the sandbox's releases as the answer key: a batch at
// 2025-10, a refresh at 2025-11, then the feed gives exactly changesBetween's changes for the input's hosts
// (each once, nothing else), with no key and without a request to the service; --all, --field, --tech, the
// formats; then a refresh at 2025-12 and --since picking the answer held at the moment asked.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesBetween, type ReleaseChange, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const HOSTS = 400;
const key = (c: { host: string; field: string; from: unknown; to: unknown }) => JSON.stringify([c.host, c.field, c.from, c.to]);
const keys = (list: { host: string; field: string; from: unknown; to: unknown }[]) => list.map(key).sort();
const ndjson = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { host: string; field: string; from: unknown; to: unknown; at: string; added?: string[]; removed?: string[] });

let sb: Sandbox;
let env: Record<string, string | undefined>;
let noKey: Record<string, string | undefined>;
let input: string;
let dir: string;
let hosts: string[];
/** The latest moment before each refresh (epoch ms): every answer of the run before was fetched by then. */
const before: number[] = [];

/** Waits for the clock to pass `t`: a moment strictly between two runs, not a timing assertion. */
async function pass(t: number): Promise<void> {
  while (Date.now() <= t + 1) await new Promise((r) => setTimeout(r, 2));
}

async function batch(out: string, ...flags: string[]): Promise<Record<string, string>[]> {
  const r = await runInProcess(['batch', input, '-o', join(dir, out), '--quiet', ...flags], { env });
  expect(r.code, r.stderr).toBe(0);
  return parse(readFileSync(join(dir, out), 'utf8'), { columns: true }) as Record<string, string>[];
}

/** changesBetween for the input's hosts. */
const expected = (from: string, to: string): ReleaseChange[] => changesBetween(from, to, { hosts: HOSTS }).filter((c) => hosts.includes(c.host));

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS, release: '2025-10' });
  // The input: hosts each month moves (some appear only later, some go), hosts no month moves, an invalid
  // row and a duplicate.
  const moved = [
    ...new Set([...changesBetween('2025-10', '2025-11', { hosts: HOSTS }), ...changesBetween('2025-11', '2025-12', { hosts: HOSTS })].map((c) => c.host)),
  ];
  const still = sb
    .hostList()
    .filter((h) => !moved.includes(h))
    .slice(0, 20);
  hosts = [...moved.slice(0, 60), ...still];
  // Kept for the whole file (the store helpers' temp dirs go after each test): the runs build on each other.
  dir = mkdtempSync(join(tmpdir(), 'di-changes-'));
  input = join(dir, 'crm.csv');
  writeFileSync(input, `id,website\n${hosts.map((h, i) => `${i},https://${h}/`).join('\n')}\n99,not a host\n100,${hosts[0]}\n`);
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  // The same cache and settings, but no key: the feed needs none, and sends nothing. The base URL stays: it
  // names whose answers to read (the cache keeps each service's apart).
  noKey = { ...env, DOMAIN_INTEL_API_KEY: undefined };
  await batch('first.csv');
  before.push(Date.now());
  await pass(before[0] as number);
  sb.setRelease('2025-11');
  await batch('second.csv', '--refresh');
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('domain-intel changes', () => {
  it('reports exactly what the release changed for the input, each change once, with no key and no lookup', async () => {
    const changes = expected('2025-10', '2025-11');
    expect(changes.some((c) => c.field === 'status')).toBe(true);
    expect(changes.some((c) => c.field === 'technologies')).toBe(true);
    sb.resetCounters();
    const r = await runInProcess(['changes', input, '--format', 'ndjson'], { env: noKey });
    expect(r.code, r.stderr).toBe(0);
    const events = ndjson(r.stdout);
    expect(keys(events)).toEqual(keys(changes));
    // Spent nothing, asked nothing.
    expect(sb.charges()).toMatchObject({ total: 0, requests: 0 });
    // `at` is when the new answer was first seen: the refresh's fetched_at of that host's row.
    const second = new Map(
      (parse(readFileSync(join(dir, 'second.csv'), 'utf8'), { columns: true }) as Record<string, string>[]).map((row) => [row.website, row.fetched_at]),
    );
    for (const e of events) expect(e.at, e.host).toBe(second.get(`https://${e.host}/`));
    // Technologies events name what was adopted and dropped.
    for (const e of events.filter((x) => x.field === 'technologies')) {
      expect(e.added).toEqual((e.to as string[]).filter((t) => !(e.from as string[]).includes(t)));
      expect(e.removed).toEqual((e.from as string[]).filter((t) => !(e.to as string[]).includes(t)));
    }
    const changed = new Set(changes.map((c) => c.host)).size;
    expect(r.stderr).toContain(`compared ${hosts.length} hosts (1 invalid row skipped): ${changed} changed, ${changes.length} events`);
  });

  it('--all covers every host with a past in the cache: here the input hosts', async () => {
    const r = await runInProcess(['changes', '--all', '--format', 'ndjson'], { env: noKey });
    expect(r.code, r.stderr).toBe(0);
    expect(keys(ndjson(r.stdout))).toEqual(keys(expected('2025-10', '2025-11')));
    const both = await runInProcess(['changes', input, '--all'], { env: noKey });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);
  });

  it('reads a workbook as batch does (an enriched .xlsx included): the same events as its CSV', async () => {
    const book = join(dir, 'crm.xlsx');
    const wrote = await runInProcess(['batch', input, '-o', book, '--quiet'], { env });
    expect(wrote.code, wrote.stderr).toBe(0);
    const fromCsv = await runInProcess(['changes', input, '--format', 'ndjson'], { env: noKey });
    const fromBook = await runInProcess(['changes', book, '--format', 'ndjson'], { env: noKey });
    expect(fromBook.code, fromBook.stderr).toBe(0);
    expect(fromBook.stdout).not.toBe('');
    expect(fromBook.stdout).toBe(fromCsv.stdout);
  });

  it('--field keeps those fields only; an unknown field is a usage error naming the choices', async () => {
    const r = await runInProcess(['changes', input, '--field', 'traffic_band,status', '--format', 'ndjson'], { env: noKey });
    expect(r.code, r.stderr).toBe(0);
    const want = expected('2025-10', '2025-11').filter((c) => c.field === 'traffic_band' || c.field === 'status');
    expect(want.length).toBeGreaterThan(0);
    expect(keys(ndjson(r.stdout))).toEqual(keys(want));
    // Column names in another case are the same names.
    const upper = await runInProcess(['changes', input, '--field', 'Traffic_Band,STATUS', '--format', 'ndjson'], { env: noKey });
    expect(keys(ndjson(upper.stdout))).toEqual(keys(want));
    const bad = await runInProcess(['changes', input, '--field', 'traffic_band,tech'], { env: noKey });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown field tech; fields: status, resolves, technologies/);
    // A field nothing moved: nothing on stdout, "no changes" on stderr, exit 0.
    const none = await runInProcess(['changes', input, '--field', 'registrar'], { env: noKey });
    expect([none.code, none.stdout]).toEqual([0, '']);
    expect(none.stderr).toMatch(
      /no changes; compared \d+ hosts( \(.*\))?; these are the answers batch runs stored \(batch FILE --refresh --changes fetches them again\)/,
    );
    const quiet = await runInProcess(['changes', input, '--field', 'registrar', '--quiet'], { env: noKey });
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, '', '']);
  });

  it('--tech keeps the hosts that adopted or dropped it, matched case-insensitively; a name not in the catalog is refused', async () => {
    const techs = expected('2025-10', '2025-11').filter((c) => c.field === 'technologies');
    const name = techs.map((c) => (c.to as string[]).find((t) => !(c.from as string[]).includes(t))).find((t) => t !== undefined) as string;
    const moved = techs.filter((c) => (c.to as string[]).includes(name) !== (c.from as string[]).includes(name));
    for (const asked of [name, name.toUpperCase()]) {
      const r = await runInProcess(['changes', input, '--tech', asked, '--format', 'ndjson'], { env: noKey });
      expect(r.code, r.stderr).toBe(0);
      expect(keys(ndjson(r.stdout)), asked).toEqual(keys(moved));
      // No catalog cached to check the name against (the feed never fetches one): said, with the free way.
      expect(r.stderr).toContain('no catalog in the cache to check --tech');
    }
    // With the catalog cached (free), a name is checked against it.
    expect((await runInProcess(['catalog', '--format', 'json'], { env })).code).toBe(0);
    const up = await runInProcess(['changes', input, '--tech', name.toUpperCase(), '--format', 'ndjson'], { env: noKey });
    expect(keys(ndjson(up.stdout))).toEqual(keys(moved));
    const bad = await runInProcess(['changes', input, '--tech', `${name}x`], { env: noKey });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`did you mean ${name}`);
    const without = await runInProcess(['changes', input, '--tech', name, '--field', 'status'], { env: noKey });
    expect(without.code).toBe(2);
  });

  it('writes CSV, a JSON array and, on a terminal, a table with technologies as +adopted -dropped', async () => {
    const lines = (await runInProcess(['changes', input, '--format', 'ndjson'], { env: noKey })).stdout;
    const all = ndjson(lines);
    const json = await runInProcess(['changes', input, '--format', 'json'], { env: noKey });
    expect(JSON.parse(json.stdout)).toEqual(all);
    const csv = await runInProcess(['changes', input, '--format', 'csv'], { env: noKey });
    const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual(['host', 'field', 'from', 'to', 'at', 'added', 'removed']);
    expect(rows.map((row) => `${row.host} ${row.field} ${row.at}`)).toEqual(all.map((e) => `${e.host} ${e.field} ${e.at}`));
    const tech = all.find((e) => e.field === 'technologies' && (e.added?.length ?? 0) > 0 && (e.removed?.length ?? 0) === 0);
    if (tech === undefined) throw new Error('the release adopts no technology among the input hosts');
    expect(rows.find((row) => row.host === tech.host && row.field === 'technologies')).toMatchObject({
      to: (tech.to as string[]).join(';'),
      added: (tech.added ?? []).join(';'),
      removed: '',
    });
    const table = await runInProcess(['changes', input], { env: noKey, stdoutTTY: true, columns: 200 });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^host\s+field\s+from\s+to\s+at/);
    const line = table.stdout.split('\n').find((l) => l.startsWith(`${tech.host} `) && l.includes('technologies'));
    // Cells are two spaces apart: host, field, from (nothing dropped: blank, not the null sign, which would read
    // as "had no technologies"), to (+each adopted), at.
    expect(line).not.toContain('—');
    expect(line?.trim().split(/\s{2,}/)).toEqual([tech.host, 'technologies', (tech.added ?? []).map((t) => `+${t}`).join(' '), tech.at]);
    // At 60 columns: one line an event, the time left out before the host or the field is cut (it made each
    // event a five-line block).
    const narrow = await runInProcess(['changes', input], { env: noKey, stdoutTTY: true, columns: 60 });
    expect(narrow.stdout.split('\n')[0]).toMatch(/^host\s+field\s+from\s+to\s*$/);
    const narrowRows = narrow.stdout
      .split('\n')
      .slice(1)
      .filter((l) => l !== '');
    expect(narrowRows.length).toBe(
      table.stdout
        .split('\n')
        .slice(1)
        .filter((l) => l !== '').length,
    );
    for (const row of narrowRows) expect(row.length).toBeLessThanOrEqual(60);
    expect(narrowRows.some((l) => l.startsWith(`${tech.host} `) && l.includes('technologies'))).toBe(true);
    // Off a terminal the default is NDJSON.
    expect((await runInProcess(['changes', input], { env: noKey })).stdout).toBe(lines);
  });

  it('reads its own enriched output without the column notice, and a quiet night with nothing changed writes nothing at all', async () => {
    // Hosts no release moves, in a CRM export with both Website and Email, and an invalid row: the README's
    // cron recipe (`batch ... -o crm.csv`, then `changes crm.csv --quiet`) must not mail anyone on such a night.
    const still = hosts.slice(60);
    const crm = join(dir, 'crm-email.csv');
    writeFileSync(crm, `Name,Website,Email\n${still.map((h, i) => `n${i},https://${h}/,sales@${h}`).join('\n')}\nx,not a host,nobody\n`);
    // Not yet ours: the choice between two host columns is said, as before.
    const plain = await runInProcess(['changes', crm, '--format', 'ndjson'], { env: noKey });
    expect(plain.stderr).toContain('the host is read from "Website" (column 2), not "Email" (column 3)');
    expect((await runInProcess(['batch', crm, '-o', crm, '--quiet'], { env })).code).toBe(0);
    const enriched = await runInProcess(['changes', crm, '--since', '20h', '--format', 'ndjson'], { env: noKey });
    expect([enriched.code, enriched.stdout]).toEqual([0, '']);
    expect(enriched.stderr).not.toContain('the host is read from');
    expect(enriched.stderr).toContain(`no changes; compared ${still.length} hosts (1 invalid row skipped)`);
    // batch reads it alike: no notice either.
    const again = await runInProcess(['batch', crm, '-o', join(dir, 'crm-email-2.csv')], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('the host is read from');
    const quiet = await runInProcess(['changes', crm, '--since', '20h', '--format', 'ndjson', '--quiet'], { env: noKey });
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it("reads batch's own output by our host column: the hosts that run looked up, not the user's Website", async () => {
    // A CRM export whose Website is the agency's page and whose Email names the customer's domain: enriched by
    // Email (--column), the file's `host` is the customer's, which the cache is keyed by. The feed on that file,
    // with no --column, must follow our column: by rank it would read Website, hosts nothing moved.
    const moved = [...new Set(expected('2025-10', '2025-11').map((c) => c.host))].slice(0, 20);
    const agency = hosts.slice(60, 80);
    expect(moved.length).toBe(20);
    const crm = join(dir, 'crm-by-email.csv');
    writeFileSync(crm, `Name,Website,Email\n${moved.map((h, i) => `n${i},https://${agency[i]}/,sales@${h}`).join('\n')}\nx,,nobody\n`);
    const out = join(dir, 'crm-by-email-enriched.csv');
    const wrote = await runInProcess(['batch', crm, '--column', 'Email', '-o', out, '--quiet'], { env });
    expect(wrote.code, wrote.stderr).toBe(0);
    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.slice(0, moved.length).map((row) => row.host)).toEqual(moved);
    const r = await runInProcess(['changes', out, '--format', 'ndjson'], { env: noKey });
    expect(r.code, r.stderr).toBe(0);
    const want = expected('2025-10', '2025-11').filter((c) => moved.includes(c.host));
    expect(keys(ndjson(r.stdout))).toEqual(keys(want));
    expect(r.stderr).toContain(`compared ${moved.length} hosts (1 invalid row skipped)`);
    expect(r.stderr).not.toContain('the host is read from');
    // A workbook batch wrote is read alike.
    const book = join(dir, 'crm-by-email.xlsx');
    expect((await runInProcess(['batch', crm, '--column', 'Email', '-o', book, '--quiet'], { env })).code).toBe(0);
    const fromBook = await runInProcess(['changes', book, '--format', 'ndjson'], { env: noKey });
    expect([fromBook.code, fromBook.stdout]).toEqual([0, r.stdout]);
    // --column still chooses: the user's Website, whose hosts nothing moved.
    const byWebsite = await runInProcess(['changes', out, '--column', 'Website', '--format', 'ndjson'], { env: noKey });
    expect([byWebsite.code, byWebsite.stdout]).toEqual([0, '']);
  });

  it('refuses a --since in the future, and warns when none of the hosts is in the cache (another cache: nothing to compare)', async () => {
    const future = await runInProcess(['changes', input, '--since', '2999-01-01'], { env: noKey });
    expect(future.code).toBe(2);
    expect(future.stderr).toContain('--since 2999-01-01T00:00:00Z is in the future');
    const elsewhere = cliEnv({});
    const r = await runInProcess(['changes', input, '--format', 'ndjson'], { env: elsewhere });
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toMatch(/warning: none of the \d+ hosts is in the cache in .*: nothing to compare/);
  });

  it('--since picks the answer held then: three releases, the net change from the one held at that moment', async () => {
    before.push(Date.now());
    await pass(before[1] as number);
    sb.setRelease('2025-12');
    await batch('third.csv', '--refresh');
    sb.resetCounters();
    const feed = async (...flags: string[]) => {
      const r = await runInProcess(['changes', input, '--format', 'ndjson', ...flags], { env: noKey });
      expect(r.code, r.stderr).toBe(0);
      return keys(ndjson(r.stdout));
    };
    const iso = (ms: number) => new Date(ms + 1).toISOString();
    // Between the first run and the first refresh: the 2025-10 answers were held then.
    expect(await feed('--since', iso(before[0] as number))).toEqual(keys(expected('2025-10', '2025-12')));
    // Between the two refreshes: the 2025-11 answers.
    const last = expected('2025-11', '2025-12');
    expect(await feed('--since', iso(before[1] as number))).toEqual(keys(last));
    // The default is each host's latest against the answer it replaced: the last refresh's change where it
    // made one, else the one before (a host the 2025-12 refresh found unchanged still holds its 2025-11 answer).
    const movedLast = new Set(last.map((c) => c.host));
    expect(await feed()).toEqual(keys([...last, ...expected('2025-10', '2025-11').filter((c) => !movedLast.has(c.host))]));
    // A day ago, before any answer: the oldest answer known stands for it, the net change of all three.
    expect(await feed('--since', '1d')).toEqual(keys(expected('2025-10', '2025-12')));
    // After the last refresh: nothing changed since.
    expect(await feed('--since', new Date(Date.now()).toISOString())).toEqual([]);
    expect(keys(expected('2025-10', '2025-12'))).not.toEqual(keys(expected('2025-11', '2025-12')));
    expect(sb.charges()).toMatchObject({ total: 0, requests: 0 });
    const bad = await runInProcess(['changes', input, '--since', 'yesterday'], { env: noKey });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--since/);
  });
});
