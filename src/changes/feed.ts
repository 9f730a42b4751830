// The change feed (`domain-intel changes`): for each host, the answer held at a moment (--since) or the one
// the latest replaced, against the latest, as events. Reads the cache only; spends nothing.
//
// Profiles only (the `domain` endpoint, what `batch` and `lookup` keep): the columns a CRM list carries and
// what the sandbox's releases move. Traffic series and employee estimates have histories of their own, which
// a later `--kind` could read through the same steps.
//
// Merged answers only, on both sides: the history is written when answers are merged (the store's history), so
// the latest is read as merged too, never from a running process's journal, whose answers have replaced
// nothing yet. Opening the cache merges what a killed run left. The store is asked once per chunk of hosts
// (which are held, which have a past), then only about the hosts with a past.
import { diffAnswers } from '../domain/diff.js';
import { KINDS } from '../domain/kinds.js';
import type { HistoryReads } from '../store/contract.js';
import { type ChangeEvent, eventsOf } from './events.js';
import { type FeedFilter, keeps } from './filter.js';

/** The endpoint the feed reads. */
export const FEED_ENDPOINT = KINDS.profile.endpoint;

export interface FeedOptions {
  reads: Pick<HistoryReads, 'latest' | 'pastAmong' | 'history' | 'previous'>;
  hosts: AsyncIterable<string> | Iterable<string>;
  /** Epoch ms: compare the answer held then with the latest; null: the latest with the one it replaced. */
  since: number | null;
  filter: FeedFilter;
}

export interface FeedStats {
  /** Hosts the cache holds an answer for, each compared once. */
  compared: number;
  /** Hosts asked about that the cache holds no answer for: nothing to compare. */
  notHeld: number;
  /** Hosts with at least one event kept. */
  changed: number;
  events: number;
}

/** Hosts asked about the cache at once (one query for which are held and which have a past). */
const CHUNK = 499;

/** The feed, host by host (each yield is one host's events, never empty); `stats` is filled in as it goes. */
export async function* changeFeed(options: FeedOptions, stats: FeedStats): AsyncGenerator<ChangeEvent[]> {
  const { reads, since, filter } = options;
  let chunk: string[] = [];
  const take = async function* (hosts: string[]): AsyncGenerator<ChangeEvent[]> {
    const past = await reads.pastAmong(FEED_ENDPOINT, hosts);
    for (const host of hosts) {
      const hasPast = past.get(host);
      if (hasPast === undefined) stats.notHeld++;
      else stats.compared++;
      // Most hosts have no past: the same answer since it was first fetched, nothing to read further.
      if (hasPast !== true) continue;
      const kept = (await hostEvents(reads, host, since)).filter((e) => keeps(filter, e));
      if (kept.length === 0) continue;
      stats.changed++;
      stats.events += kept.length;
      yield kept;
    }
  };
  for await (const host of options.hosts) {
    chunk.push(host);
    if (chunk.length < CHUNK) continue;
    yield* take(chunk);
    chunk = [];
  }
  yield* take(chunk);
}

async function hostEvents(reads: FeedOptions['reads'], host: string, since: number | null): Promise<ChangeEvent[]> {
  // The newest past answer is the one the latest replaced, and its replaced_at when the latest was first seen.
  const [history, now] = await Promise.all([reads.history(FEED_ENDPOINT, host), reads.latest(FEED_ENDPOINT, host)]);
  const newest = history[0];
  if (newest === undefined || now === null) return [];
  // With --since: the answer held then. A host whose oldest answer the cache knows was fetched after --since
  // is compared from that answer: the cache keeps when an answer was last fetched, not when first, so it
  // cannot tell a host first fetched after --since from one fetched before and again since, unchanged. Taking
  // the first for new (a status event from nothing) would report every host a nightly run re-fetched
  // unchanged; so a host never changed in the cache reports nothing, and one that changed reports the net
  // change since the oldest answer known.
  const before = since === null ? newest : ((await reads.previous(FEED_ENDPOINT, host, since)) ?? now);
  return eventsOf(host, diffAnswers(KINDS.profile, host, before, now), newest.replacedAt);
}
