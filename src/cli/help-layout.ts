// How --help is laid out (issue 29): at 60 columns the terminal cut the option descriptions mid-word (commander
// does not wrap beside a term when fewer than 40 columns are left), and the examples and the exit-code line
// were never wrapped at all.
//
// - The width: the terminal's the help goes to; when it goes to a pipe (`--help | less`), the terminal's the
//   user sits at (the other stream's); with no terminal at all (a file, cron), $COLUMNS when set, else no hard
//   wrap: one line per option, for grep and for a viewer that wraps lines itself. Not 80: that width wrapped
//   piped help for no terminal in particular, and mid-sentence for a pager on a narrower one.
// - An option's description beside its flags while it has 30 columns there; narrower, under them, indented.
// - The text after the options (examples, exit codes) wrapped as every line we write (output/wrap.ts). An
//   example command is broken only between words outside quotes, with a `\` ending each line, so it still runs
//   when pasted; a comment after it goes on a line above it; a crontab line is left whole (crontab has no
//   continuation lines), so the examples' crontab lines are kept short enough for 60 columns: a terminal
//   breaks a wider one inside a word (`/srv/crm-enri` / `ched.csv`), dangerous to copy.
import { type AddHelpTextContext, Help } from 'commander';
import type { Io } from './io.js';
import { displayWidth } from './output/width.js';
import { wrapLine, wrapWords } from './output/wrap.js';

/** What commander is given for "no hard wrap": wider than any line of help. */
export const UNWRAPPED = 10_000;
/** Fewer columns than this beside the flags, and the description goes under them. */
const BESIDE_MIN = 30;
const UNDER_INDENT = '      ';

/** The width help written to stdout (or, under `error`, stderr) is laid out to; undefined: no hard wrap. */
export function helpWidth(io: Pick<Io, 'stdout' | 'stderr' | 'env'>, error: boolean): number | undefined {
  for (const stream of error ? [io.stderr, io.stdout] : [io.stdout, io.stderr]) {
    if (stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0) return stream.columns;
  }
  const columns = Number(io.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** commander's help configuration: descriptions under their flags when there is no room beside them. */
export const HELP_CONFIGURATION: Partial<Help> = {
  minWidthToWrap: 20,
  formatItem(this: Help, term, termWidth, description, helper) {
    const width = this.helpWidth ?? UNWRAPPED;
    if (!description || width - termWidth - 4 >= BESIDE_MIN) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    const room = Math.max(BESIDE_MIN, width - UNDER_INDENT.length);
    const lines = description.split('\n').flatMap((line) => wrapWords(line, room));
    return [`  ${term}`, ...lines.map((line) => `${UNDER_INDENT}${line}`)].join('\n');
  },
};

/** Help text after the options (`addHelpText('after', ...)`), wrapped to the help's width when it is written. */
export function helpAfter(io: Pick<Io, 'stdout' | 'stderr' | 'env'>, text: string): (context: AddHelpTextContext) => string {
  return (context) => wrapHelpText(text, helpWidth(io, context.error));
}

/** `text` wrapped to `width` columns (undefined: as it is): example commands as a shell reads them, the rest at words. */
function wrapHelpText(text: string, width: number | undefined): string {
  if (width === undefined) return text;
  let examples = false;
  return text
    .split('\n')
    .map((line) => {
      if (line === 'Examples:') examples = true;
      else if (!line.startsWith('  ')) examples = false;
      return examples && line.startsWith('  ') ? wrapCommand(line, width) : wrapLine(line, width);
    })
    .join('\n');
}

// Five crontab time fields before the command.
const CRONTAB = /^([\d*,/-]+\s+){5}\S/;

/** One example command within `width`: broken between words outside quotes, each line but the last ending in ` \`. */
function wrapCommand(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  const indent = /^ */.exec(line)?.[0] ?? '';
  let body = line.slice(indent.length);
  const out: string[] = [];
  const comment = commentStart(body);
  if (comment !== -1) {
    const words = body.slice(comment).trim().replace(/^#\s*/, '');
    out.push(...wrapWords(words, Math.max(BESIDE_MIN, width - indent.length - 2)).map((l) => `${indent}# ${l}`));
    body = body.slice(0, comment).trimEnd();
    if (displayWidth(indent + body) <= width) return [...out, indent + body].join('\n');
  }
  // A crontab line cannot be continued: it stays whole, so the examples keep theirs within 60 columns
  // (options/examples.ts); a wider one would be broken by the terminal wherever it fell, inside a word.
  if (CRONTAB.test(body)) return [...out, indent + body].join('\n');
  const next = `${indent}    `;
  let current = indent;
  for (const word of shellWords(body)) {
    const start = current === indent || current === next;
    if (!start && displayWidth(`${current} ${word} \\`) > width) {
      out.push(`${current} \\`);
      current = next;
    }
    current += current === indent || current === next ? word : ` ${word}`;
  }
  out.push(current);
  return out.join('\n');
}

/** Where a trailing `# comment` starts (at the spaces before it), outside quotes; -1 when there is none. */
function commentStart(body: string): number {
  let quote: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (quote !== null) quote = ch === quote ? null : quote;
    else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && i > 0 && body[i - 1] === ' ') return body.slice(0, i).trimEnd().length;
  }
  return -1;
}

/** The words of a command line as the shell splits them at spaces: a quoted part is never broken. */
function shellWords(body: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const ch of body) {
    if (quote !== null) quote = ch === quote ? null : quote;
    else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === ' ') {
      if (current !== '') words.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  if (current !== '') words.push(current);
  return words;
}
