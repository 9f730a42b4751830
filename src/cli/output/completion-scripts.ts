// Shell completion scripts for bash, zsh and fish, drawn from a description of the program's commands and
// options (commands/completion.ts builds it from commander's commands and the option table). fish's, a list
// of `complete` lines rather than a function, is in completion-fish.ts.
/** The shells completion scripts are written for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Names the program lists itself (`completion --names`), from local files only: never the network. */
export type Names = 'keys' | 'tech' | 'categories';

/**
 * What an argument completes to: fixed words, listed names, file names, or nothing (a host, a number: the shell
 * must insert nothing rather than fall back to options or files).
 */
export type Positional = { words: readonly string[] } | { names: Names } | 'files';

/** An option as completion needs it. */
export interface OptionSpec {
  flags: string[];
  /** Takes a value (`--format json`), so the word after it is not a command or an argument. */
  value: boolean;
  choices: readonly string[];
  /** The value is a file name (`<file>` in the option's flags). */
  file: boolean;
  /** The value is one of the names the program lists (`--category`: the cached catalog's slugs). */
  names?: Names;
}

/** A command (its path of names; none for the program) with the options valid after it and its subcommands. */
export interface Spec {
  path: string[];
  options: OptionSpec[];
  subcommands: string[];
}

/**
 * What the program is given: its commands, and what their arguments complete to, keyed by the command's path
 * (the first argument: `config set`) or by the path and the first argument (the second: `config set plan`).
 * An argument with no entry (lookup's hosts) completes to nothing.
 */
export interface Program {
  specs: Spec[];
  positionals: Record<string, Positional>;
}

const specFlags = (s: Spec): string[] => s.options.flatMap((o) => o.flags);
const valueFlags = (specs: Spec[]): string[] => [...new Set(specs.flatMap((s) => s.options.filter((o) => o.value).flatMap((o) => o.flags)))];

/**
 * Case patterns `path|flag` for the options whose value has choices, grouped by choice list. An option with
 * the same choices wherever it appears (a global one) gets one pattern `*|flag`.
 */
function choiceCases(specs: Spec[]): { keys: string[]; choices: string }[] {
  const byFlag = new Map<string, Map<string, string[]>>(); // flag -> choices -> paths
  for (const s of specs) {
    for (const o of s.options.filter((x) => x.choices.length > 0)) {
      for (const f of o.flags) {
        const lists = byFlag.get(f) ?? new Map<string, string[]>();
        const choices = o.choices.join(' ');
        lists.set(choices, [...(lists.get(choices) ?? []), s.path.join(' ')]);
        byFlag.set(f, lists);
      }
    }
  }
  const byChoices = new Map<string, string[]>();
  for (const [flag, lists] of byFlag) {
    for (const [choices, paths] of lists) {
      const keys = lists.size === 1 && paths.length === specs.length ? [`*|${flag}`] : paths.map((p) => `${p}|${flag}`);
      byChoices.set(choices, [...(byChoices.get(choices) ?? []), ...keys]);
    }
  }
  return [...byChoices].map(([choices, keys]) => ({ keys, choices }));
}

/** Shell case patterns `"a"|"b"` for a list of words (all generated words are free of quotes). */
const patterns = (words: string[]): string => words.map((w) => `"${w}"`).join('|');
/** Like `patterns`, keeping a leading `*` a wildcard. */
const casePatterns = (keys: string[]): string => keys.map((k) => (k.startsWith('*') ? `*"${k.slice(1)}"` : `"${k}"`)).join('|');
const fileFlags = (specs: Spec[]): string[] => [...new Set(specs.flatMap((s) => s.options.filter((o) => o.file).flatMap((o) => o.flags)))];

/** The two shell functions bash and zsh share: does an option take a value, is a path of words a command. */
function shellTests(specs: Spec[], gap: string): string {
  const known = specs.filter((s) => s.path.length > 0).map((s) => s.path.join(' '));
  return `_domain_intel_takes_value() {
  case "$1" in
    ${patterns(valueFlags(specs))}) return 0;;
  esac
  return 1
}
${gap}_domain_intel_known() {
  case "$1" in
    ${patterns(known)}) return 0;;
  esac
  return 1
}`;
}

/** Flags whose value is a listed name, with the names: `[flag, names]`, one entry per flag. */
const namedFlags = (specs: Spec[]): [string, Names][] => [
  ...new Map(specs.flatMap((s) => s.options.flatMap((o) => (o.names ? o.flags.map((f): [string, Names] => [f, o.names as Names]) : [])))),
];
const subcommandWords = (specs: Spec[]): Spec[] => specs.filter((s) => s.subcommands.length > 0);

/** The bash script: a completion function registered with `complete`. */
export function bash({ specs, positionals }: Program): string {
  const namesOf = (what: Names): string => `_domain_intel_quoted < <(domain-intel completion --names ${what} 2>/dev/null)`;
  // An empty answer with `-o default` on is bash's own file completion (names quoted, directories marked); it
  // is turned on only where a file is wanted, so a host or a number completes to nothing, never to files.
  const files = 'compopt -o default 2>/dev/null';
  const valueCases = [
    ...choiceCases(specs).map(({ keys, choices }) => `    ${casePatterns(keys)}) COMPREPLY=($(compgen -W "${choices}" -- "$cur"));;`),
    ...namedFlags(specs).map(([flag, what]) => `    *"|${flag}") ${namesOf(what)};;`),
    `    ${casePatterns(fileFlags(specs).map((f) => `*|${f}`))}) ${files};;`,
  ].join('\n');
  const flagCases = specs.map((s) => `    "${s.path.join(' ')}") words="${[...new Set(specFlags(s))].join(' ')}";;`).join('\n');
  const subCases = subcommandWords(specs)
    .map((s) => `      "${s.path.join(' ')}") words="${s.subcommands.join(' ')}";;`)
    .join('\n');
  const positionalCases = Object.entries(positionals)
    .map(([at, p]) => {
      const action = p === 'files' ? files : 'words' in p ? `COMPREPLY=($(compgen -W "${p.words.join(' ')}" -- "$cur"))` : namesOf(p.names);
      return `      "${at}") ${action}; return;;`;
    })
    .join('\n');
  return `# bash completion for domain-intel
# Install, for this shell:    source <(domain-intel completion bash)
# and for every new shell:    echo 'source <(domain-intel completion bash)' >> ~/.bashrc
# (Needs no bash-completion package. With it, this also works:
#   domain-intel completion bash > ~/.local/share/bash-completion/completions/domain-intel)

# Adds the candidates on stdin (one a line) that start with the word being completed to COMPREPLY, each
# quoted for the shell so a name with spaces or quotes stays one word. A word opened with a quote gets the
# bare names: readline completes inside the quote and closes it.
_domain_intel_quoted() {
  local typed="$cur" quote="" line q
  case "$typed" in
    \\'*) quote="'"; typed="\${typed:1}";;
    \\"*) quote='"'; typed="\${typed:1}";;
    *) typed="\${typed//\\\\/}";;
  esac
  while IFS= read -r line; do
    [[ -n "$line" && "$line" == "$typed"* ]] || continue
    if [[ -n "$quote" ]]; then COMPREPLY+=("$line"); else printf -v q '%q' "$line"; COMPREPLY+=("$q"); fi
  done
}

${shellTests(specs, '\n')}

_domain_intel() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" opt="" path="" first="" words="" w i npos=0 ended=0
  COMPREPLY=()
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  # The command is the run of known words, skipping options and their values; what follows is arguments.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if (( ! ended )) && [[ "$w" == "--" ]]; then ended=1; continue; fi
    if (( ! ended )) && [[ "$w" == -?* ]]; then
      if _domain_intel_takes_value "$w"; then
        ((i++))
        [[ "\${COMP_WORDS[i]}" == "=" ]] && ((i++)) # --format=json arrives as three words
      fi
      continue
    fi
    if (( npos == 0 )) && _domain_intel_known "\${path:+$path }$w"; then path="\${path:+$path }$w"
    else
      (( npos == 0 )) && first="$w"
      ((npos++))
    fi
  done
  # The value of an option: its choices, listed names, or files; nothing for a number or free text.
  if [[ "$cur" == "=" ]]; then opt="$prev"; cur=""
  elif [[ "$prev" == "=" ]] && (( COMP_CWORD > 1 )); then opt="\${COMP_WORDS[COMP_CWORD-2]}"
  else opt="$prev"
  fi
  if (( ! ended )) && _domain_intel_takes_value "$opt"; then
    case "$path|$opt" in
${valueCases}
    esac
    return
  fi
${argumentsThenFlags('path', positionalCases, subCases, flagCases)}
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _domain_intel domain-intel
`;
}

/** The zsh script: a function for fpath (autoloaded) or to source. */
export function zsh({ specs, positionals }: Program): string {
  const namesOf = (what: Names): string => `cands=("\${(@f)$(domain-intel completion --names ${what} 2>/dev/null)}"); compadd -- "\${(@)cands:#}"`;
  const valueCases = [
    ...choiceCases(specs).map(({ keys, choices }) => `    ${casePatterns(keys)}) compadd -- ${choices};;`),
    ...namedFlags(specs).map(([flag, what]) => `    *"|${flag}") ${namesOf(what)};;`),
    `    ${casePatterns(fileFlags(specs).map((f) => `*|${f}`))}) _files;;`,
  ].join('\n');
  const flagCases = specs.map((s) => `    "${s.path.join(' ')}") cands=(${[...new Set(specFlags(s))].join(' ')});;`).join('\n');
  const subCases = subcommandWords(specs)
    .map((s) => `      "${s.path.join(' ')}") cands=(${s.subcommands.join(' ')});;`)
    .join('\n');
  const positionalCases = Object.entries(positionals)
    .map(([at, p]) => {
      const action = p === 'files' ? '_files' : 'words' in p ? `compadd -- ${p.words.join(' ')}` : namesOf(p.names);
      return `      "${at}") ${action}; return;;`;
    })
    .join('\n');
  return `#compdef domain-intel
# zsh completion for domain-intel
# Install, for this shell:    source <(domain-intel completion zsh)      (after compinit)
# and for every new shell:    echo 'source <(domain-intel completion zsh)' >> ~/.zshrc   (after compinit there)
# or, autoloaded:             domain-intel completion zsh > "\${fpath[1]}/_domain-intel"
_domain_intel() {
  local -a cands
  local cur="\${words[CURRENT]}" opt="\${words[CURRENT-1]}" cmdpath="" first="" w
  integer i npos=0 ended=0
  # The command is the run of known words, skipping options and their values; what follows is arguments.
  for (( i = 2; i < CURRENT; i++ )); do
    w="\${words[i]}"
    if (( ! ended )) && [[ "$w" == "--" ]]; then ended=1; continue; fi
    if (( ! ended )) && [[ "$w" == -?* ]]; then
      [[ "$w" != *=* ]] && _domain_intel_takes_value "$w" && (( i++ ))
      continue
    fi
    if (( npos == 0 )) && _domain_intel_known "\${cmdpath:+$cmdpath }$w"; then cmdpath="\${cmdpath:+$cmdpath }$w"
    else
      (( npos == 0 )) && first="$w"
      (( npos++ ))
    fi
  done
  if (( ! ended )) && _domain_intel_takes_value "$opt"; then
    case "$cmdpath|$opt" in
${valueCases}
    esac
    return
  fi
${argumentsThenFlags('cmdpath', positionalCases, subCases, flagCases)}
  compadd -a cands
}
${shellTests(specs, '')}
# Autoloaded from fpath as _domain-intel, complete now; sourced, register.
if [[ "\${funcstack[1]}" == "_domain-intel" ]]; then _domain_intel "$@"; else compdef _domain_intel domain-intel; fi
`;
}

/**
 * The shell text bash and zsh share once an option's value is ruled out. On a word that is not an option (or
 * after `--`): the argument's completion, else the command's subcommands, else nothing at all (a host is not
 * guessed, and options wait for a `-`). On `-`: the command's flags. `pathVar` names the variable holding the
 * command path; each case sets the candidates or returns.
 */
function argumentsThenFlags(pathVar: string, positionalCases: string, subCases: string, flagCases: string): string {
  return `  if (( ended )) || [[ "$cur" != -* ]]; then
    local at="$${pathVar}"
    (( npos == 1 )) && at="$${pathVar} $first"
    if (( npos <= 1 )); then
      case "$at" in
${positionalCases}
      esac
    fi
    (( npos > 0 || ended )) && return
    case "$${pathVar}" in
${subCases}
      *) return;;
    esac
  else
    case "$${pathVar}" in
${flagCases}
    esac
  fi`;
}
