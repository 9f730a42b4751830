// A strict reader of the report for tests: the report is written as polyglot HTML (well-formed XML too), so
// this parses it by XML's rules and throws at the first fault: a '<' that opens no tag, an '&' that starts no
// entity, an unquoted or repeated attribute, a tag closed out of order or left open, a character XML forbids.
// The tree it returns lets tests read the figures back out of the markup.

export interface El {
  name: string;
  attrs: Record<string, string>;
  children: (El | string)[];
}

const TAG = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[A-Za-z_:][\w:.-]*="[^"<]*")*)\s*(\/?)>/y;
const ATTR = /\s+([A-Za-z_:][\w:.-]*)="([^"<]*)"/g;
const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const FORBIDDEN = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;

function decode(raw: string, at: number): string {
  const bare = raw.replace(ENTITY, '').indexOf('&');
  if (bare >= 0) throw new Error(`'&' that starts no entity near offset ${at}`);
  return raw.replace(ENTITY, (_, e: string) => NAMED[e] ?? String.fromCodePoint(e.startsWith('#x') ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))));
}

/** The document's root element; throws on the first well-formedness fault, naming the offset. */
export function parseReport(doc: string): El {
  const bad = FORBIDDEN.exec(doc);
  if (bad) throw new Error(`character U+${bad[0].codePointAt(0)!.toString(16)} XML forbids at offset ${bad.index}`);
  const prolog = /^<!DOCTYPE html>\n/.exec(doc);
  if (!prolog) throw new Error('no <!DOCTYPE html> first');
  const root: El = { name: '#document', attrs: {}, children: [] };
  const stack: El[] = [root];
  let at = prolog[0].length;
  while (at < doc.length) {
    const next = doc.indexOf('<', at);
    const end = next < 0 ? doc.length : next;
    const text = decode(doc.slice(at, end), at);
    if (text !== '') stack.at(-1)!.children.push(text);
    if (next < 0) break;
    TAG.lastIndex = next;
    const m = TAG.exec(doc);
    if (!m) throw new Error(`'<' that opens no tag at offset ${next}: ${JSON.stringify(doc.slice(next, next + 40))}`);
    const [whole, closing, name, attrText, selfClosing] = m as unknown as [string, string, string, string, string];
    at = next + whole.length;
    if (closing) {
      const open = stack.pop()!;
      if (open.name !== name || stack.length === 0) throw new Error(`</${name}> closes <${open.name}> at offset ${next}`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const [, key, value] of attrText.matchAll(ATTR)) {
      if (key! in attrs) throw new Error(`attribute ${key} twice on <${name}> at offset ${next}`);
      attrs[key!] = decode(value!, next);
    }
    const el: El = { name, attrs, children: [] };
    stack.at(-1)!.children.push(el);
    if (!selfClosing) stack.push(el);
  }
  if (stack.length !== 1) throw new Error(`<${stack.at(-1)!.name}> never closed`);
  const elements = root.children.filter((c): c is El => typeof c !== 'string');
  if (elements.length !== 1 || root.children.some((c) => typeof c === 'string' && c.trim() !== '')) throw new Error('not exactly one root element');
  return elements[0]!;
}

/** Every element under `el` (depth first) that `test` accepts. */
export function findAll(el: El, test: (e: El) => boolean): El[] {
  const out: El[] = [];
  for (const child of el.children) {
    if (typeof child === 'string') continue;
    if (test(child)) out.push(child);
    out.push(...findAll(child, test));
  }
  return out;
}

/** The one element under `el` that `test` accepts; throws when there is none or more than one. */
export function findOne(el: El, test: (e: El) => boolean): El {
  const found = findAll(el, test);
  if (found.length !== 1) throw new Error(`expected one element, found ${found.length}`);
  return found[0]!;
}

/** The text inside an element, entities decoded. */
export function textOf(el: El): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');
}
