// Examples appended to each command's --help: real invocations a user can copy. Loaded at every start, so
// the column list comes from fields.ts (type imports only), not the run kinds behind flatten.ts.
import { columnsOf, profileValues } from '../../domain/fields.js';

/** A list as one line of help (`first a, b, c`): wrapped to the help's width when written (help-layout.ts). */
function listLine(items: string[], first: string): string {
  return `${first} ${items.join(', ')}`;
}
const block = (lines: string[]): string => `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;

export const EXAMPLES = {
  program: `${block([
    'domain-intel lookup usi.com',
    'domain-intel batch crm.csv -o crm-enriched.csv',
    'cut -d, -f3 leads.csv | domain-intel batch - --format ndjson | jq -r \'select(.status=="found") | .host\'',
    'domain-intel batch crm.csv --dry-run          # what it would cost, spending nothing',
    '0 3 * * * domain-intel batch ~/crm.csv -o ~/out.csv -q   # nightly, with the key stored by keys add',
  ])}
Try it without a key or network: domain-intel sandbox   (then follow what it prints)
Exit codes: 0 ok, 1 bug, 2 usage/input, 3 invalid rows (--strict), 4 incomplete, 5 quota, 6 key, 7 network, 8 not found, 9 cache, 10 output, 11 not kept, 12 empty input, 13 store, 130 interrupted, 141 pipe closed (README: the table).
`,
  lookup: block([
    'domain-intel lookup usi.com                      # usi.com: a host the sandbox holds',
    "domain-intel lookup usi.com | jq '.[0].data.technologies'   # JSON: an array of rows, the answer in .data",
    'domain-intel lookup https://www.example.com/pricing sales@example.org --format json | jq .',
    'domain-intel lookup a.com b.com c.com --format csv > profiles.csv',
  ]),
  batch: `${block([
    'domain-intel batch crm.csv -o crm-enriched.csv',
    'domain-intel batch leads.csv --column "Company Website" --fields status,host,technologies,traffic_visits',
    "cut -d, -f2 export.csv | domain-intel batch - --format ndjson | jq -c '{host, tech: .data.technologies}'",
    '0 2 * * * domain-intel batch ~/crm.csv -o ~/crm.csv -q   # nightly, in place; cron mails any error',
  ])}
${listLine(columnsOf(profileValues, 'profile'), 'Appended columns:')}.
Re-running the same command resumes: answers already fetched come from the cache and cost nothing.
Options every command takes (--rpm, --plan, --store, --json...): domain-intel --help.
`,
  traffic: block([
    'domain-intel traffic example.com',
    'domain-intel traffic --input hosts.txt --format csv -o traffic.csv',
    "domain-intel traffic example.com --format json | jq '.history[] | [.month, .visits] | @tsv' -r",
  ]),
  employees: block([
    'domain-intel employees shop.example.co.uk',
    'domain-intel employees --input crm.csv --column website -o headcounts.csv   # one lookup per organisation',
  ]),
  changes: block([
    "domain-intel changes crm.csv                         # each host's latest answer against the one it replaced",
    'domain-intel changes crm.csv --since 1d --format ndjson | curl -s --data-binary @- https://hooks.example/crm',
    'domain-intel changes --all --tech Shopify --since 2026-11-01',
    'domain-intel changes crm.csv --field technologies,traffic_band,redirect_to --format csv > moved.csv',
  ]),
  summarize: block([
    'domain-intel summarize crm-enriched.csv',
    'domain-intel summarize crm-enriched.csv --by technologies          # every technology, not the top 10',
    "domain-intel summarize crm-enriched.ndjson --format json | jq '.countries[:5]'",
    'domain-intel summarize leads.txt --from-cache                      # what the cache knows, spending nothing',
  ]),
  tech: block(['domain-intel tech "Node.js"', 'domain-intel tech "TCP/IP Stack" --format json | jq .domains']),
  catalog: block(['domain-intel catalog --category cms', "domain-intel catalog --format json | jq -r '.[].technologies[].tech'"]),
  keys: block(['domain-intel keys add work < ~/secrets/domain-intel.key', 'domain-intel keys list', 'domain-intel keys use work && domain-intel keys verify']),
  config: block(['domain-intel config set plan business', 'domain-intel config show']),
  quota: block(['domain-intel quota', "domain-intel quota --json | jq '.accounts[0].remaining'"]),
  cache: block(['domain-intel cache stats', 'domain-intel cache prune --max-age 7d', 'domain-intel cache prune --history 90d   # past answers too']),
  store: block([
    "domain-intel config set store 'postgres://intel@db.internal/intel'   # password: PGPASSWORD or ~/.pgpass",
    'domain-intel store status',
    "domain-intel store import   # this machine's local cache into the shared store, once",
  ]),
  sandbox: block(['domain-intel sandbox --port 8787   # prints two export lines: paste them into another shell, then', 'domain-intel lookup <a printed host>']),
  completion: block([
    'domain-intel completion fish > ~/.config/fish/completions/domain-intel.fish',
    'source <(domain-intel completion bash)   # bash, this shell; the same line in ~/.bashrc for every shell',
    'source <(domain-intel completion zsh)    # zsh, after compinit; the same line in ~/.zshrc',
  ]),
} as const;
