// The cache's side of its writer (writer.ts): every cache connection of the process shares one writer, in a
// worker thread where the bundle holds its entry (scripts/build.mjs writes dist/sqlite-writer.js); else (from
// source: Node cannot start a worker on TypeScript) in this thread, each step done at the call as before the
// thread. One writer for the process, not one per cache: the claims tell this process's live connections
// from those that have left by a set the writer keeps (claims.ts), which must be one for the process.
//
// The thread holds the process open only while a step is pending: idle, it is unref'd, and it ends when the
// last connection closes (after its merge). A step answered with an error rejects with SQLite's code kept,
// for answers.ts to judge it as it judged its own.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { StoredRow } from './journal.js';
import {
  type EncodedPut,
  type PutDone,
  writerHost,
  type WriterReply,
  type WriterRequest,
  type WriterRow,
  type WriterSteps,
  toColumns,
  toWire,
} from './writer.js';

/** The writer thread's file name beside the bundle, injected at build time; none when run from source. */
declare const __SQLITE_WRITER__: string;

type Request = Omit<WriterRequest, 'id'>;

/** The writer thread, shared by every connection of the process while one is open. */
interface Thread {
  send(m: Request): Promise<unknown>;
  conns: number;
  stop(): Promise<void>;
}

let thread: Thread | null = null;
/** The writer in this thread, where no thread can be had: each step done at the call, as before there was one. */
let here: ((m: Request) => unknown) | null = null;
let ids = 0;
let connIds = 0;

/** The writer thread's file in the bundle (dist/, from a chunk or the bundle's top), or null. */
function threadFile(): URL | null {
  if (typeof __SQLITE_WRITER__ !== 'string') return null;
  for (const where of [`../${__SQLITE_WRITER__}`, `./${__SQLITE_WRITER__}`]) {
    const url = new URL(where, import.meta.url);
    if (existsSync(url)) return url;
  }
  return null;
}

function startThread(file: URL): Thread {
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const worker = new Worker(file);
  // Idle, the thread must not keep the process alive; a pending step does.
  worker.unref();
  const t: Thread = {
    send: (m) =>
      new Promise((resolve, reject) => {
        if (thread !== t) return reject(new Error('the cache writer thread stopped'));
        const id = ++ids;
        pending.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, ...m } satisfies WriterRequest);
      }),
    conns: 0,
    stop: async () => void (await worker.terminate()),
  };
  worker.on('message', (r: WriterReply) => {
    const p = pending.get(r.id);
    pending.delete(r.id);
    if (pending.size === 0) worker.unref();
    if ('ok' in r) p?.resolve(r.ok);
    else p?.reject(Object.assign(new Error(r.error.message), r.error.code === undefined ? {} : { code: r.error.code }, { name: r.error.name }));
  });
  const fail = (err: Error) => {
    if (thread === t) thread = null;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('the cache writer thread stopped')));
  return t;
}

type Args<K extends keyof WriterSteps> = Parameters<WriterSteps[K]>;
type Result<K extends keyof WriterSteps> = ReturnType<WriterSteps[K]>;

/** The writer of one connection to `file`: its steps, and the answers it holds unmerged (which reads must see). */
export interface Writer {
  /** How many of this connection's answers are not merged yet. */
  readonly pending: number;
  /** `stored`, or this connection's unmerged answer for the host if that is later and fetched at or after `since` (journal.ts). */
  latest(endpoint: string, host: string, stored: StoredRow | undefined, since: number): StoredRow | undefined;
  /** Stores `entries` (at least one), fetched at `now`; resolves once committed. */
  putMany(entries: EncodedPut[], now: number): Promise<void>;
  claim(endpoint: string, hosts: readonly string[], now: number): Promise<string[]>;
  release(endpoint: string, hosts: readonly string[], now: number): Promise<void>;
  getFresh(endpoint: string, hosts: readonly string[], since: number, now: number): Promise<WriterRow[]>;
  join(now: number): Promise<boolean>;
  leave(now: number): Promise<void>;
  merge(): Promise<void>;
  /** Leaves, merges and closes the connection; the writer ends with the last one. */
  close(): Promise<void>;
}

/**
 * Opens a writer connection to the cache file `file` (its schema in place). `othersWrote`: whether another
 * connection has written to the file since the cache opened, asked once the writer is open (the writer sees
 * those after, the cache those before, and so a run misses none).
 */
export function openWriter(file: string, othersWrote: () => boolean): Writer {
  const conn = ++connIds;
  const where = threadFile();
  let closed = false;
  let send: (m: Request) => Promise<unknown>;
  let close: () => Promise<void>;
  /** Open, and told whether others wrote: steps are sent at once from then on. */
  let opened: Promise<void> | null;
  if (where !== null) {
    thread ??= startThread(where);
    const t = thread;
    t.conns++;
    send = t.send;
    let isOpen = false;
    close = async () => {
      try {
        // A connection the writer could not open has nothing to close there.
        if (isOpen) await send({ conn, now: 0, step: 'close', args: [] });
      } finally {
        if (--t.conns === 0 && thread === t) {
          thread = null;
          await t.stop();
        }
      }
    };
    // Nothing else is sent until the open is answered: no write of this connection may come between its
    // opening and the look at whether others wrote (its own would count as another's to the cache's connection).
    opened = send({ conn, now: 0, step: 'open', args: [file] }).then(async () => {
      isOpen = true;
      if (othersWrote()) await send({ conn, now: 0, step: 'othersWrote', args: [] });
      opened = null;
    });
    opened.catch(() => undefined); // heard by the first step, which fails with it
  } else {
    here ??= writerHost();
    const host = here;
    host({ conn, now: 0, step: 'open', args: [file] });
    if (othersWrote()) host({ conn, now: 0, step: 'othersWrote', args: [] });
    opened = null;
    send = async (m) => host(m);
    close = async () => void host({ conn, now: 0, step: 'close', args: [] });
  }
  const step = <K extends keyof WriterSteps>(name: K, now: number, ...args: Args<K>): Promise<Result<K>> => {
    const m: Request = { conn, now, step: name, args };
    return (opened === null ? send(m) : opened.then(() => send(m))) as Promise<Result<K>>;
  };
  /** The host lists of claims that found no other connection writing, and their lengths (see getFresh). */
  const claimedQuietly = new WeakMap<readonly string[], number>();
  /** This connection's unmerged answers, by `${endpoint}\n${host}`, as the writer's journal holds them. */
  const unmerged = new Map<string, StoredRow>();
  const done = (d: PutDone, rows: EncodedPut[], now: number) => {
    if (d.merged) unmerged.clear();
    else if (d.journaled) for (const e of rows) unmerged.set(`${e.endpoint}\n${e.host}`, { host: e.host, status: e.status, body: e.body, fetched_at: now });
  };
  return {
    get pending() {
      return unmerged.size;
    },
    latest(endpoint, host, stored, since) {
      if (unmerged.size === 0) return stored;
      const kept = unmerged.get(`${endpoint}\n${host}`);
      if (kept === undefined || kept.fetched_at < since) return stored;
      return stored === undefined || kept.fetched_at > stored.fetched_at ? kept : stored;
    },
    async putMany(entries, now) {
      done(await step('putMany', now, toColumns(entries)), entries, now);
    },
    async claim(endpoint, hosts, now) {
      const { busy, quiet } = await step('claim', now, endpoint, toWire(hosts));
      if (quiet) claimedQuietly.set(hosts, hosts.length);
      return busy;
    },
    release: (endpoint, hosts, now) => step('release', now, endpoint, toWire(hosts)),
    getFresh(endpoint, hosts, since, now) {
      // The hosts of a claim that found the file quiet, asked at once (ledger.ts): nothing to find, and a
      // round trip to the writer spared (a third of a batch's).
      const quiet = claimedQuietly.get(hosts) === hosts.length;
      claimedQuietly.delete(hosts);
      return quiet ? Promise.resolve([]) : step('getFresh', now, endpoint, toWire(hosts), since);
    },
    join: (now) => step('join', now),
    leave: (now) => step('leave', now),
    async merge() {
      await step('merge', 0);
      unmerged.clear();
    },
    async close() {
      if (closed) return;
      closed = true;
      await opened?.catch(() => undefined);
      await close();
      unmerged.clear();
    },
  };
}
