// What `npm run test:browser` asks of the report inside Chromium. Each function is sent to the page as its
// source text (Runtime.evaluate), so it may use only what a page has: no imports, no closure over this module.

/** Every chart drawn with its labels: size on screen, and each bar's label, bar and figure laid out apart. */
export function checkCharts() {
  const problems = [];
  // Vega's SVG: a bar is a path marked aria-roledescription="bar"; the label and the figure are text marks
  // of the layers named labels and notes, one of each per bar, in the same order.
  const charts = [...document.querySelectorAll('div.chart svg')];
  for (const svg of charts) {
    const where = svg.closest('section')?.id ?? '?';
    const box = svg.getBoundingClientRect();
    if (box.width < 400 || box.height < 20) problems.push(`${where}: chart drawn ${box.width}x${box.height} px`);
    if (!svg.closest('div.chart').getAttribute('aria-label')) problems.push(`${where}: a chart with no name`);
    const bars = [...svg.querySelectorAll('[aria-roledescription="bar"]')];
    const labels = [...svg.querySelectorAll('.labels_marks text')];
    const notes = [...svg.querySelectorAll('.notes_marks text')];
    if (bars.length === 0) problems.push(`${where}: a chart with no bars`);
    if (labels.length !== bars.length || notes.length !== bars.length)
      problems.push(`${where}: ${bars.length} bars, ${labels.length} labels, ${notes.length} figures`);
    bars.forEach((bar, i) => {
      const lb = labels[i]?.getBoundingClientRect();
      const vb = notes[i]?.getBoundingClientRect();
      const rb = bar.getBoundingClientRect();
      const name = labels[i]?.textContent ?? '';
      if (!lb || name.trim() === '' || lb.width <= 0 || lb.height <= 0) problems.push(`${where}: a bar without a visible label`);
      if (!vb || notes[i].textContent.trim() === '' || vb.width <= 0) problems.push(`${where}: "${name}" has no figure`);
      if (!lb || !vb) return;
      if (lb.left < box.left) problems.push(`${where}: label "${name}" cut off at the left`);
      if (lb.right > rb.left) problems.push(`${where}: label "${name}" runs into its bar`);
      if (vb.left < rb.right) problems.push(`${where}: the figure of "${name}" overlaps its bar`);
      if (vb.right > box.right) problems.push(`${where}: the figure of "${name}" is cut off at the right`);
      if (Math.abs((lb.top + lb.bottom) / 2 - (rb.top + rb.bottom) / 2) > 4) problems.push(`${where}: label "${name}" is not level with its bar`);
    });
  }
  // The page uses its width: at 1280 px a section's chart and table together span most of the page.
  for (const section of document.querySelectorAll('section')) {
    const parts = [...section.querySelectorAll('div.chart, div.scroll')].map((e) => e.getBoundingClientRect());
    if (parts.length < 2 || window.innerWidth < 1200) continue;
    const used = Math.max(...parts.map((b) => b.right)) - Math.min(...parts.map((b) => b.left));
    if (used < 0.85 * window.innerWidth) problems.push(`${section.id}: chart and table use ${Math.round(used)} px of ${window.innerWidth}`);
  }
  const sections = [...document.querySelectorAll('section')].map((s) => ({ id: s.id, charts: s.querySelectorAll('div.chart svg').length }));
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth) problems.push(`the page scrolls sideways (${page.scrollWidth} px in ${page.clientWidth})`);
  return { problems, sections, height: page.scrollHeight, parserError: document.querySelector('parsererror') !== null, contentType: document.contentType };
}

/** The tables sort when a header is clicked: text A to Z, numbers largest first, then smallest first. */
export function checkSorting() {
  const problems = [];
  const table = document.querySelector('table[data-table="technologies"]');
  const [byName, byHosts] = table.querySelectorAll('thead th button');
  const column = (i) => [...table.tBodies[0].rows].map((r) => r.cells[i]);
  const inOrder = (list, cmp) => list.every((x, i) => i === 0 || cmp(list[i - 1], x) <= 0);
  byName.click();
  const names = column(0).map((c) => c.textContent);
  if (!inOrder(names, (a, b) => a.localeCompare(b))) problems.push(`names not A to Z after a click: ${names.slice(0, 4).join(', ')}...`);
  byHosts.click();
  const down = column(1).map((c) => Number(c.dataset.sort));
  if (!inOrder(down, (a, b) => b - a)) problems.push(`hosts not largest first after a click: ${down.slice(0, 6).join(', ')}...`);
  byHosts.click();
  const up = column(1).map((c) => Number(c.dataset.sort));
  if (!inOrder(up, (a, b) => a - b)) problems.push(`hosts not smallest first after a second click: ${up.slice(0, 6).join(', ')}...`);
  if (names.length < 2) problems.push('the technologies table has fewer than two rows to sort');
  return { problems };
}
