// `domain-intel completion bash|zsh|fish`: completion scripts generated from the program itself, so they
// never drift from the real commands and options. Stored key names and cached catalog names are completed
// through `domain-intel completion --names keys|tech`, which reads local files only and never the network.
import type { Command } from 'commander';
import { UsageError } from '../../api/errors.js';
import type { Context } from '../context.js';
import { EXIT } from '../exit-codes.js';

interface Spec {
  path: string[];
  options: string[];
  subcommands: string[];
}

function walk(cmd: Command, path: string[] = []): Spec[] {
  const options = cmd.options.flatMap((o) => [o.short, o.long].filter((x): x is string => typeof x === 'string'));
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const here: Spec = { path, options: [...options, '--help'], subcommands: subs.map((c) => c.name()) };
  return [here, ...subs.flatMap((c) => walk(c, [...path, c.name()]))];
}

function root(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

function bash(specs: Spec[], globals: string[]): string {
  const cases = specs
    .map((s) => `    "${s.path.join(' ')}") words="${[...s.subcommands, ...s.options, ...(s.path.length > 0 ? globals : [])].join(' ')}";;`)
    .join('\n');
  return `# bash completion for domain-intel
_domain_intel() {
  local cur prev path="" i w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i=1; i<COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case " $path " in *) if [[ -n "$(_domain_intel_known "\${path:+$path }$w")" ]]; then path="\${path:+$path }$w"; fi;; esac
  done
  case "$path" in
    "keys use"|"keys remove") if [[ "$cur" != -* ]]; then COMPREPLY=($(compgen -W "$(domain-intel completion --names keys 2>/dev/null)" -- "$cur")); return; fi;;
    "tech") if [[ "$cur" != -* ]]; then local IFS=$'\\n'; COMPREPLY=($(compgen -W "$(domain-intel completion --names tech 2>/dev/null)" -- "$cur")); return; fi;;
  esac
  case "$prev" in
    -o|--output|-i|--input) COMPREPLY=($(compgen -f -- "$cur")); return;;
    --plan) COMPREPLY=($(compgen -W "pro business business-plus" -- "$cur")); return;;
    -f|--format) COMPREPLY=($(compgen -W "table json ndjson csv" -- "$cur")); return;;
  esac
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  [[ -z "$cur" || "$cur" != -* ]] && [[ "$path" == "batch" ]] && COMPREPLY+=($(compgen -f -- "$cur"))
}
_domain_intel_known() {
  case "$1" in
${specs.filter((s) => s.path.length > 0).map((s) => `    "${s.path.join(' ')}") echo yes;;`).join('\n')}
  esac
}
complete -o default -F _domain_intel domain-intel
`;
}

function zsh(specs: Spec[]): string {
  const top = specs.find((s) => s.path.length === 0);
  return `#compdef domain-intel
# zsh completion for domain-intel
_domain_intel() {
  local -a words_list
  local path_key="\${words[2]}"
  if (( CURRENT == 2 )); then
    words_list=(${(top?.subcommands ?? []).join(' ')} ${(top?.options ?? []).join(' ')})
    compadd -a words_list; return
  fi
  case "\${words[2]} \${words[3]}" in
    "keys use"|"keys remove") compadd -- \${(f)"$(domain-intel completion --names keys 2>/dev/null)"}; return;;
  esac
  case "$path_key" in
${specs
  .filter((s) => s.path.length === 1)
  .map((s) => `    ${s.path[0]}) words_list=(${[...s.subcommands, ...s.options].join(' ')});;`)
  .join('\n')}
  esac
  if [[ "$path_key" == tech && "\${words[CURRENT]}" != -* ]]; then compadd -- \${(f)"$(domain-intel completion --names tech 2>/dev/null)"}; return; fi
  compadd -a words_list
  _files
}
compdef _domain_intel domain-intel
`;
}

function fish(specs: Spec[]): string {
  const lines = ['# fish completion for domain-intel', 'complete -c domain-intel -f'];
  const top = specs.find((s) => s.path.length === 0);
  for (const sub of top?.subcommands ?? []) lines.push(`complete -c domain-intel -n __fish_use_subcommand -a ${sub}`);
  for (const s of specs.filter((x) => x.path.length === 1)) {
    const cond = `"__fish_seen_subcommand_from ${s.path[0]}"`;
    for (const sub of s.subcommands) lines.push(`complete -c domain-intel -n ${cond} -a ${sub}`);
    for (const o of s.options.filter((x) => x.startsWith('--'))) lines.push(`complete -c domain-intel -n ${cond} -l ${o.slice(2)}`);
  }
  lines.push(`complete -c domain-intel -n "__fish_seen_subcommand_from use remove" -a "(domain-intel completion --names keys 2>/dev/null)"`);
  lines.push(`complete -c domain-intel -n "__fish_seen_subcommand_from tech" -a "(domain-intel completion --names tech 2>/dev/null)"`);
  lines.push(`complete -c domain-intel -n "__fish_seen_subcommand_from batch" -F`);
  return `${lines.join('\n')}\n`;
}

export default async function completion(ctx: Context): Promise<number> {
  const shell = ctx.args.shell as string | undefined;
  const names = ctx.opts.names as string | undefined;
  if (names !== undefined) {
    if (names === 'keys') {
      const { listKeys } = await import('../../store/keys.js');
      for (const k of listKeys(await ctx.settings())) ctx.io.stdout.write(`${k.name}\n`);
    } else if (names === 'tech') {
      const store = await ctx.store();
      const hit = store?.get('catalog', '', Infinity);
      const categories = (hit?.body ?? []) as { technologies: { tech: string }[] }[];
      for (const c of categories) for (const t of c.technologies) ctx.io.stdout.write(`${t.tech}\n`);
    }
    return EXIT.OK;
  }
  const program = root(ctx.command);
  const specs = walk(program);
  const globals = specs[0]?.options ?? [];
  if (shell === 'bash') ctx.io.stdout.write(bash(specs, globals));
  else if (shell === 'zsh') ctx.io.stdout.write(zsh(specs));
  else if (shell === 'fish') ctx.io.stdout.write(fish(specs));
  else throw new UsageError(`no completion for ${JSON.stringify(shell)}; choose bash, zsh or fish`);
  return EXIT.OK;
}
