// The fish completion script: one `complete` line per candidate, from the same description of the program as
// the bash and zsh scripts (completion-scripts.ts).
import type { Names, OptionSpec, Program } from './completion-scripts.js';

/** A fish string in single quotes. */
const fishQuote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The fish script: one `complete` line per candidate. */
export function fish({ specs, positionals }: Program): string {
  const lines = [
    '# fish completion for domain-intel',
    '# Install, for this shell:    domain-intel completion fish | source',
    '# and for every new shell:    domain-intel completion fish > ~/.config/fish/completions/domain-intel.fish',
    'complete -c domain-intel -f',
  ];
  const top = specs.find((s) => s.path.length === 0);
  const namesOf = (what: Names): string => fishQuote(`(domain-intel completion --names ${what} 2>/dev/null)`);
  const option = (o: OptionSpec, cond: string): string => {
    const parts = ['complete -c domain-intel'];
    if (cond) parts.push('-n', fishQuote(cond));
    for (const f of o.flags) parts.push(f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`);
    if (o.choices.length > 0) parts.push('-x -a', fishQuote(o.choices.join(' ')));
    else if (o.names) parts.push('-x -a', namesOf(o.names));
    else if (o.file) parts.push('-r -F');
    else if (o.value) parts.push('-x');
    return parts.join(' ');
  };
  const seen = (path: string[]): string => path.map((w) => `__fish_seen_subcommand_from ${w}`).join('; and ');
  for (const o of top?.options ?? []) lines.push(option(o, o.flags.includes('--version') ? '__fish_use_subcommand' : ''));
  for (const sub of top?.subcommands ?? []) lines.push(`complete -c domain-intel -n __fish_use_subcommand -a ${sub}`);
  const globalFlags = new Set((top?.options ?? []).flatMap((o) => o.flags));
  for (const s of specs.filter((x) => x.path.length > 0)) {
    const cond = seen(s.path);
    const noSub = s.subcommands.length > 0 ? `${cond}; and not __fish_seen_subcommand_from ${s.subcommands.join(' ')}` : cond;
    for (const sub of s.subcommands) lines.push(`complete -c domain-intel -n ${fishQuote(noSub)} -a ${sub}`);
    for (const o of s.options.filter((x) => !x.flags.some((f) => globalFlags.has(f)))) lines.push(option(o, cond));
  }
  for (const [at, p] of Object.entries(positionals)) {
    // `config set plan`: the command `config set`, then its first argument `plan`.
    const words = at.split(' ');
    const cond = seen(words);
    if (p === 'files') lines.push(`complete -c domain-intel -n ${fishQuote(cond)} -F`);
    else if ('words' in p) {
      // Once one of the words is on the line, it is not offered again (`config set plan pro <Tab>`).
      lines.push(
        `complete -c domain-intel -n ${fishQuote(`${cond}; and not __fish_seen_subcommand_from ${p.words.join(' ')}`)} -a ${fishQuote(p.words.join(' '))}`,
      );
    } else lines.push(`complete -c domain-intel -n ${fishQuote(cond)} -a ${namesOf(p.names)}`);
  }
  return `${lines.join('\n')}\n`;
}
