// Which runs are alive, across machines: each open handle that buys (the answers' claims) or paces (an
// account's slots) has a row in `runs` whose heartbeat this process renews every third of the lease. A run
// silent for the lease (30 s, LEASE_MS in url.ts, unless the store URL gives `?lease=`) is dead, whatever its
// machine says: a machine killed with -9, a network cut, a laptop shut. Its claims are then taken over and its
// slots in flight count as answered, so it holds nobody up for longer than the lease. A pid is kept for people
// reading the table, never to judge liveness (it means nothing on another machine).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Db } from './pool.js';

/** Heartbeats in a lease: those before the last may be missed (a busy event loop, a slow statement) by a live run. */
const BEATS_A_LEASE = 3;
/** Rows of runs silent this long are removed when a run joins (they are long dead; nothing refers to them). */
const FORGET_RUNS_MS = 24 * 60 * 60_000;

/** One handle's presence in `runs`. */
export interface Presence {
  /** The run id: owner of claims and slots. */
  readonly id: string;
  /** How long this run's claims and slots outlive its last heartbeat, and others' theirs (ms). */
  readonly leaseMs: number;
  /** Puts the row in place (once) and keeps it beating. */
  ensure(): Promise<void>;
  /** Says this run is buying (true) or done buying (false, and its claims end); resolves whether another live run is buying. */
  buying(on: boolean): Promise<boolean>;
  /** Removes the row and its claims: the handle closes. */
  gone(): Promise<void>;
}

interface Beat {
  ids: Set<string>;
  timer: NodeJS.Timeout | null;
}

/** The heartbeat of every presence on `db` in `schema` with a lease of `leaseMs`: one statement for all of them. */
function beatOf(db: Db, schema: string, leaseMs: number): Beat {
  const key = `heartbeat ${schema} ${leaseMs}`;
  let beat = db.memo.get(key) as Beat | undefined;
  if (beat === undefined) {
    beat = { ids: new Set(), timer: null };
    db.memo.set(key, beat);
  }
  return beat;
}

function startBeat(db: Db, schema: string, leaseMs: number, beat: Beat): void {
  if (beat.timer !== null) return;
  beat.timer = setInterval(() => {
    // A failed beat is not reported here: the run's next statement fails too, and says why.
    db.query(`UPDATE ${schema}.runs SET last_seen = ${schema}.now_ms() WHERE id = ANY($1::text[])`, [[...beat.ids]]).catch(() => {});
  }, leaseMs / BEATS_A_LEASE);
  // The heartbeat never keeps a process alive on its own.
  beat.timer.unref();
}

/** A new presence on `db` in `schema`, alive for `leaseMs` after each heartbeat (no row until `ensure` or `buying`). */
export function presence(db: Db, schema: string, leaseMs: number): Presence {
  const s = schema;
  const id = randomUUID();
  const beat = beatOf(db, schema, leaseMs);
  const upsert = `INSERT INTO ${s}.runs AS r (id, machine, pid, started_at, last_seen, buying)
    VALUES ($1, $2, $3, ${s}.now_ms(), ${s}.now_ms(), $4)
    ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen, buying = excluded.buying`;
  let placed: Promise<void> | null = null;
  const live = () => {
    beat.ids.add(id);
    startBeat(db, schema, leaseMs, beat);
  };
  return {
    id,
    leaseMs,
    ensure() {
      placed ??= db.query(upsert, [id, os.hostname(), process.pid, false]).then(live, (err: unknown) => {
        placed = null;
        throw err;
      });
      return placed;
    },
    async buying(on) {
      if (!on) {
        await db.query(`WITH done AS (DELETE FROM ${s}.claims WHERE owner = $1) UPDATE ${s}.runs SET buying = false WHERE id = $1`, [id]);
        return false;
      }
      // The row (buying), the long-dead rows forgotten, and whether another live run is buying: one statement.
      const rows = await db.query<{ others: boolean }>(
        `WITH me AS (${upsert} RETURNING 1),
              gone AS (DELETE FROM ${s}.runs WHERE id <> $1 AND last_seen < ${s}.now_ms() - $5)
         SELECT EXISTS (SELECT 1 FROM ${s}.runs WHERE id <> $1 AND buying AND last_seen >= ${s}.now_ms() - $6) AS others`,
        [id, os.hostname(), process.pid, true, FORGET_RUNS_MS, leaseMs],
      );
      placed ??= Promise.resolve();
      live();
      return rows[0]?.others === true;
    },
    async gone() {
      beat.ids.delete(id);
      if (beat.ids.size === 0 && beat.timer !== null) {
        clearInterval(beat.timer);
        beat.timer = null;
      }
      if (placed === null) return;
      await db.query(`WITH done AS (DELETE FROM ${s}.claims WHERE owner = $1) DELETE FROM ${s}.runs WHERE id = $1`, [id]);
    },
  };
}
