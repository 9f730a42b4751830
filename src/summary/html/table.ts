// The table under each chart: the same figures, exact and sortable (the page's one script sorts a table by the
// column whose header is clicked, using each cell's data-sort when it has one, so '1,234' sorts as 1234).
import { escapeHtml } from './text.js';

export interface Column {
  header: string;
  numeric: boolean;
}

/** One cell: its text, and for numeric columns the number it sorts by. */
export interface Cell {
  text: string;
  sort?: number;
}

/** A sortable table; `name` marks it (data-table) so tests and scripts can find a section's figures. */
export function sortableTable(name: string, columns: readonly Column[], rows: readonly (readonly Cell[])[]): string {
  const head = columns.map((c) => `<th scope="col"${c.numeric ? ' class="num"' : ''}><button type="button">${escapeHtml(c.header)}</button></th>`).join('');
  const body = rows
    .map((row) => {
      const cells = row.map((cell, i) => {
        const numeric = columns[i]?.numeric === true;
        const sort = cell.sort === undefined ? '' : ` data-sort="${cell.sort}"`;
        return `<td${numeric ? ' class="num"' : ''}${sort}>${escapeHtml(cell.text)}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table class="sortable" data-table="${escapeHtml(name)}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}
