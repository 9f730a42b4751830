// The README's nightly pattern, night after night against a sandbox whose data moves a release a night:
//   domain-intel batch crm.csv --max-age 20h --changes -o crm.csv
//   domain-intel changes crm.csv --since 1d --format ndjson
// A day passes between nights by moving every time the cache holds a day back (answers and history alike), so
// --max-age 20h refreshes each night as it would. The answer key is changesBetween (sandbox/changes.ts): every
// change the sandbox made to the list's hosts is reported once, nothing unchanged is, `--since` picks the
// version held then, and `changes` spends nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnsFor } from '../../src/output/write.js';
import { changesBetween, type ReleaseChange, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { cliEnv, runInProcess } from '../helpers/cli.js';

const HOSTS = 1000;
const DAY = 24 * 3600 * 1000;
let sb: Sandbox;
let dir: string;
let env: Record<string, string | undefined>;
let file: string;
let hosts: string[];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rpm: 0, hosts: HOSTS });
  dir = mkdtempSync(join(tmpdir(), 'di-nightly-'));
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, DOMAIN_INTEL_API_KEY: sb.key });
  hosts = sb.hostList();
  file = join(dir, 'crm.csv');
  // A CRM export: the user's columns around the website, CRLF line ends, a host the service never held.
  const rows = [...hosts, 'never-held.example'].map((h, i) => `Acct ${i},https://${h}/,owner${i % 7}`);
  writeFileSync(file, `account,website,owner\r\n${rows.join('\r\n')}\r\n`);
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A day goes by: every time the cache holds moves a day back, as if the last night were yesterday. */
function dayPasses(): void {
  const db = new Database(join(env.DOMAIN_INTEL_CACHE_DIR as string, 'cache.sqlite'));
  db.exec(`UPDATE answers SET fetched_at = fetched_at - ${DAY}; UPDATE history SET fetched_at = fetched_at - ${DAY}, replaced_at = replaced_at - ${DAY};`);
  db.close();
}

const night = () => runInProcess(['batch', file, '--max-age', '20h', '--changes', '-o', file], { env });
const feed = async (...extra: string[]) => {
  const r = await runInProcess(['changes', file, '--format', 'ndjson', ...extra], { env });
  expect(r.code).toBe(0);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { host: string; field: string; from: unknown; to: unknown; at: string });
};
/** Changes as comparable keys: host, field, from, to. */
const keys = (list: { host: string; field: string; from: unknown; to: unknown }[]) => list.map((c) => JSON.stringify([c.host, c.field, c.from, c.to])).sort();
const expected = (from: string, to: string): ReleaseChange[] => changesBetween(from, to, { hosts: HOSTS }).filter((c) => hosts.includes(c.host));

/** The enriched file's rows by host: our columns by name. */
function rowsByHost(): Map<string, Record<string, string>> {
  const records = parse(readFileSync(file), { columns: true }) as Record<string, string>[];
  return new Map(records.map((r) => [r.host as string, r]));
}

describe('the nightly pattern over three releases', () => {
  it('night 1: every host new; the feed has nothing before it', async () => {
    const r = await night();
    expect(r.code).toBe(0);
    expect(sb.charges().total).toBe(hosts.length + 1);
    const rows = rowsByHost();
    expect(rows.size).toBe(hosts.length + 1);
    for (const row of rows.values()) expect(row.change).toBe('new');
    expect(await feed('--since', '1d')).toEqual([]);
  });

  it('night 2 (next release): each change the sandbox made is in the file and in the feed once, nothing else; the feed spends nothing', async () => {
    dayPasses();
    sb.setRelease('2025-11');
    const before = sb.charges().total;
    const r = await night();
    expect(r.code).toBe(0);
    expect(sb.charges().total).toBe(before + hosts.length + 1);
    const moved = expected('2025-10', '2025-11');
    expect(moved.length).toBeGreaterThan(20);
    const rows = rowsByHost();
    // The file kept in place holds the user's columns and one set of ours, night after night.
    expect(Object.keys(rows.get(hosts[0] as string) ?? {})).toEqual(['account', 'website', 'owner', ...columnsFor('profile', true)]);
    for (const [host, row] of rows) {
      const mine = moved.filter((c) => c.host === host);
      const status = mine.find((c) => c.field === 'status');
      const want = status ? (status.to === 'missing' ? 'gone' : 'back') : mine.length > 0 ? 'changed' : 'same';
      expect({ host, change: row.change }).toEqual({ host, change: want });
      if (want === 'changed') expect((row.changed_fields ?? '').split(';').sort()).toEqual(mine.map((c) => c.field).sort());
      const tech = mine.find((c) => c.field === 'technologies');
      if (tech) {
        const was = new Set(tech.from as string[]);
        const now = new Set(tech.to as string[]);
        expect(row.tech_added).toBe([...now].filter((t) => !was.has(t)).join(';'));
        expect(row.tech_removed).toBe([...was].filter((t) => !now.has(t)).join(';'));
      }
    }
    const charged = sb.charges().total;
    const events = await feed('--since', '1d');
    expect(keys(events)).toEqual(keys(moved));
    expect(sb.charges().total).toBe(charged);
  });

  it("night 3: --since picks the version held then (a day back: last night's; 40 hours: the first night's)", async () => {
    dayPasses();
    sb.setRelease('2025-12');
    expect((await night()).code).toBe(0);
    expect(keys(await feed('--since', '1d'))).toEqual(keys(expected('2025-11', '2025-12')));
    // Without --since, each host's latest answer against the one it replaced, however old: last night's
    // change for a host that moved last night, the night before's for one that moved only then.
    const last = expected('2025-11', '2025-12');
    const movedLast = new Set(last.map((c) => c.host));
    expect(keys(await feed())).toEqual(keys([...last, ...expected('2025-10', '2025-11').filter((c) => !movedLast.has(c.host))]));
    // 40 hours back, between the first night and the second, the first night's answers were held: the net
    // change from then, each field once (a host that moved twice, once).
    expect(keys(await feed('--since', '40h'))).toEqual(keys(expected('2025-10', '2025-12')));
  });
});
