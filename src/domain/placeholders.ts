// What people type in a website column when there is no website: the one list of them (issue 15). A value
// is compared whole, trimmed, case folded and inner spaces collapsed, so "N/A", " tbd " and "No  website"
// all match; a value that merely contains one ("none.com", "test.example") does not.
// Only values that are never a website's name belong here. Real hostnames stay out even when they look like
// filler: example.com, example.org and test.com are registered names a service may hold, and `.example`
// names are the sandbox's and the tests'. Most entries have no dot and would be refused as single names
// anyway; they are listed so the row says what the value is. The dotted ones ("n.a", "t.b.d", German "k.a."
// for keine Angabe, Dutch "n.v.t." for niet van toepassing) pass every other check and are refused only
// here; normalise.ts also matches the host a value names, so "https://n.a/" is the placeholder too.
// biome-ignore format: a table reads better in rows of a kind than one entry a line
const PLACEHOLDERS = new Set([
  // Dashes, dots, marks and noughts.
  '-', '--', '---', '–', '—', '.', '..', '...', '…', '?', '??', '???', '*', '0', '#', 'x', 'xx', 'xxx',
  // Not yet, not applicable, not known.
  'tbd', 'tba', 'tbc', 't.b.d', 't.b.d.', 't.b.a', 't.b.a.', 't.b.c', 't.b.c.', 'todo', 'to do', 'pending',
  'n/a', 'n.a', 'n.a.', 'na', 'n/d', 'n.d', 'n.d.', 'nd', 'k.a', 'k.a.', 'n.v.t', 'n.v.t.',
  'not applicable', 'not available', 'not known', 'unknown', 'unk', 'none', 'none given', 'no', 'nope',
  'no website', 'no web site', 'no site', 'no url', 'no domain', 'no email', 'no e-mail',
  'missing', 'empty', 'blank', 'same', 'same as above', 'ditto', 'see notes', 'see above',
  // What programs write for nothing, and spreadsheet errors.
  'null', 'nil', 'undefined', 'nan', 'void', '#n/a', '#na', '#value!', '#ref!', '#name?', '#null!', '#num!', '#div/0!',
  // Filler.
  'test', 'testing', 'example', 'sample', 'demo', 'placeholder', 'dummy', 'fake', 'foo', 'bar', 'asdf', 'abc',
  'website', 'web', 'www',
]);

/** True when `value` is a known placeholder ("TBD", "n/a", "none"...), not a website. */
export function isPlaceholder(value: string): boolean {
  // Checked for every row: a value longer than every placeholder, with no space to fold away, is none of them
  // (no need to fold and lower-case it to say so).
  if (value.length > LONGEST && !/\s/.test(value)) return false;
  return PLACEHOLDERS.has(value.trim().replace(/\s+/g, ' ').toLowerCase());
}

/** isPlaceholder for a name already lower-cased and trimmed (a host as normalised). */
export function isPlaceholderName(host: string): boolean {
  return host.length <= LONGEST && PLACEHOLDERS.has(host);
}

const LONGEST = Math.max(...[...PLACEHOLDERS].map((p) => p.length));
