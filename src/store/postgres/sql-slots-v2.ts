// Version 2 of the accounts' slot steps (version 1: sql-account.ts): what an announced reset frees, and when a
// slot's request was sent (a little after its slot was taken: the store is asked first). Version 1
// freed at the reset every slot answered before it, right under a fixed window only; under a sliding window
// only the oldest request leaves the window at the reset, and the rest met a 429 in every window. Now, as
// store/contract.ts says and memory-slots.ts and sqlite/slots.ts do: a refused slot frees at the reset (it
// was never counted), and a reset that opens a pause frees the oldest accepted slot held past it. Also the
// start of the n-th most recent accepted request, which bounds the window (run/limit/window-bounds.ts).

/** The slot steps version 2 replaces or adds, in schema `s`. */
export const slotsV2Schema = (s: string): string => `
  -- p_sent: when the request was sent, relative to p_client (negative), if later than the slot was taken.
  DROP FUNCTION ${s}.slot_answer(text, bigint, bigint, boolean, boolean, bigint);
  CREATE FUNCTION ${s}.slot_answer(p_account text, p_id bigint, p_client bigint, p_fixed boolean, p_accepted boolean, p_hold bigint, p_sent bigint)
  RETURNS void LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    UPDATE ${s}.limiter_slots SET answered_at = v_now, accepted = p_accepted, started_at = COALESCE(v_now + p_sent, started_at), free_at = COALESCE(
      (SELECT LEAST(v_now + p_hold, paused_until) FROM ${s}.limiter_pause
        WHERE account = p_account AND announced AND v_now < paused_until AND NOT p_accepted), v_now + p_hold)
     WHERE id = p_id AND account = p_account;
  END $$;

  DROP FUNCTION ${s}.slot_pause(text, bigint, boolean, bigint, boolean);
  CREATE FUNCTION ${s}.slot_pause(p_account text, p_client bigint, p_fixed boolean, p_until bigint, p_announced boolean, p_hold bigint)
  RETURNS void LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint; v_until bigint; v_opens boolean;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    v_until := p_until + v_off;
    v_opens := v_now >= COALESCE((SELECT paused_until FROM ${s}.limiter_pause WHERE account = p_account), 0);
    INSERT INTO ${s}.limiter_pause AS lp (account, paused_until, announced) VALUES (p_account, v_until, p_announced)
      ON CONFLICT (account) DO UPDATE SET paused_until = excluded.paused_until, announced = excluded.announced
      WHERE excluded.paused_until > lp.paused_until;
    IF NOT p_announced THEN RETURN; END IF;
    UPDATE ${s}.limiter_slots SET free_at = v_until
     WHERE account = p_account AND NOT accepted AND free_at > v_until AND answered_at < v_until;
    IF v_opens THEN
      UPDATE ${s}.limiter_slots SET free_at = v_until WHERE id = (
        SELECT id FROM ${s}.limiter_slots WHERE account = p_account AND accepted AND answered_at < v_until
           AND LEAST(free_at, answered_at + p_hold) > v_until ORDER BY started_at, id LIMIT 1);
    END IF;
  END $$;

  CREATE FUNCTION ${s}.slot_recent_accepted(p_account text, p_client bigint, p_fixed boolean, p_before bigint, p_n integer)
  RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE v_now bigint; v_off bigint;
  BEGIN
    SELECT t.v_now, t.v_off INTO v_now, v_off FROM ${s}.slot_step(p_account, p_client, p_fixed) t;
    RETURN (SELECT started_at - v_off FROM ${s}.limiter_slots WHERE account = p_account AND accepted AND started_at < p_before + v_off
             ORDER BY started_at DESC LIMIT 1 OFFSET GREATEST(0, p_n - 1));
  END $$;
`;
