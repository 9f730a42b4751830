// Terminal safety and colour decisions. Every value that came from the service or from the input file may
// carry escape sequences (a hostile registrar name, a CSV cell pasted from a web page); printed raw, those can
// recolour the screen, retitle the window, plant clickable links or reorder text. So values are made inert
// here before any renderer pads, truncates or styles them.
import { Chalk } from 'chalk';
import { INVISIBLE, visibleText } from '../../domain/safe-text.js';

// Escape sequences, removed outright:
// - CSI, 7-bit (ESC [) or 8-bit (0x9B): parameters, intermediates, one final byte.
// - String sequences OSC (ESC ] / 0x9D, including OSC 8 hyperlinks and window titles), DCS, SOS, PM, APC:
//   everything up to BEL or ST (ESC \ or 0x9C). An unterminated one runs to the end of the value, which is
//   what a terminal would swallow too.
// - Any other ESC sequence: intermediates then one final byte (ESC ( B, ESC 7, ESC c ...).
const SEQUENCE =
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)|\x1b[\x20-\x2f]*[\x30-\x7e]/g;

// Characters shown rather than removed, so a reader can still see something odd was there, by the one rule
// of domain/safe-text.ts: a C0 control as its control picture (BEL is ␇), the C1 controls, line and paragraph
// separators (a value is one line), zero-width characters and the bidi embeddings, overrides and isolates that
// can make "moc.evil" read as "live.com" as <U+202E>. Never as `\x07`, which reads as part of the value.
// Cheap pre-check: most values are plain and skip both replacements.
const ANY_SPECIAL = new RegExp(INVISIBLE.source);

/** Make a value safe to print on one terminal line: strip escape sequences, show other controls visibly. */
export function sanitizeForTerminal(s: string): string {
  if (!ANY_SPECIAL.test(s)) return s;
  return visibleText(s.replace(SEQUENCE, ''));
}

/** Whether to colour output written to `stream`: NO_COLOR, then FORCE_COLOR, then TTY and TERM. */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  // https://no-color.org: present and non-empty disables colour, whatever else is set.
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** The handful of styles the renderers use; identity functions when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
}

/** A style set bound to one decision about colour (see colorEnabled). */
export function createStyle(enabled: boolean): Style {
  // Level 1 (16 colours) is all we use, and it is supported everywhere colour is; an explicit instance keeps
  // chalk's own environment sniffing out of the decision made by colorEnabled.
  const c = new Chalk({ level: enabled ? 1 : 0 });
  return {
    enabled,
    bold: (s) => c.bold(s),
    dim: (s) => c.dim(s),
    red: (s) => c.red(s),
    yellow: (s) => c.yellow(s),
    green: (s) => c.green(s),
    cyan: (s) => c.cyan(s),
  };
}

/** A style that never colours: the default for renderers called without one. */
export const PLAIN: Style = createStyle(false);

// Display width lives in width.ts, apart from chalk, so --help (which measures but never colours) loads no chalk.
export { displayWidth, padToWidth, truncateToWidth } from './width.js';
