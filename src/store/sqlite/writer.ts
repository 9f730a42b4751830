// The answer cache's writes (issue 27): the journal's appends and merges, the claims and the presence, and the
// check just before a batch is sent (getFresh), each over a connection of their own, served from a message
// port. In the CLI the port is a worker thread's (writer-thread.ts, its own entry in the bundle), so the
// commits of a fresh run (a third of its main thread's time when they were done there) run beside the run
// rather than in it; from source, or where no thread can be started, it is a channel in this thread
// (writer-client.ts). The answers are read on the cache's own connection (answers.ts); this side tells it,
// with each write, what it holds unmerged, which reads must see.
//
// Every message names its connection and brings the caller's time (`now`): the clock is the caller's (tests
// move it by hand), and each step runs as it would have in the caller, at once, in the order sent.
import type { MessagePort } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { sqliteCode } from '../errors.js';
import { openClaims } from './claims.js';
import { openSqliteFile } from './driver.js';
import { openJournal } from './journal.js';

/** An answer to store, its body as JSON text already (null for 'missing'). */
export interface EncodedPut {
  endpoint: string;
  host: string;
  status: 'found' | 'missing';
  body: string | null;
}

/**
 * A stored answer as the writer reads it back: host, status, body, fetched_at, and prev_fetched_at (null: never
 * fetched before; undefined: not known, as for an answer not merged yet).
 */
export type WriterRow = [string, 'found' | 'missing', string | null, number, number | null | undefined];

/**
 * Hosts as passed to the writer: joined by newlines, one string (copied whole between threads: a hundred
 * strings cost ~100 us a message in a fresh run, a tenth of that joined); a list where that would not be
 * read back the same (fewer than two hosts, or a host holding a newline).
 */
export type WireHosts = string | string[];
export const toWire = (hosts: readonly string[]): WireHosts => (hosts.length < 2 || hosts.some((h) => h.includes('\n')) ? [...hosts] : hosts.join('\n'));
const fromWire = (w: WireHosts): string[] => (typeof w === 'string' ? w.split('\n') : w);

/**
 * Answers to store, by column (an object each cost far more to pass between threads). `endpoint`: every
 * answer's, or each one's. `kinds`: a letter an answer, f(ound) or m(issing), upper case when its body is
 * null. `bodies`: the bodies that are not null, in order, joined by newlines (JSON text holds none).
 */
export interface PutColumns {
  endpoint: string | string[];
  hosts: WireHosts;
  kinds: string;
  bodies: string;
}

/** Answers (at least one) as PutColumns. */
export function toColumns(entries: readonly EncodedPut[]): PutColumns {
  const first = (entries[0] as EncodedPut).endpoint;
  let kinds = '';
  const bodies: string[] = [];
  for (const e of entries) {
    const kind = e.status === 'found' ? 'f' : 'm';
    kinds += e.body === null ? kind.toUpperCase() : kind;
    if (e.body !== null) bodies.push(e.body);
  }
  return {
    endpoint: entries.every((e) => e.endpoint === first) ? first : entries.map((e) => e.endpoint),
    hosts: toWire(entries.map((e) => e.host)),
    kinds,
    bodies: bodies.join('\n'),
  };
}

function fromColumns(c: PutColumns): EncodedPut[] {
  const hosts = fromWire(c.hosts);
  const bodies = c.bodies === '' && !/[fm]/.test(c.kinds) ? [] : c.bodies.split('\n');
  let b = 0;
  return hosts.map((host, i) => {
    const kind = c.kinds[i] as string;
    return {
      endpoint: typeof c.endpoint === 'string' ? c.endpoint : (c.endpoint[i] as string),
      host,
      status: kind.toLowerCase() === 'f' ? 'found' : 'missing',
      body: kind === kind.toUpperCase() ? null : (bodies[b++] as string),
    };
  });
}

/** What a write tells the reading side: whether its answers wait in the journal, and whether a merge emptied it. */
export interface PutDone {
  journaled: boolean;
  merged: boolean;
}

/** The steps a writer takes, by name, with their arguments after the connection and the time. */
export interface WriterSteps {
  open(file: string): void;
  /** Another connection wrote to the file between the cache's open and this connection's (writer-client.ts). */
  othersWrote(): void;
  putMany(columns: PutColumns): PutDone;
  /**
   * Claims `hosts`, as claims.ts; `quiet`: no other connection has written to the file since this one's cache
   * opened, so a getFresh of the hosts claimed here would answer nothing (writer-client.ts spares asking it).
   */
  claim(endpoint: string, hosts: WireHosts): { busy: string[]; quiet: boolean };
  release(endpoint: string, hosts: WireHosts): void;
  getFresh(endpoint: string, hosts: WireHosts, since: number): WriterRow[];
  join(): boolean;
  leave(): void;
  merge(): void;
  close(): void;
}

export type WriterRequest = { id: number; conn: number; now: number; step: keyof WriterSteps; args: unknown[] };
export type WriterReply = { id: number; ok: unknown } | { id: number; error: { message: string; name: string; code?: unknown } };

/** The write side of one connection to the cache file `file`, on the clock `clock`. */
function writerOn(file: string, clock: () => number): Omit<WriterSteps, 'open'> {
  const db: Database.Database = openSqliteFile(file);
  // As the cache's own connection (schema.ts): the file is in WAL already, and its schema in place.
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  // data_version changes when another connection commits to the file: until one has, no other process can
  // have bought anything this connection does not already know of, and getFresh skips its query. The
  // cache's reading connection writes only at open (before this one) and in upkeep.
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const openedAt = dataVersion.get();
  let othersWrote = false;
  // An upsert, not INSERT OR REPLACE: a replace deletes the old row and inserts, which fires no UPDATE trigger,
  // so the answer it replaced would not reach the history.
  const putOne = db.prepare<[string, string, string, string | null, number]>(
    `INSERT INTO answers (endpoint, host, status, body, fetched_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (endpoint, host) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at, prev_fetched_at = answers.fetched_at`,
  );
  const putLone = db.transaction((e: EncodedPut, now: number, answered: () => void) => {
    putOne.run(e.endpoint, e.host, e.status, e.body, now);
    answered();
  });
  const stored = db
    .prepare<[string, number, string], WriterRow>(
      'SELECT host, status, body, fetched_at, prev_fetched_at FROM answers WHERE endpoint = ? AND fetched_at >= ? AND host IN (SELECT value FROM json_each(?))',
    )
    .raw(true) as unknown as Database.Statement<[string, number, string], WriterRow>;
  const journal = openJournal(db, false);
  const claims = openClaims(db, clock);
  let joined = false;

  const join = (): boolean => {
    joined = true;
    const live = claims.join();
    othersWrote ||= live;
    return live;
  };
  // Answers of `hosts` stored or appended by any connection (the later per host), as answers.ts reads them.
  const getFresh = (endpoint: string, wire: WireHosts, since: number): WriterRow[] => {
    const hosts = fromWire(wire);
    // A caller that did not join first: the first check before a run's first request says the run is here.
    if (!joined) join();
    othersWrote ||= dataVersion.get() !== openedAt;
    if (!othersWrote || hosts.length === 0) return [];
    // `recent` before `answers`: a merge in between moves rows into what is read second, so none is missed.
    const found = new Map<string, WriterRow>();
    const keep = (row: WriterRow) => {
      const kept = found.get(row[0]);
      if (kept === undefined || row[3] > kept[3]) found.set(row[0], row);
    };
    for (const r of journal.othersUnmerged(endpoint, hosts, since)) keep([r.host, r.status, r.body, r.fetched_at, undefined]);
    for (const r of stored.all(endpoint, since, JSON.stringify(hosts))) keep(r);
    const out: WriterRow[] = [];
    for (const host of hosts) {
      const row = found.get(host);
      const asStored = row && { host, status: row[1], body: row[2], fetched_at: row[3] };
      const kept = journal.latest(endpoint, host, asStored, since);
      if (kept === undefined) continue;
      out.push(kept === asStored ? (row as WriterRow) : [host, kept.status, kept.body, kept.fetched_at, kept.prev_fetched_at]);
      found.delete(host); // a repeat is answered once
    }
    return out;
  };
  const claim = (endpoint: string, hosts: WireHosts): { busy: string[]; quiet: boolean } => {
    if (!joined) join();
    const busy = claims.claim(endpoint, fromWire(hosts));
    // Looked at after the claim is committed: a run that claims these hosts from then on finds them busy, and
    // one that claimed any before has written (its claim), so nobody can have stored an answer of one unseen.
    othersWrote ||= dataVersion.get() !== openedAt;
    return { busy, quiet: !othersWrote };
  };
  const leave = () => {
    if (joined) claims.leave();
    joined = false;
  };

  return {
    putMany(columns) {
      const now = clock();
      const entries = fromColumns(columns);
      const only = entries[0];
      if (only === undefined) return { journaled: false, merged: false };
      // Answered: their claims end in the same commit, so another process finds the answers once it finds the
      // claims gone (and a run pays one commit a batch, not two).
      const answered = () =>
        claims.release(
          only.endpoint,
          entries.map((e) => e.host),
        );
      if (entries.length === 1 && journal.pending === 0) {
        // A lone answer (a single lookup, a traffic or employees run) dirties a page or two either way: written
        // straight into `answers`, it leaves nothing to merge when the cache closes.
        putLone(only, now, answered);
        return { journaled: false, merged: false };
      }
      journal.append(
        entries.map((e) => ({ endpoint: e.endpoint, host: e.host, status: e.status, body: e.body, fetched_at: now })),
        answered,
      );
      return { journaled: true, merged: journal.pending === 0 };
    },
    claim,
    release: (endpoint, hosts) => claims.release(endpoint, fromWire(hosts)),
    getFresh,
    othersWrote() {
      othersWrote = true;
    },
    join,
    leave,
    merge: () => journal.merge(),
    close() {
      if (!db.open) return;
      try {
        leave();
        journal.merge();
      } catch (err) {
        // Nothing is lost: what cannot be merged now (the file busy or damaged) stays committed in `recent`
        // and is merged when the cache is next opened; a presence left behind is cleared by its pid.
        if (sqliteCode(err) === '') throw err;
      } finally {
        db.close();
      }
    },
  };
}

/** Takes writer steps as messages, one connection per `open`; throws what a step throws. */
export function writerHost(): (m: Omit<WriterRequest, 'id'>) => unknown {
  const conns = new Map<number, Omit<WriterSteps, 'open'>>();
  let now = 0;
  const clock = () => now;
  return (m) => {
    now = m.now;
    if (m.step === 'open') return void conns.set(m.conn, writerOn(m.args[0] as string, clock));
    const conn = conns.get(m.conn);
    if (conn === undefined) throw new Error(`no cache writer connection ${m.conn}`);
    if (m.step === 'close') conns.delete(m.conn);
    return (conn[m.step] as (...args: unknown[]) => unknown)(...m.args);
  };
}

/** Serves writer steps from `port`, each answered in the order asked (the writer thread's side). */
export function serveWriter(port: Pick<MessagePort, 'on' | 'postMessage'>): void {
  const host = writerHost();
  port.on('message', (m: WriterRequest) => {
    try {
      port.postMessage({ id: m.id, ok: host(m) } satisfies WriterReply);
    } catch (err) {
      const e = err as { message?: unknown; name?: unknown; code?: unknown };
      port.postMessage({ id: m.id, error: { message: String(e?.message ?? err), name: String(e?.name ?? 'Error'), code: e?.code } } satisfies WriterReply);
    }
  });
}
