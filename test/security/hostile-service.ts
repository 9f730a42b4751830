// A service that answers in the right shape with hostile values: spreadsheet formulas and terminal escape
// sequences in every string field a site owner could influence (registrar, network, technologies...). The
// shapes are valid per spec §2, so the client accepts them and the defences under test are the output's.
import type { ServerResponse } from 'node:http';
import { sendJson, startServer, type RecordedRequest, type TestServer } from './helpers.js';

/** Payloads a hostile value may carry, each with text that should stay visible once made inert. */
export const ESCAPES = {
  csi: '\x1b[31mRED\x1b[0m',
  clear: '\x1b[2J\x1b[HCLEARED',
  osc8: '\x1b]8;;http://evil.example/steal\x07CLICK\x1b]8;;\x07',
  osc8st: '\x1b]8;;http://evil.example/st\x1b\\LINK\x1b]8;;\x1b\\',
  title: '\x1b]0;pwned-title\x07TITLE',
  cr: 'GOOD\rEVIL',
  bidi: 'moc.\u202eLIVE\u202c',
  isolate: '\u2067ISO\u2069',
  c1csi: '\x9b31mC1',
  bell: 'BELL\x07',
} as const;

/** Formula starters, as the registrar/platform/... of a profile. */
export const FORMULAS = {
  registrar: '=HYPERLINK("http://evil.example","click")',
  platform: '@SUM(1)',
  redirect_to: '+1+1',
  country_iso: '-2+3',
  lang_norm: '\t=1+1',
  network: '\r=cmd',
} as const;

export function hostileProfile(domain: string, style: 'formula' | 'escape'): Record<string, unknown> {
  const e = ESCAPES;
  if (style === 'formula') {
    return {
      domain,
      resolves: true,
      technologies: ["=cmd|' /C calc'!A0", 'React'],
      ...FORMULAS,
      age_days: -12,
      http_status: 200,
      traffic: { estimated_monthly_visits: 1500, band: '-1K', as_of: '2025-10' },
      employees: { apex: domain, low: 1, high: 10, point: null, as_of: '=2025-10-14' },
    };
  }
  return {
    domain,
    resolves: true,
    technologies: [e.csi, e.osc8, e.title],
    network: e.osc8st,
    platform: e.clear,
    registrar: e.bidi,
    age_days: 100,
    country_iso: e.c1csi,
    lang_norm: e.isolate,
    http_status: 301,
    redirect_to: e.cr,
    traffic: { estimated_monthly_visits: 1500, band: e.bell, as_of: e.title },
    employees: { apex: domain, low: 1, high: 10, point: null, as_of: e.csi },
  };
}

/** Serves every endpoint of §4 with hostile values; unknown technologies are 404 with a hostile error code. */
export function startHostileService(style: 'formula' | 'escape'): Promise<TestServer> {
  const e = ESCAPES;
  return startServer((req: RecordedRequest, res: ServerResponse) => {
    const path = decodeURIComponent(req.url.replace(/^\/api\/v1/, '').split('?')[0] ?? '');
    // C1 controls are legal bytes in a (latin-1) header value, so a hostile reset header can carry a CSI.
    const reset = style === 'escape' ? 'soon\x9b2J\x9d0;pwned-title\x9c' : '2030-01-01T00:00:00Z';
    const quota = { 'x-quota-limit': '1000', 'x-quota-remaining': '900', 'x-quota-reset': reset };
    if (req.method === 'POST' && path === '/domains/batch') {
      const { domains } = JSON.parse(req.body) as { domains: string[] };
      return sendJson(res, 200, { data: domains.map((d) => hostileProfile(d, style)), missing: [] }, quota);
    }
    let m = /^\/domain\/(.+)$/.exec(path);
    if (m) return sendJson(res, 200, { data: hostileProfile(m[1]!, style) }, quota);
    m = /^\/traffic\/(.+)$/.exec(path);
    if (m) {
      return sendJson(
        res,
        200,
        {
          data: {
            host: m[1],
            estimated_monthly_visits: 1500,
            band: e.osc8,
            as_of: e.title,
            history: [
              { month: e.csi, visits: 10 },
              { month: '2025-10', visits: 20 },
            ],
          },
        },
        quota,
      );
    }
    m = /^\/employees\/(.+)$/.exec(path);
    if (m) return sendJson(res, 200, { data: { host: m[1], apex: e.bidi, estimated_employees: { low: 5, high: null, point: null }, as_of: e.clear } }, quota);
    if (path === '/meta/technologies' && style === 'formula') {
      return sendJson(res, 200, {
        data: [
          {
            category: '=1+1',
            technologies: [
              { tech: '@SUM(2)', domains: 5 },
              { tech: '-3', domains: 0 },
            ],
          },
        ],
      });
    }
    if (path === '/meta/technologies') {
      return sendJson(res, 200, {
        data: [
          {
            category: e.csi,
            technologies: [
              { tech: `Word${e.osc8}Press`, domains: 5 },
              { tech: e.title, domains: 1 },
            ],
          },
          { category: e.bidi, technologies: [{ tech: e.cr, domains: 0 }] },
        ],
      });
    }
    m = /^\/technology\/(.+)$/.exec(path);
    if (m) {
      if (m[1] === 'Known') return sendJson(res, 200, { data: { tech: style === 'formula' ? '=Known()' : `${e.title}Known${e.csi}`, domains: 3 } });
      return sendJson(res, 404, { error: `not_found${e.title}` });
    }
    if (/^\/broken\//.test(path)) return sendJson(res, 500, { error: e.clear });
    return sendJson(res, 404, { error: 'not_found' });
  });
}
