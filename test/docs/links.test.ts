// The front page and the pages under docs/: every relative link leads to a file that exists (and an #anchor to a
// heading of that page), every page of docs/ is reachable from the README, the README stays a front page, and
// neither the pages nor the help cite the service's spec by section number (a user has never seen it).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OptionRow } from '../../src/cli/options/row.js';
import { OPTIONS } from '../../src/cli/options/table.js';
import { ROOT } from '../helpers/cli.js';

const DOCS = join(ROOT, 'docs');
const PAGES = [
  join(ROOT, 'README.md'),
  join(ROOT, 'ARCHITECTURE.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];

/** The text a reader sees as prose: fenced blocks and code spans removed (a link there is an example, not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The relative links of a page: [text](target), not http(s):, mailto: or other schemes. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? '').filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (m[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe('links in README.md, ARCHITECTURE.md and docs/', () => {
  it('reads GitHub anchors and skips code as GitHub does', () => {
    expect(anchors('# A `-o FILE`: replaced\n## Caching and money\n## Caching and money\n```\n# not a heading\n```\n')).toEqual(
      new Set(['a--o-file-replaced', 'caching-and-money', 'caching-and-money-1']),
    );
    expect(relativeLinks('[a](docs/x.md) [b](https://x.example) `[c](y.md)` [d](#top)\n```\n[e](z.md)\n```\n')).toEqual(['docs/x.md', '#top']);
  });

  it.each(PAGES.map((p) => [relative(ROOT, p), p]))('%s: every relative link resolves', (_name, page) => {
    const text = readFileSync(page, 'utf8');
    const broken: string[] = [];
    for (const link of relativeLinks(text)) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? page : join(dirname(page), decodeURIComponent(path));
      if (!existsSync(target)) broken.push(`${link}: no such file`);
      else if (anchor !== undefined && target.endsWith('.md') && statSync(target).isFile()) {
        if (!anchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('links every page of docs/ from the README, which stays a front page (at most 12 KB)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(relativeLinks(readme).map((l) => l.split('#')[0]));
    const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThanOrEqual(9);
    for (const page of pages) expect(linked, page).toContain(`docs/${page}`);
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(12 * 1024);
  });
});

describe('the service rules in words', () => {
  const citation = /§|\b(rule|spec|section) \d+(\.\d+)?\b/i;

  it('the README and docs/ cite no section of the spec', () => {
    for (const page of PAGES.filter((p) => !p.endsWith('ARCHITECTURE.md'))) {
      const lines = readFileSync(page, 'utf8').split('\n');
      expect(lines.filter((l) => citation.test(l)).map((l) => `${relative(ROOT, page)}: ${l}`)).toEqual([]);
    }
  });

  it('no option help cites one', () => {
    const helps = (Object.values(OPTIONS) as OptionRow[]).flatMap((row) => [row.help, ...Object.values(row.per ?? {}).map((p) => p.help ?? '')]);
    expect(helps.length).toBeGreaterThan(50);
    expect(helps.filter((h) => citation.test(h))).toEqual([]);
  });
});
