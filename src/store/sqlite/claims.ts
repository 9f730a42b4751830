// Claims: which hosts another process is buying right now. The check just before a batch is sent (answers.ts
// getFresh) sees what other processes have bought, but not what they have in flight: two runs that reach the
// same hosts at the same time (a run that skipped ahead through hosts the other bought catches up with it)
// would each buy every host from there on. So a batch's hosts are claimed just before it is sent, by every run,
// even one that believes itself alone (two runs started at the same instant each join before the other is
// there to see); a host another live process has claimed is put back to be looked up in a moment, when its
// answer is in the cache. A claim ends when its answer is stored, when its request gives up, when its run
// leaves (a finished run holds nothing), when its process is gone, or after CLAIM_MS (a hung process must
// not hold a host for ever).
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { alive } from '../../config/paths.js';

/** Longest a claim holds: a request's timeout (30 s) and its retries' backoff, with room. */
const CLAIM_MS = 2 * 60_000;

/** The claims table; created with the cache's own (schema.ts). */
export const CLAIMS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS claims (
    endpoint   TEXT    NOT NULL,
    host       TEXT    NOT NULL,
    owner      TEXT    NOT NULL,
    pid        INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (endpoint, host)
  ) WITHOUT ROWID;
`;

export interface Claims {
  /**
   * Says this connection is about to buy (a row under the endpoint '', which no answer uses); true when another
   * live connection has said so. Two runs that start together each learn of the other before their first
   * request: whichever writes second sees the first's row, and the first sees the file change.
   */
  join(): boolean;
  /** Takes back what join said, and ends this connection's claims (the run is over, or the cache closes). */
  leave(): void;
  /** Claims `hosts` for this connection; returns those another live process holds (not claimed here). */
  claim(endpoint: string, hosts: readonly string[]): string[];
  /** Ends this connection's claims on `hosts` (answered, or given up). */
  release(endpoint: string, hosts: readonly string[]): void;
}

/**
 * The connections of this process that are here (joined, not left). A claim or presence of this process is
 * live only while its connection is here: a run that ended holds nothing, even when its claims could not be
 * deleted (the disk full as it left) and its pid lives on in a library caller or the next run of a test.
 * Another process's are live while that process is.
 */
const here = new Set<string>();
const live = (owner: string, pid: number): boolean => (pid === process.pid ? here.has(owner) : alive(pid));

/** The claims of one connection to the cache file. */
export function openClaims(db: Database.Database, clock: () => number): Claims {
  // A process can hold two connections (a library caller, a test): the owner is the connection, not the pid.
  // Drawn on first use: a cached lookup claims nothing, and the first random UUID costs start-up (issue 27).
  let ownerId: string | undefined;
  const me = (): string => (ownerId ??= randomUUID());
  const held = db.prepare<[string, string], { host: string; owner: string; pid: number; expires_at: number }>(
    'SELECT host, owner, pid, expires_at FROM claims WHERE endpoint = ? AND host IN (SELECT value FROM json_each(?))',
  );
  const take = db.prepare<[string, string, number, number, string]>(
    `INSERT INTO claims (endpoint, host, owner, pid, expires_at) SELECT ?, value, ?, ?, ? FROM json_each(?) WHERE true
     ON CONFLICT (endpoint, host) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, expires_at = excluded.expires_at`,
  );
  const drop = db.prepare<[string, string, string]>('DELETE FROM claims WHERE owner = ? AND endpoint = ? AND host IN (SELECT value FROM json_each(?))');
  const expired = db.prepare<[number]>('DELETE FROM claims WHERE expires_at < ?');
  let takes = 0;
  let mine = false;
  const present = db.prepare<[string, string, number]>(
    `INSERT OR REPLACE INTO claims (endpoint, host, owner, pid, expires_at) VALUES ('', ?, ?, ?, ${Number.MAX_SAFE_INTEGER})`,
  );
  const othersHere = db.prepare<[string], { host: string; pid: number }>("SELECT host, pid FROM claims WHERE endpoint = '' AND owner != ?");
  const gone = db.prepare<[string]>("DELETE FROM claims WHERE endpoint = '' AND host = ?");
  // Its presence (host = owner) and every claim it still holds: hosts whose lookups were left unsent by a stop.
  const left = db.prepare<[string]>('DELETE FROM claims WHERE owner = ?');
  const join = db.transaction((): boolean => {
    present.run(me(), me(), process.pid);
    here.add(me());
    let others = false;
    for (const o of othersHere.all(me())) {
      if (live(o.host, o.pid)) others = true;
      else gone.run(o.host); // a run killed before it could leave
    }
    return others;
  });

  const claim = db.transaction((endpoint: string, hosts: readonly string[]): string[] => {
    const now = clock();
    if (++takes % 64 === 1) expired.run(now);
    const busy = new Set<string>();
    for (const c of held.all(endpoint, JSON.stringify(hosts))) {
      if (c.owner !== me() && c.expires_at >= now && live(c.owner, c.pid)) busy.add(c.host);
    }
    const free = hosts.filter((h) => !busy.has(h));
    if (free.length > 0) {
      take.run(endpoint, me(), process.pid, now + CLAIM_MS, JSON.stringify(free));
      mine = true;
    }
    return [...busy];
  });

  return {
    join: () => join.immediate(),
    leave() {
      here.delete(me());
      left.run(me());
    },
    claim: (endpoint, hosts) => (hosts.length === 0 ? [] : claim.immediate(endpoint, hosts)),
    release(endpoint, hosts) {
      if (mine && hosts.length > 0) drop.run(me(), endpoint, JSON.stringify(hosts));
    },
  };
}
