// The accounts' part of the schema (version 1): the quota memo, the learned rate, and the limiter's slots,
// pause and announced resets, which every machine of an account paces against. Each slot step is one
// function, so one round trip and one short transaction under pg_advisory_xact_lock on the account (a
// transaction's lock: a pooler in transaction mode keeps working), with the semantics of store/sqlite/slots.ts.
//
// Times: every step is given `p_client`, the limiter's clock reading now (its `now`, or the answer's `at`).
// The step's own time is the server's clock (now_ms()), or `p_client` itself when `p_fixed` (a store opened
// with a clock of its own: tests). The difference is the offset between the two clocks, measured afresh by
// each step: times given are moved onto the server's clock by it, times returned moved back, so slots that
// several machines share are all on one clock while each limiter keeps waiting on its own.

/** free_at of a slot in flight: held until its answer. A number, not NULL, so that "held" is one index range. */
const IN_FLIGHT = Number.MAX_SAFE_INTEGER;
/** How long a slot may stay in flight before it is taken for dead whatever its run (as SQLite: 5 minutes). */
const UNANSWERED_EXPIRY_MS = 5 * 60_000;
/** Announced resets kept per account for reading the window length (as memory-slots.ts). */
const RESETS_KEPT = 16;
/** Two announced resets closer than this are one (each machine's clock offset is measured to a few ms). */
const SAME_RESET_MS = 100;

/** Version 1 of the accounts' tables and slot steps in schema `s`. */
export const accountSchema = (s: string): string => `
  CREATE TABLE ${s}.quota (
    account     text   PRIMARY KEY,
    base_url    text   NOT NULL,
    key_fp      text   NOT NULL,
    quota_limit bigint,
    remaining   bigint,
    reset       text,
    reset_raw   text,
    seen_at     bigint NOT NULL
  );
  CREATE TABLE ${s}.learned_rate (
    account    text   PRIMARY KEY,
    requests   bigint NOT NULL CHECK (requests > 0),
    window_ms  bigint NOT NULL CHECK (window_ms > 0),
    learned_at bigint NOT NULL
  );
  CREATE TABLE ${s}.limiter_slots (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account     text    NOT NULL,
    run_id      text    NOT NULL,
    started_at  bigint  NOT NULL,
    answered_at bigint,
    free_at     bigint  NOT NULL,
    accepted    boolean NOT NULL DEFAULT false
  );
  CREATE INDEX limiter_slots_free ON ${s}.limiter_slots (account, free_at);
  CREATE TABLE ${s}.limiter_pause (
    account      text    PRIMARY KEY,
    paused_until bigint  NOT NULL,
    announced    boolean NOT NULL
  );
  CREATE TABLE ${s}.limiter_resets (
    account text   NOT NULL,
    at      bigint NOT NULL,
    PRIMARY KEY (account, at)
  );

  -- The step's lock, time and offset: every slot function starts here.
  CREATE FUNCTION ${s}.slot_step(p_account text, p_client bigint, p_fixed boolean, OUT v_now bigint, OUT v_off bigint)
  LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('${s} slots'), hashtext(p_account));
    v_now := CASE WHEN p_fixed THEN p_client ELSE ${s}.now_ms() END;
    v_off := v_now - p_client;
  END $$;

  -- Held by the taker's window, not only the one that answered (see sqlite/slots.ts): an answered slot counts
  -- for the shorter of the two windows; one in flight counts until its answer.
  CREATE FUNCTION ${s}.slots_held(p_account text, p_now bigint, p_hold bigint, p_limit integer) RETURNS integer
  LANGUAGE sql STABLE AS $$
    SELECT COUNT(*)::integer FROM (SELECT 1 FROM ${s}.limiter_slots
      WHERE account = p_account AND free_at > p_now AND (answered_at IS NULL OR answered_at > p_now - p_hold) LIMIT p_limit) held
  $$;

  CREATE FUNCTION ${s}.slot_take(p_account text, p_run text, p_client bigint, p_fixed boolean, p_limit integer, p_hold bigint,
                                 p_forget boolean, p_lease bigint, OUT slot_id bigint, OUT retry_at bigint, OUT paused boolean)
  LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint; v_until bigint; v_soonest bigint; v_expired integer;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    SELECT paused_until INTO v_until FROM ${s}.limiter_pause WHERE account = p_account;
    IF v_now < COALESCE(v_until, 0) THEN
      retry_at := v_until - v_off; paused := true; RETURN;
    END IF;
    IF p_forget THEN
      DELETE FROM ${s}.limiter_slots WHERE account = p_account AND free_at < v_now - 2 * p_hold;
    END IF;
    IF p_limit IS NOT NULL AND ${s}.slots_held(p_account, v_now, p_hold, p_limit) >= p_limit THEN
      -- In flight for a run whose heartbeat stopped (a machine killed, a network gone), or for too long:
      -- counted as answered now, so held one more window (its request may have counted until then).
      UPDATE ${s}.limiter_slots sl SET answered_at = v_now, free_at = v_now + p_hold
       WHERE sl.account = p_account AND sl.free_at = ${IN_FLIGHT}
         AND (sl.started_at < v_now - ${UNANSWERED_EXPIRY_MS}
              OR NOT EXISTS (SELECT 1 FROM ${s}.runs r WHERE r.id = sl.run_id AND r.last_seen >= ${s}.now_ms() - p_lease));
      GET DIAGNOSTICS v_expired = ROW_COUNT;
      IF v_expired = 0 OR ${s}.slots_held(p_account, v_now, p_hold, p_limit) >= p_limit THEN
        SELECT MIN(CASE WHEN answered_at IS NULL THEN free_at ELSE LEAST(free_at, answered_at + p_hold) END) INTO v_soonest
          FROM ${s}.limiter_slots
         WHERE account = p_account AND free_at > v_now AND (answered_at IS NULL OR answered_at > v_now - p_hold);
        retry_at := CASE WHEN v_soonest IS NULL OR v_soonest = ${IN_FLIGHT} THEN NULL ELSE v_soonest - v_off END;
        paused := false;
        RETURN;
      END IF;
    END IF;
    INSERT INTO ${s}.limiter_slots (account, run_id, started_at, free_at) VALUES (p_account, p_run, v_now, ${IN_FLIGHT})
      RETURNING id INTO slot_id;
  END $$;

  -- Answered before an announced reset still to come: counted in the window that ends there, so free at it.
  CREATE FUNCTION ${s}.slot_answer(p_account text, p_id bigint, p_client bigint, p_fixed boolean, p_accepted boolean, p_hold bigint)
  RETURNS void LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    UPDATE ${s}.limiter_slots SET answered_at = v_now, accepted = p_accepted, free_at = COALESCE(
      (SELECT LEAST(v_now + p_hold, paused_until) FROM ${s}.limiter_pause
        WHERE account = p_account AND announced AND v_now < paused_until), v_now + p_hold)
     WHERE id = p_id AND account = p_account;
  END $$;

  CREATE FUNCTION ${s}.slot_release(p_account text, p_id bigint) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('${s} slots'), hashtext(p_account));
    DELETE FROM ${s}.limiter_slots WHERE id = p_id AND account = p_account;
  END $$;

  CREATE FUNCTION ${s}.slot_pause(p_account text, p_client bigint, p_fixed boolean, p_until bigint, p_announced boolean)
  RETURNS void LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint; v_until bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    v_until := p_until + v_off;
    INSERT INTO ${s}.limiter_pause AS lp (account, paused_until, announced) VALUES (p_account, v_until, p_announced)
      ON CONFLICT (account) DO UPDATE SET paused_until = excluded.paused_until, announced = excluded.announced
      WHERE excluded.paused_until > lp.paused_until;
    IF p_announced THEN
      UPDATE ${s}.limiter_slots SET free_at = v_until WHERE account = p_account AND free_at > v_until AND answered_at < v_until;
    END IF;
  END $$;

  CREATE FUNCTION ${s}.slot_paused_until(p_account text, p_client bigint, p_fixed boolean) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    RETURN COALESCE((SELECT paused_until - v_off FROM ${s}.limiter_pause WHERE account = p_account), 0);
  END $$;

  CREATE FUNCTION ${s}.slot_accepted(p_account text, p_client bigint, p_fixed boolean, p_from bigint, p_to bigint,
                                     OUT count bigint, OUT first bigint) LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    SELECT COUNT(*), MIN(started_at) - v_off INTO count, first FROM ${s}.limiter_slots
     WHERE account = p_account AND accepted AND started_at >= p_from + v_off AND started_at < p_to + v_off;
  END $$;

  CREATE FUNCTION ${s}.slot_note_reset(p_account text, p_client bigint, p_fixed boolean, p_at bigint) RETURNS SETOF bigint
  LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint; v_at bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    v_at := p_at + v_off;
    INSERT INTO ${s}.limiter_resets (account, at) SELECT p_account, v_at
     WHERE NOT EXISTS (SELECT 1 FROM ${s}.limiter_resets WHERE account = p_account AND abs(at - v_at) < ${SAME_RESET_MS});
    DELETE FROM ${s}.limiter_resets WHERE account = p_account
       AND at NOT IN (SELECT at FROM ${s}.limiter_resets WHERE account = p_account ORDER BY at DESC LIMIT ${RESETS_KEPT});
    RETURN QUERY SELECT at - v_off FROM ${s}.limiter_resets WHERE account = p_account ORDER BY at;
  END $$;
`;
