// Terminal escape injection: values from the service or the input (a registrar name, a technology label, a
// CSV cell) may carry escape sequences that recolour or clear the screen, retitle the window, plant OSC 8
// links, rewrite the line with CR or reorder it with bidi overrides. Whatever is printed for a person (tables,
// label/value blocks, log lines, error messages) must leave none of them active.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainProfile } from '../../src/api/types.js';
import { formatQuotaLine } from '../../src/cli/output/format.js';
import { createLogger } from '../../src/cli/output/logger.js';
import { catalogView, employeesView, profileView, technologyView, trafficView } from '../../src/cli/output/render.js';
import { renderKeyValue, renderTable } from '../../src/cli/output/table.js';
import { createStyle, PLAIN } from '../../src/cli/output/terminal.js';
import { renderRowsTable } from '../../src/cli/output/rows.js';
import type { EnrichedRow } from '../../src/domain/types.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runInProcess } from '../helpers/cli.js';
import { ESCAPES, hostileProfile, startHostileService } from './hostile-service.js';
import { BIN, STACK_FRAME, firstHazard, requireBuild, runCli, tempHome, type TempHome, type TestServer } from './helpers.js';

const PAYLOADS = Object.values(ESCAPES);
/** Text each payload keeps visible once made inert. */
const VISIBLE = ['RED', 'CLEARED', 'CLICK', 'LINK', 'TITLE', 'GOOD', 'EVIL', 'LIVE', 'ISO', 'C1', 'BELL'];
/** Text that lives only inside an escape sequence and must be gone with it. */
const HIDDEN = ['evil.example', 'pwned-title'];

/** With colour on, our own SGR sequences (ESC [ ... m) are expected; nothing else may be. */
function foreignEscape(s: string): string | null {
  return firstHazard(s.replace(/\x1b\[[0-9;]*m/g, ''));
}

function expectInert(out: string, what: string): void {
  expect(firstHazard(out), what).toBeNull();
  for (const h of HIDDEN) expect(out, what).not.toContain(h);
}

function row(host: string, data: DomainProfile | null, status: EnrichedRow['status'] = 'found', reason: string | null = null): EnrichedRow<'profile'> {
  return { kind: 'profile', line: 1, cells: [host], value: host, status, host, reason, data, cached: false, fetchedAt: null };
}

describe('renderers and logger (service-like values)', () => {
  const profile = hostileProfile('victim.test', 'escape') as unknown as DomainProfile;

  it('tables and label/value blocks strip or escape every payload and keep the visible text', () => {
    const styles = [PLAIN, createStyle(true)];
    for (const style of styles) {
      const outs: Record<string, string> = {
        profileView: profileView(profile, style, 200),
        trafficView: trafficView(
          {
            host: 'x.com',
            estimated_monthly_visits: 5,
            band: ESCAPES.osc8,
            as_of: ESCAPES.title,
            history: [
              { month: ESCAPES.csi, visits: 1 },
              { month: ESCAPES.cr, visits: 3 },
            ],
          },
          style,
        ),
        employeesView: employeesView(
          { host: ESCAPES.bidi, apex: ESCAPES.clear, estimated_employees: { low: 1, high: null, point: null }, as_of: ESCAPES.c1csi },
          style,
        ),
        technologyView: technologyView({ tech: ESCAPES.title, domains: 3 }, style),
        catalogView: catalogView(
          [
            {
              category: ESCAPES.csi,
              technologies: [
                { tech: ESCAPES.osc8st, domains: 1 },
                { tech: ESCAPES.isolate, domains: 2 },
              ],
            },
          ],
          style,
          120,
        ),
        renderTable: renderTable(
          PAYLOADS.map((p) => ({ value: p, n: 1 })),
          [{ key: 'value', header: `head${ESCAPES.csi}` }, { key: 'n' }],
          { style, width: 80 },
        ),
        renderKeyValue: renderKeyValue(
          PAYLOADS.map((p, i): [string, unknown] => [`${ESCAPES.bell}label${i}`, [p, p]]),
          { style },
        ),
        renderRowsTable: renderRowsTable(
          [row('a.com', profile), row(ESCAPES.title, null, 'invalid', `invalid character ${ESCAPES.csi}`)],
          'profile',
          style,
          300,
        ),
      };
      for (const [name, out] of Object.entries(outs)) {
        if (style.enabled) {
          expect(foreignEscape(out), name).toBeNull();
          expect(out, name).not.toContain('\x1b[31mRED'); // the service's colour is gone, not ours
          for (const h of HIDDEN) expect(out, name).not.toContain(h);
        } else expectInert(out, name);
      }
      const all = Object.values(outs).join('\n');
      for (const v of VISIBLE) expect(all, v).toContain(v);
    }
  });

  it('keeps each value on its own line whatever it holds (property)', () => {
    const anyText = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(anyText, anyText, fc.array(anyText, { maxLength: 3 }), (a, b, techs) => {
        const p = { ...profile, registrar: a, network: b, redirect_to: a + b, technologies: techs, country_iso: b };
        const out = profileView(p, PLAIN, 120);
        expect(firstHazard(out)).toBeNull();
        expect(out.split('\n')).toHaveLength(13); // one line per field, as for a plain profile
        const table = renderTable(
          [
            { a, b },
            { a: b, b: a },
          ],
          [{ key: 'a' }, { key: 'b' }],
        );
        expect(firstHazard(table)).toBeNull();
        expect(table.split('\n')).toHaveLength(4);
      }),
      { numRuns: 300 },
    );
  });

  it('the logger sanitises and redacts every line; the quota line sanitises a hostile reset header', () => {
    const key = `di_live_${'9f'.repeat(24)}`;
    for (const style of [PLAIN, createStyle(true)]) {
      let text = '';
      const logger = createLogger({
        stream: { write: (s: string) => ((text += s), true) } as never,
        style,
        quiet: false,
        debug: true,
        secrets: [key],
      });
      for (const p of PAYLOADS) {
        logger.error(`lookup failed for ${p} with key ${key}`);
        logger.warn(p);
        logger.info(`${p}${key.slice(0, 20)}\x1b[0m\x1b]0;\x07${key.slice(20)}`); // stripping rejoins the key: still masked
        logger.debug(`GET /domain/${p} -> 200`);
      }
      logger.quota({ limit: 10, remaining: 5, reset: null, resetRaw: 'soon\x9b2J\x1b]0;pwned-title\x07', seenAt: 0 });
      const lines = text.split('\n').filter((l) => l !== '');
      expect(lines).toHaveLength(PAYLOADS.length * 4 + 1); // one line per message: CR and LF cannot split one
      expect(foreignEscape(text)).toBeNull();
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(8, 30));
      for (const h of HIDDEN) expect(text).not.toContain(h);
    }
    expect(firstHazard(formatQuotaLine({ limit: 1, remaining: 1, reset: null, resetRaw: `\x9b31m${ESCAPES.osc8}`, seenAt: 0 }, 0))).toBeNull();
  });
});

describe.concurrent('e2e: hostile input on the command line', () => {
  let sb: Sandbox;
  let home: TempHome;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0 });
    home = tempHome(sb);
  });
  afterAll(async () => {
    home.remove();
    await sb.close();
  });

  it('a host argument carrying an escape is refused with exit 2 and an inert one-line message', async () => {
    const cases: [string[], string][] = [
      [['lookup', '\x1b[2Jevil.com'], 'evil.com'],
      [['traffic', '\x1b]0;pwned-title\x07evil.com'], 'evil.com'],
      [['employees', '\x1b]8;;http://evil.example/\x07evil.com\x1b]8;;\x07'], 'evil.com'],
      [['--json', 'lookup', '\u202emoc.live'], 'moc.live'],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, { env: home.env() })));
    for (const [i, [args, shown]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toContain('\x1b');
      expect(firstHazard(r.stderr), args.join(' ')).toBeNull();
      expect(r.stderr).toContain(shown);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(STACK_FRAME);
    }
    expect(sb.requests().filter((q) => /evil|moc/.test(q.url))).toEqual([]); // nothing of these was sent
  });

  it('hostile cells and file names reach stderr and tables inert', async () => {
    const missing = await runCli(['batch', home.path('\x1b[31mnope\x07.csv')], { env: home.env() });
    expect(missing.code).toBe(2);
    expect(firstHazard(missing.stderr)).toBeNull();
    expect(missing.stderr).toContain('nope');

    const table = await runCli(['lookup', sb.hostList()[0]!, `${ESCAPES.title}a.com`, `b.com${ESCAPES.osc8}`, '--format', 'table'], {
      env: home.env(),
    });
    expect(table.code, table.stderr).toBe(0);
    expectInert(table.stdout, 'stdout');
    expectInert(table.stderr, 'stderr');
    expect(table.stdout).toContain('invalid');
  });
});

describe.concurrent('e2e: a service that answers with escape sequences', () => {
  let service: TestServer;
  let home: TempHome;
  beforeAll(async () => {
    requireBuild();
    service = await startHostileService('escape');
    home = tempHome({ baseUrl: service.baseUrl, key: `di_live_${'cd34'.repeat(12)}` });
  });
  afterAll(async () => {
    home.remove();
    await service.close();
  });

  it('every table and message a person reads is inert, and still shows the visible text', async () => {
    const runs = {
      lookup: ['lookup', 'one.example', '--format', 'table'],
      lookups: ['lookup', 'one.example', 'two.example', '--format', 'table', '--no-cache'],
      traffic: ['traffic', 'one.example', '--format', 'table'],
      employees: ['employees', 'one.example', '--format', 'table'],
      catalog: ['catalog', '--format', 'table'],
      tech: ['tech', 'Known', '--format', 'table'],
    };
    let shown = '';
    // Independent commands, run side by side, each with its own config and cache.
    const homes = Object.keys(runs).map(() => tempHome({ baseUrl: service.baseUrl, key: `di_live_${'cd34'.repeat(12)}` }));
    const results = await Promise.all(Object.values(runs).map((args, i) => runCli(args, { env: homes[i]!.env() })));
    for (const h of homes) h.remove();
    for (const [i, [name]] of Object.entries(runs).entries()) {
      const r = results[i]!;
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expectInert(r.stdout, `${name} stdout`);
      expectInert(r.stderr, `${name} stderr`);
      expect(r.stdout.length).toBeGreaterThan(0);
      // The quota line quotes the service's unparseable X-Quota-Reset (C1 CSI and OSC bytes): made inert too.
      if (name === 'lookup') expect(r.stderr).toMatch(/resets soon/);
      shown += r.stdout;
    }
    for (const v of ['RED', 'CLICK', 'LINK', 'TITLE', 'LIVE', 'GOOD', 'EVIL', 'CLEARED', 'ISO', 'Known']) expect(shown, v).toContain(v);
  });

  // CSV is data: into a file or a pipe it is kept byte for byte; onto a terminal its cells are made inert.
  it.skipIf(!existsSync('/usr/bin/script'))('CSV printed on a terminal is inert; the same CSV into a pipe keeps the bytes', async () => {
    const h = tempHome({ baseUrl: service.baseUrl, key: `di_live_${'cd34'.repeat(12)}` });
    try {
      const args = ['lookup', 'one.example', 'two.example', '--format', 'csv', '--no-cache', '--quiet'];
      const cmd = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
      const onTerminal = await new Promise<string>((resolve) => {
        const env = Object.fromEntries(Object.entries(h.env()).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
        const child = spawn('/usr/bin/script', ['-qec', cmd, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        const chunks: Buffer[] = [];
        child.stdout.on('data', (d: Buffer) => chunks.push(d));
        child.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
      // Read as the UTF-8 it is: a control picture (␍, E2 90 8D) read as Latin-1 would look like a C1 control.
      const shown = onTerminal.replace(/\r\n/g, '\n'); // the terminal's own line ends
      expect(shown).toMatch(/^input,status,host/);
      expectInert(shown, 'csv on a terminal');
      for (const v of ['RED', 'CLICK', 'TITLE']) expect(shown).toContain(v);
      const piped = await runCli(args, { env: h.env() });
      expect(piped.code).toBe(0);
      expect(firstHazard(piped.stdout)).not.toBeNull(); // data, unaltered, for the program reading the pipe
    } finally {
      h.remove();
    }
  });

  it('error messages built from service text are inert: a hostile 404 code, suggestions from a hostile catalog', async () => {
    const [r, json] = await Promise.all([runCli(['tech', 'Nope'], { env: home.env() }), runCli(['--json', 'tech', 'WordPres'], { env: home.env() })]);
    expect(r.code, r.stderr).toBe(8);
    expectInert(r.stderr, 'tech 404');
    expect(r.stderr).not.toMatch(STACK_FRAME);
    expect(json.code).toBe(8);
    expectInert(json.stderr, 'tech 404 --json');
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ code: 'not_found', exit: 8 });
  });
});

describe('a control character from the service, shown on a terminal (issue 29)', () => {
  let service: TestServer;
  let home: TempHome;
  beforeAll(async () => {
    service = await startHostileService('escape');
    home = tempHome({ baseUrl: service.baseUrl, key: `di_live_${'ab12'.repeat(12)}` });
  });
  afterAll(async () => {
    home.remove();
    await service.close();
  });

  it('a bell in the traffic band reads BELL␇ in the profile, never the text \\x07 or a bell', async () => {
    const r = await runInProcess(['lookup', 'victim.test'], { env: home.env(), stdoutTTY: true, columns: 200 });
    expect(r.code, r.stderr).toBe(0);
    const band = r.stdout.split('\n').find((l) => l.startsWith('traffic:'));
    expect(band).toContain('(BELL␇, ');
    expect(r.stdout).not.toContain('\\x07');
    expect(r.stdout).not.toContain('\x07');
    // The bidi override in the registrar shows as its code point: visible, and acting on nothing.
    expect(r.stdout).toContain('moc.<U+202E>LIVE<U+202C>');
    expectInert(r.stdout, 'lookup on a terminal');
  });
});
