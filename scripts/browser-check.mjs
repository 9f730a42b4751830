// `npm run test:browser`: the HTML report in a real browser. Writes the sample report, opens it in headless
// Chromium (Debian's package: apt-get install -y chromium) at 1280 px wide, saves a full-page screenshot, and
// fails unless every chart is drawn with its labels, the tables sort, the page asked for nothing over the
// network and its policy blocked nothing of its own; then opens it as XHTML, where a well-formedness fault
// is a parser error. Skipped, saying so, when no Chromium is installed. Talks to Chromium over the DevTools
// protocol with undici's WebSocket (Node 20 has none built in); no puppeteer to download a browser.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { WebSocket } from 'undici';
import { checkCharts, checkSorting } from './browser-page.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const WIDTH = 1280;

function findChromium() {
  const names = [process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'].filter(Boolean);
  return names.find((name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0);
}

// The report module and the sample Summary are TypeScript: bundled once into a throwaway module to import.
async function sampleReport(dir) {
  const entry = `export { renderReport } from './src/summary/html/report.ts'; export { sampleSummary } from './test/summary/html-sample.ts';`;
  const out = join(dir, 'report-module.mjs');
  await build({ stdin: { contents: entry, resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'warning' });
  const { renderReport, sampleSummary } = await import(pathToFileURL(out).href);
  const summary = sampleSummary();
  return { summary, html: await renderReport(summary) };
}

function launch(chromium, profile) {
  // As root (containers, CI), Chromium refuses to start without --no-sandbox.
  const sandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const args = ['--headless=new', '--disable-gpu', '--hide-scrollbars', '--no-first-run', '--no-default-browser-check', ...sandbox];
  const child = spawn(chromium, [...args, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (d) => {
      text += d;
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`Chromium exited (${code}) before it listened:\n${text}`)));
  });
  return { child, port };
}

async function connect(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const page = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const pending = new Map();
  const events = [];
  const waiters = [];
  ws.addEventListener('message', (e) => {
    const msg = JSON.parse(String(e.data));
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result);
      return;
    }
    events.push(msg);
    for (const w of waiters.filter((w) => w.method === msg.method)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(msg.params);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const once = (method) => new Promise((resolve) => waiters.push({ method, resolve }));
  return { send, once, events, close: () => ws.close() };
}

async function evaluate(cdp, fn) {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression: `(${fn.toString()})()`, returnByValue: true });
  if (exceptionDetails) throw new Error(`${fn.name} threw in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

async function open(cdp, file) {
  const loaded = cdp.once('Page.loadEventFired');
  await cdp.send('Page.navigate', { url: pathToFileURL(file).href });
  await loaded;
}

const chromium = findChromium();
if (!chromium) {
  console.error('test:browser skipped: no Chromium found (on Debian: apt-get install -y chromium; or set CHROMIUM=/path/to/chrome).');
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'di-browser-'));
const out = process.env.BROWSER_OUT ?? join(root, 'tmp', 'browser');
mkdirSync(out, { recursive: true });
const { summary, html } = await sampleReport(work);
const report = join(out, 'report.html');
writeFileSync(report, html);
const { child, port } = launch(chromium, join(work, 'profile'));
const problems = [];
try {
  const cdp = await connect(await port);
  await Promise.all(['Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable'].map((m) => cdp.send(m)));
  await cdp.send('Emulation.setDeviceMetricsOverride', { width: WIDTH, height: 900, deviceScaleFactor: 1, mobile: false });
  await open(cdp, report);

  const charts = await evaluate(cdp, checkCharts);
  problems.push(...charts.problems);
  // A chart in every section that has figures; the sections with none say so instead (see the unit tests).
  const lists = ['technologies', 'categories', 'platforms', 'networks', 'countries', 'languages', 'trafficBands', 'employees', 'httpStatus'];
  const expected = ['rows', 'resolves', ...lists.filter((id) => summary[id].length > 0), ...(summary.visits ? ['visits'] : [])];
  for (const id of expected) if (charts.sections.find((s) => s.id === id)?.charts !== 1) problems.push(`${id}: no chart drawn`);

  const shot = await cdp.send('Page.captureScreenshot', {
    format: 'png',
    captureBeyondViewport: true,
    clip: { x: 0, y: 0, width: WIDTH, height: charts.height, scale: 1 },
  });
  const png = join(out, `report-${WIDTH}.png`);
  writeFileSync(png, Buffer.from(shot.data, 'base64'));

  problems.push(...(await evaluate(cdp, checkSorting)).problems);

  // Nothing fetched but the file itself, and nothing of ours refused by the page's policy or thrown.
  for (const e of cdp.events) {
    if (e.method === 'Network.requestWillBeSent' && !e.params.request.url.startsWith('file:')) problems.push(`requested ${e.params.request.url}`);
    if (e.method === 'Log.entryAdded' && e.params.entry.level === 'error') problems.push(`console: ${e.params.entry.text}`);
    if (e.method === 'Runtime.exceptionThrown') problems.push(`script error: ${e.params.exceptionDetails.text}`);
    if (e.method === 'Runtime.consoleAPICalled' && e.params.type === 'error') problems.push('console.error called');
  }

  // The same bytes as XHTML: Chromium's XML parser stops at the first fault and shows a parsererror.
  const xhtml = join(work, 'report.xhtml');
  copyFileSync(report, xhtml);
  await open(cdp, xhtml);
  const asXml = await evaluate(cdp, checkCharts);
  if (asXml.contentType !== 'application/xhtml+xml') problems.push(`XHTML opened as ${asXml.contentType}`);
  if (asXml.parserError) problems.push('not well-formed XML: Chromium shows a parsererror');
  problems.push(...asXml.problems.map((p) => `as XHTML: ${p}`));
  if (asXml.sections.length !== charts.sections.length) problems.push(`XHTML shows ${asXml.sections.length} sections, HTML ${charts.sections.length}`);

  cdp.close();
  console.error(`report: ${report}\nscreenshot: ${png} (${WIDTH}x${charts.height} px), ${expected.length} charts checked`);
} finally {
  // Chromium writes to its profile until it has exited: removing the directory earlier races it.
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
if (problems.length > 0) {
  console.error(`test:browser failed:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.error('test:browser passed');
