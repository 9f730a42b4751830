// The page around the sections: the style and the one script, inline, and a Content-Security-Policy that
// lets only those two run. The report is opened from disk, attached to mail, put on a share: the policy
// makes "no network when opened" a property the browser enforces, not only one our tests check, and a value
// that slipped past escaping could still not run or load anything.
import { createHash } from 'node:crypto';

// Kept free of '<' and '&' so the page stays well-formed XML without CDATA sections.
// On a wide screen each section's table stands beside its chart, so the page uses its width (a 1280 px page
// left 40% of it empty); narrower, and on paper, the table follows the chart as before.
const STYLE = `
:root { --fg: #1d2430; --muted: #5b6573; --bg: #ffffff; --panel: #f5f6f8; --bar: #3567d4; --rule: #dde1e6; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ee; --muted: #9aa4b2; --bg: #14171c; --panel: #1c2027; --bar: #6d9cff; --rule: #2c323b; }
}
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 1360px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 0 0 8px; }
.meta, .note { color: var(--muted); margin: 4px 0; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 8px; padding: 0; }
.figures div { background: var(--panel); border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.figures dt { color: var(--muted); font-size: 12px; }
.figures dd { margin: 0; font-size: 20px; font-weight: 600; }
section { border-top: 1px solid var(--rule); padding: 18px 0 22px; }
div.chart { max-width: 760px; margin: 4px 0 10px; overflow-x: auto; }
.chart svg { display: block; width: 100%; min-width: 640px; height: auto; }
.chart text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: var(--fg); }
.chart .notes_marks text { fill: var(--muted); font-variant-numeric: tabular-nums; }
.chart .bars_marks path { fill: var(--bar); }
.chart .bars_marks path:hover { opacity: 0.8; }
.scroll { max-width: 760px; max-height: 320px; overflow: auto; border: 1px solid var(--rule); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: 4px 10px; text-align: left; border-bottom: 1px solid var(--rule); overflow-wrap: break-word; }
td:first-child, th:first-child { width: 60%; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th { position: sticky; top: 0; background: var(--panel); }
th button { all: inherit; width: auto; border: 0; padding: 0; cursor: pointer; }
th[aria-sort=ascending] button::after { content: " \\25B2"; }
th[aria-sort=descending] button::after { content: " \\25BC"; }
@media print { .scroll { max-height: none; overflow: visible; } }
@media screen and (min-width: 1100px) {
  section { display: grid; grid-template-columns: minmax(0, 760px) minmax(0, 1fr); column-gap: 32px; align-items: start; }
  section > * { grid-column: 1; }
  section > h2 { grid-column: 1 / -1; }
  section > .scroll { grid-column: 2; grid-row: 2 / span 6; max-width: none; }
}
`;

// Click a header to sort its table; numbers by their data-sort, text by locale. The first click puts the
// largest figure first (what a reader usually wants), or text A to Z.
const SCRIPT = `
document.querySelectorAll('table.sortable').forEach(function (table) {
  var heads = table.querySelectorAll('thead th');
  heads.forEach(function (th, col) {
    th.querySelector('button').addEventListener('click', function () {
      var numeric = th.classList.contains('num');
      var was = th.getAttribute('aria-sort');
      var down = numeric ? was !== 'descending' : was === 'ascending';
      heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', down ? 'descending' : 'ascending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col];
        var y = b.cells[col];
        var d = numeric ? Number(x.getAttribute('data-sort')) - Number(y.getAttribute('data-sort')) : x.textContent.localeCompare(y.textContent);
        return down ? -d : d;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
`;

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const POLICY = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;

/** A whole page: `title` and `body` are markup already escaped by the caller. */
export function page(title: string, body: string): string {
  return [
    '<!DOCTYPE html>',
    '<html xmlns="http://www.w3.org/1999/xhtml" lang="en">',
    '<head>',
    '<meta charset="utf-8"/>',
    `<meta http-equiv="Content-Security-Policy" content="${POLICY}"/>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
    '<meta name="generator" content="domain-intel summarize"/>',
    `<title>${title}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    body,
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
