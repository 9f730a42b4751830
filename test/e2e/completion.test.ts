// Shell completion (issue 7): the scripts the CLI prints are loaded into the real shells that are installed
// (bash always; zsh and fish when present) and asked for candidates the way the shell asks. Stored key names
// and cached catalog names come from `domain-intel completion --names`, so the built CLI is put on PATH as
// `domain-intel` and the catalog is fetched once from the sandbox to fill the cache. What needs no shell (the
// set-up, the scripts printed, the command's own answers) runs the CLI in this process: a node start-up each
// was most of this file's time, and the shells still start the built bin, as they do once it is installed.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OptionRow } from '../../src/cli/options/row.js';
import { flagsOf, OPTIONS, optionsOf } from '../../src/cli/options/table.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { assertBuilt, BIN, cliEnv, runInProcess } from '../helpers/cli.js';

const exec = promisify(execFile);

function installed(shell: string): boolean {
  try {
    execFileSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS_ZSH = installed('zsh');
const HAS_FISH = installed('fish');

let sb: Sandbox;
let dir: string;
let env: NodeJS.ProcessEnv;
let techNames: string[];
let slugs: string[];
const scripts: Record<string, string> = {};

beforeAll(async () => {
  assertBuilt();
  sb = await startSandbox({ port: 0, rpm: 0, hosts: 50 });
  techNames = [...new Set(sb.dataset.catalog().flatMap((c) => c.technologies.map((t) => t.tech)))];
  slugs = sb.dataset.catalog().map((c) => c.category);
  dir = mkdtempSync(join(tmpdir(), 'di-completion-'));
  // The scripts call `domain-intel` by name, as they do once installed.
  const binDir = join(dir, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'domain-intel'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(binDir, 'domain-intel'), 0o755);
  env = cliEnv({ DOMAIN_INTEL_BASE_URL: sb.baseUrl, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`, LC_ALL: 'C.UTF-8' });

  const added = await runInProcess(['keys', 'add', 'work'], { env, input: `${sb.key}\n` });
  expect(added.code, added.stderr).toBe(0);
  const catalog = await runInProcess(['catalog', '--format', 'json'], { env }); // fills the local cache, free
  expect(catalog.code, catalog.stderr).toBe(0);

  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runInProcess(['completion', shell], { env });
    expect(r.code, r.stderr).toBe(0);
    scripts[shell] = join(dir, `completion.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
}, 60_000);
afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * COMPREPLY after bash's completion function runs on `words` (the last one is being completed), in a bash with
 * no startup files. The script is the one `domain-intel completion bash` printed (saved in beforeAll): sourced
 * from that file rather than printed again for each of some forty calls (a node start-up each). Loading it as
 * docs/setup.md says, `source <(domain-intel completion bash)`, is tested in the interactive bash below.
 */
async function bashComplete(...words: string[]): Promise<string[]> {
  const script =
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, expanded by the shell
    'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _domain_intel; printf "%s\\0" "${COMPREPLY[@]}"';
  const { stdout } = await exec('bash', ['--norc', '--noprofile', '-c', script, 'bash', scripts.bash as string, 'domain-intel', ...words], { env });
  return stdout.split('\0').filter((w) => w !== '');
}

/**
 * How bash reads each completed word back: the arguments each becomes. One bash for all the words (a bash
 * start-up each was a second of this file on a loaded machine): each is read by its own `eval "set -- WORD"`,
 * and its count of arguments goes before them, so words never run into each other.
 */
async function bashWords(...words: string[]): Promise<string[][]> {
  const script = 'for word in "$@"; do eval "set -- $word"; printf "%s\\0" "$#" "$@"; done';
  const { stdout } = await exec('bash', ['-c', script, 'bash', ...words], { env });
  const fields = stdout.split('\0').slice(0, -1);
  const out: string[][] = [];
  for (let i = 0; i < fields.length; ) {
    const n = Number(fields[i]);
    out.push(fields.slice(i + 1, i + 1 + n));
    i += 1 + n;
  }
  return out;
}

describe('completion command', () => {
  it('with no shell, exits 2 naming the three shells', async () => {
    const r = await runInProcess(['completion'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bash/);
    expect(r.stderr).toMatch(/zsh/);
    expect(r.stderr).toMatch(/fish/);
    expect(r.stderr).not.toMatch(/undefined/);
  });

  it('with an unknown shell, exits 2 and suggests the nearest', async () => {
    const r = await runInProcess(['completion', 'zhs'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"zhs"/);
    expect(r.stderr).toMatch(/did you mean zsh/);
  });

  it('lists each cached technology once and the stored key names', async () => {
    const tech = await runInProcess(['completion', '--names', 'tech'], { env });
    expect(tech.stdout.split('\n').filter((l) => l !== '')).toEqual(techNames);
    const keys = await runInProcess(['completion', '--names', 'keys'], { env });
    expect(keys.stdout).toBe('work\n');
    const categories = await runInProcess(['completion', '--names', 'categories'], { env });
    expect(categories.stdout).toBe(`${slugs.join('\n')}\n`);
  });

  it('lists names from the cache only: with the service gone and an empty cache, nothing, at once', async () => {
    const cold = cliEnv({ DOMAIN_INTEL_BASE_URL: 'http://127.0.0.1:9/api/v1', DOMAIN_INTEL_API_KEY: sb.key });
    for (const what of ['tech', 'categories']) {
      const r = await runInProcess(['completion', '--names', what], { env: cold });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
    }
    const r = await runInProcess(['completion', '--names', 'hosts'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--names takes keys, tech or categories, got "hosts"/);
  });
});

describe('bash: setting names, plan names, category slugs, and nothing for a host', () => {
  it('config set|unset offer the setting names, and `config set plan` the plan names', async () => {
    expect(await bashComplete('config', 'set', '')).toEqual(['base-url', 'plan', 'rpm', 'proxy', 'store']);
    expect(await bashComplete('config', 'unset', '')).toEqual(['base-url', 'plan', 'rpm', 'proxy', 'store']);
    expect(await bashComplete('config', 'set', 'p')).toEqual(['plan', 'proxy']);
    expect(await bashComplete('config', 'set', 'pl')).toEqual(['plan']);
    expect(await bashComplete('config', 'set', 'plan', '')).toEqual(['pro', 'business', 'business-plus']);
    expect(await bashComplete('config', 'set', 'plan', 'business-')).toEqual(['business-plus']);
    // A URL or a number is the user's to type.
    expect(await bashComplete('config', 'set', 'rpm', '')).toEqual([]);
    expect(await bashComplete('config', 'set', 'plan', 'pro', '')).toEqual([]);
  });

  it('lookup offers nothing for a host (no options, so no lone `-`), and its options on a `-`', async () => {
    expect(await bashComplete('lookup', '')).toEqual([]);
    expect(await bashComplete('lookup', 'example.com', '')).toEqual([]);
    expect(await bashComplete('lookup', '--format')).toEqual(['--format']);
    expect(await bashComplete('lookup', '--concurrency', '')).toEqual([]);
  });

  it('catalog --category offers the cached slugs, in both spellings of the option', async () => {
    const first = slugs[0] as string;
    // Each asks the CLI for the names: started together (a node start-up each).
    const [spaced, equals, typed] = await Promise.all([
      bashComplete('catalog', '--category', ''),
      bashComplete('catalog', '--category', '=', ''),
      bashComplete('catalog', '--category', first.slice(0, 2)),
    ]);
    expect(spaced).toEqual(slugs);
    expect(equals).toEqual(slugs);
    expect(typed).toEqual(slugs.filter((s) => s.startsWith(first.slice(0, 2))));
  });
});

/**
 * A real interactive bash (`bash --norc -i` on a pseudo-terminal, through util-linux's `script`): the line
 * after the keys are typed, Tab included, as readline left it. Each step waits for the shell to answer.
 */
const HAS_SCRIPT = (() => {
  try {
    // Its log to /dev/null: with no file named, `script` writes ./typescript.
    execFileSync('script', ['-qec', 'exit 0', '/dev/null'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
describe.skipIf(!HAS_SCRIPT)('bash, interactively: what Tab inserts', () => {
  it('inserts nothing after `config set`, `lookup` or `catalog --category` when nothing is common, and completes names', async () => {
    const work = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(work, 'hosts.csv'), 'host\n'); // files a fallback to file names would offer
    writeFileSync(join(work, 'notes.txt'), '');
    writeFileSync(join(dir, 'inputrc'), 'set bell-style none\n');
    const child = spawn('script', ['-qfec', 'bash --norc --noprofile -i', '/dev/null'], {
      cwd: work,
      env: { ...env, INPUTRC: join(dir, 'inputrc'), TERM: 'dumb', HISTFILE: '/dev/null' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const until = async (re: RegExp, from: number): Promise<string> => {
      for (;;) {
        const m = re.exec(out.slice(from));
        if (m) return m[1] ?? '';
        if (child.exitCode !== null) throw new Error(`bash exited: ${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const send = async (keys: string, answer: RegExp): Promise<string> => {
      const from = out.length;
      child.stdin.write(keys);
      return until(answer, from);
    };
    try {
      await until(/[$#] $/, 0);
      await send("PS1='READY> '\n", /READY> /);
      // Ctrl-T prints the line readline holds; the script is loaded the way docs/setup.md says.
      await send(`bind -x '"\\C-t": printf "\\n<line:%s>\\n" "$READLINE_LINE"'; source <(domain-intel completion bash)\n`, /READY> /);
      const tab = async (typed: string): Promise<string> => {
        const line = await send(`${typed}\t\x14`, /<line:([^>]*)>/);
        await send('\x15\n', /READY> /); // Ctrl-U, Enter: an empty line, a fresh prompt
        return line;
      };
      expect(await tab('domain-intel config set ')).toBe('domain-intel config set ');
      expect(await tab('domain-intel config set pl')).toBe('domain-intel config set plan ');
      expect(await tab('domain-intel config set plan ')).toBe('domain-intel config set plan ');
      expect(await tab('domain-intel config set plan business-')).toBe('domain-intel config set plan business-plus ');
      expect(await tab('domain-intel lookup ')).toBe('domain-intel lookup ');
      expect(await tab('domain-intel lookup h')).toBe('domain-intel lookup h'); // a host, not the file hosts.csv
      expect(await tab('domain-intel batch h')).toBe('domain-intel batch hosts.csv '); // batch takes a file
      const only = slugs.find((s) => slugs.filter((t) => t.startsWith(s.slice(0, 3))).length === 1) as string;
      expect(await tab(`domain-intel catalog --category ${only.slice(0, 3)}`)).toBe(`domain-intel catalog --category ${only} `);
    } finally {
      child.stdin.end('exit\n');
      child.kill();
    }
  }, 30_000);
});

describe('bash', () => {
  it('the script parses', async () => {
    await exec('bash', ['-n', scripts.bash as string]);
  });

  it('completes commands, and subcommands after a command', async () => {
    const top = await bashComplete('');
    expect(top).toEqual(expect.arrayContaining(['lookup', 'batch', 'tech', 'catalog', 'keys', 'completion']));
    expect(top.filter((w) => w.startsWith('-'))).toEqual([]); // options wait for a `-`, as git's do
    expect(await bashComplete('-')).toEqual(expect.arrayContaining(['--help', '--version', '--plan']));
    expect(await bashComplete('ke')).toEqual(['keys']);
    expect(await bashComplete('keys', '')).toEqual(['add', 'list', 'use', 'remove', 'verify']);
    expect(await bashComplete('--quiet', 'cache', 'p')).toEqual(['prune']);
  });

  it("completes a command's options and their values", async () => {
    expect(await bashComplete('batch', '--f')).toEqual(['--format', '--fields']);
    expect(await bashComplete('batch', '--format', '')).toEqual(['csv', 'json', 'ndjson', 'xlsx']);
    expect(await bashComplete('lookup', '--format', '')).toEqual(['table', 'json', 'ndjson', 'csv', 'xlsx']);
    expect(await bashComplete('--plan', 'b')).toEqual(['business', 'business-plus']);
    expect(await bashComplete('cache', 'prune', '--m')).toEqual(['--max-age']);
  });

  it('offers each command the options the option table gives it, hidden ones aside', () => {
    const script = readFileSync(scripts.bash as string, 'utf8');
    const rows = Object.values(OPTIONS) as OptionRow[];
    const paths = new Set(rows.flatMap((row) => (row.commands === 'global' ? [] : row.commands)));
    for (const path of ['', 'keys use', ...paths]) {
      const words = new RegExp(`^ {4}"${path}"\\) words="(-[^"]*)";;$`, 'm').exec(script)?.[1]?.split(' ');
      expect(words, `no completion for "${path}"`).toBeDefined();
      for (const row of [...optionsOf(path), ...optionsOf('')]) {
        for (const flag of flagsOf(row)) {
          if (row.hidden) expect(words, `${path} ${flag}`).not.toContain(flag);
          else expect(words, `${path} ${flag}`).toContain(flag);
        }
      }
    }
  });

  it('offers the shells after `completion`, and never the hidden --names', async () => {
    expect(await bashComplete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await bashComplete('completion', '--')).not.toContain('--names');
    expect(await bashComplete('completion', '--n')).toEqual([]);
  });

  it('completes stored key names after `keys use` and `keys remove`', async () => {
    const [use, remove] = await Promise.all([bashComplete('keys', 'use', ''), bashComplete('keys', 'remove', 'w')]);
    expect(use).toEqual(['work']);
    expect(remove).toEqual(['work']);
  });

  it('completes a technology name with a space as one quoted word, after global options too', async () => {
    // Each asks the CLI for the names: started together (a node start-up each).
    const [[word, ...more], escaped, after] = await Promise.all([
      bashComplete('--plan', 'pro', 'tech', 'TCP/I'),
      // What the user has typed so far may already be escaped.
      bashComplete('tech', 'TCP/IP\\ S'),
      // Only one name: after it, nothing but options (on a `-`).
      bashComplete('tech', 'TCP/IP\\ Stack', ''),
    ]);
    expect(more).toEqual([]);
    expect(word).toBe('TCP/IP\\ Stack');
    expect(await bashWords(word as string)).toEqual([['TCP/IP Stack']]);
    expect(escaped).toEqual(['TCP/IP\\ Stack']);
    expect(after).toEqual([]);
  });

  it('quotes every catalog name so that it reads back as exactly that name', async () => {
    const words = await bashComplete('tech', '');
    expect(words).toHaveLength(techNames.length);
    const readBack = await bashWords(...words);
    expect(readBack).toEqual(techNames.map((n) => [n]));
  });

  it('changes --tech offers the catalog names as tech does', async () => {
    const [changes, tech, typed] = await Promise.all([
      bashComplete('changes', '--tech', ''),
      bashComplete('tech', ''),
      bashComplete('changes', '--tech', 'TCP/I'),
    ]);
    expect(changes).toEqual(tech);
    expect(typed).toEqual(['TCP/IP\\ Stack']);
  });
});

describe.skipIf(!HAS_ZSH)('zsh', () => {
  /** What _domain_intel hands to compadd (stubbed: zsh only filters by prefix inside a real widget). */
  async function zshComplete(...words: string[]): Promise<string[]> {
    const script = [
      'typeset -ga got',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, expanded by the shell
      'compadd() { if [[ $1 == -a ]]; then got+=("${(@P)2}"); else [[ $1 == -- ]] && shift; got+=("$@"); fi }',
      '_files() { got+=(FILES) }',
      'compdef() { : }',
      'source "$1"; shift',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, expanded by the shell
      'words=(domain-intel "$@"); CURRENT=${#words}',
      '_domain_intel',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell code, expanded by the shell
      'print -rN -- "${got[@]}"',
    ].join('\n');
    const { stdout } = await exec('zsh', ['-f', '-c', script, 'zsh', scripts.zsh as string, ...words], { env });
    return stdout.split('\0').filter((w) => w !== '');
  }

  it('the script parses', async () => {
    await exec('zsh', ['-n', scripts.zsh as string]);
  });

  it('finds the command after global options, and offers its names and options', async () => {
    expect(await zshComplete('')).toEqual(expect.arrayContaining(['lookup', 'tech', 'completion']));
    expect(await zshComplete('--quiet', 'tech', '')).toEqual(techNames);
    expect(await zshComplete('--plan', 'pro', 'tech', '')).toContain('TCP/IP Stack');
    expect(await zshComplete('--quiet', 'keys', 'use', '')).toEqual(['work']);
    expect(await zshComplete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await zshComplete('completion', '-')).not.toContain('--names');
    expect(await zshComplete('batch', '--format', '')).toEqual(['csv', 'json', 'ndjson', 'xlsx']);
    expect(await zshComplete('batch', '')).toEqual(['FILES']);
  });

  it('offers setting names, plan names and category slugs, and nothing for a host', async () => {
    expect(await zshComplete('config', 'set', '')).toEqual(['base-url', 'plan', 'rpm']);
    expect(await zshComplete('config', 'set', 'plan', '')).toEqual(['pro', 'business', 'business-plus']);
    expect(await zshComplete('lookup', '')).toEqual([]);
    expect(await zshComplete('lookup', '-')).toContain('--format');
    expect(await zshComplete('catalog', '--category', '')).toEqual(slugs);
    expect(await zshComplete('batch', '-o', '')).toEqual(['FILES']);
    expect(await zshComplete('batch', '--concurrency', '')).toEqual([]);
  });

  it('loads as docs/setup.md says: source <(domain-intel completion zsh) after compinit', async () => {
    const script = 'autoload -Uz compinit && compinit -u -d "$1"; source <(domain-intel completion zsh); print -r -- "$_comps[domain-intel]"';
    const { stdout } = await exec('zsh', ['-f', '-c', script, 'zsh', join(dir, 'zcompdump')], { env });
    expect(stdout.trim()).toBe('_domain_intel');
  });
});

describe.skipIf(!HAS_FISH)('fish', () => {
  /** Candidates from fish's own completion engine (`complete -C`), descriptions dropped. */
  async function fishComplete(line: string): Promise<string[]> {
    const { stdout } = await exec('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', scripts.fish as string, line], { env });
    return stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0] as string);
  }

  it('the script parses', async () => {
    await exec('fish', ['--no-config', '-n', scripts.fish as string]);
  });

  it('completes commands, options, shells, key names and technology names', async () => {
    expect(await fishComplete('domain-intel ')).toEqual(expect.arrayContaining(['lookup', 'tech', 'completion']));
    expect(await fishComplete('domain-intel batch --form')).toEqual(['--format']);
    expect(await fishComplete('domain-intel completion ')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
    expect(await fishComplete('domain-intel completion --')).not.toContain('--names');
    expect(await fishComplete('domain-intel keys use ')).toEqual(['work']);
    expect(await fishComplete('domain-intel --quiet tech TCP/I')).toEqual(['TCP/IP Stack']);
  });

  it('offers setting names, plan names and category slugs, and nothing for a host', async () => {
    expect(await fishComplete('domain-intel config set ')).toEqual(['base-url', 'plan', 'rpm']);
    expect(await fishComplete('domain-intel config set plan ')).toEqual(['business', 'business-plus', 'pro']);
    expect(await fishComplete('domain-intel config set plan pro ')).toEqual([]);
    expect(await fishComplete('domain-intel lookup ')).toEqual([]);
    expect((await fishComplete('domain-intel catalog --category ')).sort()).toEqual([...slugs].sort());
  });

  it('loads as docs/setup.md says: domain-intel completion fish | source', async () => {
    const { stdout } = await exec('fish', ['--no-config', '-c', 'domain-intel completion fish | source; complete -C "domain-intel config set plan "'], { env });
    expect(stdout.split('\n').filter((l) => l !== '')).toEqual(['business', 'business-plus', 'pro']);
  });
});
