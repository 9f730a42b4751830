// Help that fits the terminal (issue 29, item 7): at 60 columns the option descriptions were left unwrapped (the
// terminal cut `inpu` / `t to read`), piped help wrapped at 80 for no terminal in particular, and at 120 columns
// the exit-code line broke mid-word. A real terminal first (the bin under `script`, which gives it a pty of the
// width `stty` sets), then the same rules in-process, where the streams' widths are set by hand.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/output/terminal.js';
import { EXAMPLES } from '../../src/cli/options/examples.js';
import { assertBuilt, BIN, cliEnv, runInProcess } from '../helpers/cli.js';

const env = cliEnv();
delete env.COLUMNS;
const EXIT_LINE = EXAMPLES.program.split('\n').find((l) => l.startsWith('Exit codes:')) as string;
// A crontab line is left whole: crontab has no continuation lines (help-layout.ts).
const CRONTAB = /^ {2}([\d*,/-]+\s+){5}\S/;

/** The help as a real terminal `columns` wide gets it: the bin run under `script` on a pty of that size. */
function onTerminal(args: string[], columns: number): string {
  assertBuilt();
  const command = `stty cols ${columns} rows 50; exec ${[process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')}`;
  const r = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], { env, encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.replace(/\r\n/g, '\n');
}

/** Every line within `columns`, but a crontab example. */
function fits(text: string, columns: number): void {
  for (const line of text.split('\n')) if (!CRONTAB.test(line)) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
}

/** The text with its line breaks and indents read as the spaces they stand for, and shell continuations joined. */
const flat = (text: string) => text.replace(/ \\\n\s+/g, ' ').replace(/\s+/g, ' ');

/** The example commands of a help text, as a shell would read them once pasted (continuations joined). */
const commands = (text: string) => {
  const block = text.slice(text.indexOf('Examples:\n') + 'Examples:\n'.length);
  return block
    .slice(0, block.indexOf('\n\n'))
    .replace(/ \\\n {4,}/g, ' ')
    .split('\n')
    .map((l) => l.trim());
};

describe('--help on a real terminal (a pty through script)', () => {
  it('60 columns: every line fits, descriptions under their flags and wrapped between words, examples still runnable', () => {
    for (const args of [['--help'], ['batch', '--help'], ['changes', '--help'], ['lookup', '--help']]) {
      const help = onTerminal(args, 60);
      fits(help, 60);
      expect(help).toMatch(/^Usage: domain-intel/);
      // Each description reads whole once its lines are joined: no word was cut by the terminal.
      if (args[0] === 'changes') expect(flat(help)).toContain('input file read as batch reads it; - or nothing for stdin');
      if (args[0] === 'batch') expect(flat(help)).toContain('the host column, by header name or 1-based index');
      // Long flags (30 columns of them) leave no room beside: each description goes under its flags. Short
      // ones (changes: 23) keep theirs beside, wrapped.
      if (args[0] !== 'changes') expect(help).toMatch(/^ {2}-[^\n]*\n {6}\S/m);
      else expect(help).toMatch(/^ {2}--raw {2,}write the service's text as it is\n {10,}in CSV cells/m);
      // Every example, its ` \` continuations joined, is the command the help holds, a comment moved above it.
      const examples = EXAMPLES[(args[0] === '--help' ? 'program' : args[0]) as keyof typeof EXAMPLES];
      const wanted = commands(examples).map((c) => c.replace(/\s+#.*$/, ''));
      expect(commands(help).filter((c) => !c.startsWith('#'))).toEqual(wanted);
    }
  });

  it('120 columns: the exit-code line breaks between words, never inside one', () => {
    const help = onTerminal(['--help'], 120);
    fits(help, 120);
    const at = help.indexOf('Exit codes:');
    const shown = help.slice(at, help.indexOf('\n\n', at) === -1 ? undefined : help.indexOf('\n\n', at)).trimEnd();
    expect(shown.split('\n').length).toBeGreaterThan(1);
    expect(flat(shown)).toBe(EXIT_LINE);
    const words = new Set(EXIT_LINE.split(' '));
    for (const word of shown.split(/\s+/)) expect(words.has(word), word).toBe(true);
  });
});

describe('--help in-process: the width it is laid out to', () => {
  const longest = (text: string) => Math.max(...text.split('\n').map(displayWidth));

  it('on a terminal: its width (60)', async () => {
    const r = await runInProcess(['--help'], { env, stdoutTTY: true, columns: 60 });
    fits(r.stdout, 60);
    expect(flat(r.stdout)).toContain(EXIT_LINE);
  });

  it('60 columns, every command: no example line wider than the terminal (which would break it inside a word), and each reads back word for word', async () => {
    for (const name of Object.keys(EXAMPLES) as (keyof typeof EXAMPLES)[]) {
      const r = await runInProcess(name === 'program' ? ['--help'] : [name, '--help'], { env, stdoutTTY: true, columns: 60 });
      expect(r.code, name).toBe(0);
      const shown = commands(r.stdout);
      // A line the help leaves wider than 60 columns is cut by the terminal wherever it falls: crontab lines too.
      const block = r.stdout.slice(r.stdout.indexOf('Examples:\n'));
      for (const line of block.slice(0, block.indexOf('\n\n')).split('\n')) expect(displayWidth(line), `${name}: ${line}`).toBeLessThanOrEqual(60);
      // The words of each command, its comment moved above it, are the example's: no word was split or joined.
      const words = (list: string[]) => list.flatMap((c) => c.split(/\s+/)).filter((w) => w !== '' && w !== '#');
      expect(words(shown).sort(), name).toEqual(words(commands(EXAMPLES[name])).sort());
    }
  });

  it('piped to a pager from a terminal (`--help | less`): the terminal the user sits at, stderr (72)', async () => {
    const r = await runInProcess(['--help'], { env, stderrTTY: true, columns: 72 });
    fits(r.stdout, 72);
    expect(longest(r.stdout)).toBeGreaterThan(60);
  });

  it('with no terminal at all: $COLUMNS when set, else no hard wrap (one line per option, the exit codes on one line)', async () => {
    const set = await runInProcess(['--help'], { env: { ...env, COLUMNS: '100' } });
    fits(set.stdout, 100);
    expect(longest(set.stdout)).toBeGreaterThan(80);
    const none = await runInProcess(['--help'], { env });
    expect(none.stdout.split('\n')).toContain(EXIT_LINE);
    expect(none.stdout).toMatch(/^ {2}--json +errors as JSON objects on stderr \(\{error, code, host, exit\}\)$/m);
    expect(longest(none.stdout)).toBeGreaterThan(100);
  });
});
