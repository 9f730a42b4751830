// The end-of-run block on stderr: what was read, what was spent, how the service behaved, what is left.
import type { QuotaInfo } from '../../api/types.js';
import { formatReset, groupedNumber, humanDuration } from './format.js';
import { PLAIN, type Style, sanitizeForTerminal } from './terminal.js';
import { wrapLines } from './wrap.js';

/** Figures of one finished (or stopped) run, as counted by the pipeline. */
export interface RunSummary {
  /** Input rows read. */
  rows: number;
  valid: number;
  invalid: number;
  /** Rows whose host repeated an earlier row's. */
  duplicates: number;
  /** Hosts answered from the local cache (no lookup spent). */
  cacheHits: number;
  /** Lookups the service charged this run: the answers recorded (the ledger), not the hosts sent. */
  lookupsSpent: number;
  /** Hosts a batch answer left out of both its lists: not recorded as spent, fetched by a re-run. */
  unanswered?: number;
  /** Lookups in requests that got no usable answer (timed out, cut off) but may have been charged. */
  unconfirmed?: number;
  /** How far the service's remaining figure fell over the run, when its headers said (checked against lookupsSpent). */
  quotaDrop?: number | null;
  found: number;
  missing: number;
  /** Rows that ended in an error, those never looked up (notLookedUp) included. */
  errors: number;
  /** Rows among `errors` a stop settled before their lookup was tried: "not looked up", not failures. */
  notLookedUp?: number;
  /** HTTP requests sent. */
  requests: number;
  /** 429 answers received (each waited out until its reset). */
  rateLimited: number;
  retries: number;
  elapsedMs: number;
  /** The lowest remaining seen this period, if any response carried the headers. */
  quota: QuotaInfo | null;
  /** Paid answers the cache could not keep (disk full, read-only), and why: in the output, but a re-run pays again. */
  notKept?: number;
  notKeptCause?: string | null;
  /** Why the run ended early (budget, quota, abort), if it did. */
  stoppedBy?: string | null;
  /** What became of -o FILE when the run could not replace it (kept, rows in FILE.partial), if anything. */
  output?: string | null;
  /** Where the rows went, with their count ("wrote 1,000 rows to out.csv"), when they were kept there. */
  wrote?: string | null;
  /** The output's status and reason columns as named (CSV's carry --prefix), for the invalid rows' hint. */
  columns?: { status: string; reason: string };
  /** --strict: invalid rows fail the run (said by its exit warning), so the hint leaves it out. */
  strict?: boolean;
  /** Rows given a cached answer too old to use because a fresh one could not be had, and why. */
  stale?: number;
  staleCause?: string | null;
  /** Distinct hosts among those rows: the hosts line counts them (+N older), never rows. */
  staleHosts?: number;
  /** What those answers were, in words: `staleAnswers(maxAgeMs, refresh)`. */
  staleWhat?: string;
}

const AGE_WORDS: [string, number][] = [
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/**
 * What stale answers are, in words, for the summary and the warning: "answers older than 30 days" (--max-age
 * in the largest unit that divides it), or under --refresh "answers from before this run (--refresh)".
 */
export function staleAnswers(maxAgeMs: number, refresh: boolean): string {
  if (refresh) return 'answers from before this run (--refresh)';
  const [name, size] = AGE_WORDS.find(([, size]) => maxAgeMs >= size && maxAgeMs % size === 0) ?? ['millisecond', 1];
  const count = maxAgeMs / size;
  return `answers older than ${groupedNumber(count)} ${name}${count === 1 ? '' : 's'}`;
}

/**
 * A compact multi-line summary for stderr; no trailing newline. Rows and distinct hosts on lines of their
 * own, each labelled, so a row count is never read as a host count. `columns`: the terminal's width, to wrap
 * each line at its separators (output/wrap.ts); undefined off a terminal (one line each, for a log).
 */
export function renderSummary(s: RunSummary, style: Style = PLAIN, columns?: number): string {
  const n = groupedNumber;
  // Only figures that call for attention are coloured, so a clean run reads quietly; rows never looked up
  // are not failures (a re-run looks them up), so they are yellow, not red.
  const warnIf = (count: number, text: string): string => (count > 0 ? style.yellow(text) : text);
  const failIf = (count: number, text: string): string => (count > 0 ? style.red(text) : text);
  const untried = s.notLookedUp ?? 0;
  const failed = s.errors - untried;
  const lines = [
    [
      `rows: read ${n(s.rows)}`,
      `found ${n(s.found)}`,
      `missing ${n(s.missing)}`,
      warnIf(s.invalid, `invalid ${n(s.invalid)}`),
      failIf(failed, `errors ${n(failed)}`),
      ...(untried > 0 ? [style.yellow(`not looked up ${n(untried)}`)] : []),
      `duplicates ${n(s.duplicates)}`,
    ].join(' · '),
    [
      `hosts: distinct ${n(s.valid - s.duplicates)}`,
      // Hosts given older answers came from the cache too: said here, so "0 from cache" does not read as none.
      // Hosts, as the line's label says: the rows they stand in for are counted on the stale line below.
      (s.staleHosts ?? 0) > 0 ? `from cache ${n(s.cacheHits)} (+${n(s.staleHosts ?? 0)} older)` : `from cache ${n(s.cacheHits)}`,
      `lookups ${n(s.lookupsSpent)} spent`,
    ].join(' · '),
    [
      `requests ${n(s.requests)}`,
      warnIf(s.rateLimited, `429s ${n(s.rateLimited)}${s.rateLimited > 0 ? ' waited out' : ''}`),
      `retries ${n(s.retries)}`,
      humanDuration(s.elapsedMs),
    ].join(' · '),
  ];
  const unanswered = s.unanswered ?? 0;
  if (unanswered > 0) {
    lines.push(style.yellow(`unanswered ${n(unanswered)}: left out of the service's batch answers, not recorded as spent; a re-run fetches them`));
  }
  const unconfirmed = s.unconfirmed ?? 0;
  if (unconfirmed > 0) {
    lines.push(style.yellow(`unconfirmed ${n(unconfirmed)}: sent in requests that timed out or were cut off, so perhaps charged with no answer to record`));
  }
  const notKept = s.notKept ?? 0;
  if (notKept > 0) {
    lines.push(style.yellow(`not kept ${n(notKept)}: ${s.notKeptCause ?? 'the cache is not writable'}; in the output, but a re-run will pay for them again`));
  }
  // The service's own count: a larger drop means another client spends on the account (or this run was
  // charged for what it was not told of); a smaller one, that the service charges other than §8.6 says.
  if (s.quotaDrop !== undefined && s.quotaDrop !== null && s.quotaDrop !== s.lookupsSpent) {
    const why =
      s.quotaDrop <= s.lookupsSpent
        ? 'the service charged less than it answered'
        : unconfirmed > 0
          ? 'answers lost in transit were charged, or another run or client on the account spent'
          : 'another run or client on the account, or charges this run was not told of';
    lines.push(style.yellow(`quota check: remaining fell by ${n(s.quotaDrop)}, ${n(s.lookupsSpent)} recorded as spent (${why})`));
  }
  if (s.quota) {
    lines.push(`quota ${n(s.quota.remaining)} / ${n(s.quota.limit)} left · resets ${formatReset(s.quota)}`);
  }
  const stale = s.stale ?? 0;
  if (stale > 0) {
    const cause = s.staleCause ? `: ${sanitizeForTerminal(s.staleCause)}` : '';
    lines.push(style.yellow(`${n(stale)} rows from ${s.staleWhat ?? 'answers older than --max-age'}${cause}`));
  }
  if (s.stoppedBy) lines.push(style.yellow(`stopped: ${sanitizeForTerminal(s.stoppedBy)}`));
  if (s.wrote) lines.push(sanitizeForTerminal(s.wrote));
  if (s.output) lines.push(style.yellow(sanitizeForTerminal(s.output)));
  if (s.invalid > 0) {
    // Where to find them: the run wrote them, marked, rather than dropping them.
    const { status, reason } = s.columns ?? { status: 'status', reason: 'reason' };
    const strict = s.strict === true ? '' : ' · --strict exits 3 when there are any';
    // On their own rows, wherever those went (FILE, FILE.partial, stdout): "in the output" pointed at FILE when
    // the rows were in FILE.partial.
    lines.push(`invalid rows: ${status} "invalid" on their rows, the ${reason} column says why${strict}`);
  }
  return wrapLines(lines.join('\n'), columns);
}
