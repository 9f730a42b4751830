// The same export as a spreadsheet saves it in each dialect of issue 15: UTF-8 CSV, `;`-delimited (Excel in
// European locales), CR-only ("CSV (Macintosh)"), Windows-1252 (Excel's CSV on Windows) and UTF-16LE with tabs
// and a BOM (Excel's "Unicode Text"). Written into a temp dir by the tests, never committed: the cells hold
// accented names in every form (all within Windows-1252), a quoted cell with the delimiter in it, and the host.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FORMS = ['utf8', 'semicolon', 'cr', 'windows-1252', 'utf16le-tab'] as const;
export type Form = (typeof FORMS)[number];

const CITIES = ['Zürich', 'Besançon', 'København', 'Málaga', 'Straße', 'Genève', 'Œuvre'];

/** The export's header and rows (cells as the user sees them), `rows` long, over `hosts` in turn. */
export function exportRows(hosts: readonly string[], rows: number): string[][] {
  const out = [['id', 'Company', 'Website', 'City']];
  for (let i = 0; i < rows; i++) out.push([String(i + 1), `Société ${i}, “Ltd”`, hosts[i % hosts.length]!, CITIES[i % CITIES.length]!]);
  return out;
}

/** The rows as one text in a dialect: its delimiter, its line end; a cell with the delimiter or a quote quoted. */
function render(rows: string[][], delimiter: string, eol: string): string {
  const cell = (c: string) => (c.includes(delimiter) || c.includes('"') ? `"${c.replaceAll('"', '""')}"` : c);
  return rows.map((r) => r.map(cell).join(delimiter) + eol).join('');
}

/** Writes the export in `form` into `dir`; returns the file's path. */
export function writeExport(dir: string, form: Form, rows: string[][]): string {
  const file = join(dir, `export-${form}.${form === 'utf16le-tab' ? 'txt' : 'csv'}`);
  const bytes =
    form === 'utf8'
      ? Buffer.from(render(rows, ',', '\r\n'))
      : form === 'semicolon'
        ? Buffer.from(render(rows, ';', '\r\n'))
        : form === 'cr'
          ? Buffer.from(render(rows, ',', '\r'))
          : form === 'windows-1252'
            ? windows1252(render(rows, ',', '\r\n'))
            : Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(render(rows, '\t', '\r\n'), 'utf16le')]);
  writeFileSync(file, bytes);
  return file;
}

// Node has no Windows-1252 encoder: Latin-1 for the letters, and the few characters of the export that
// Windows-1252 puts in 0x80-0x9F by hand (from its published table).
const HIGH: Record<string, number> = { '€': 0x80, Œ: 0x8c, '“': 0x93, '”': 0x94 };
function windows1252(text: string): Buffer {
  return Buffer.from([...text].map((c) => HIGH[c] ?? (c.charCodeAt(0) <= 0xff ? c.charCodeAt(0) : 0x3f)));
}
