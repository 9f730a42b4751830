// Version 3 of the schema: a batch's claims and its look for answers stored meanwhile in one round trip
// (issue 25: a run on PostgreSQL paid a round trip for each, and one more to end the claims of hosts found).
// A function of several statements, not one statement: in READ COMMITTED each statement of a volatile
// function reads afresh, so the look sees an answer whose run's claim ended (in the transaction that stored
// it) while this one waited to claim the host. One statement would read with the snapshot from before that.
//
// Also: claims lose their index by owner. Each statement that ends claims names the owner beside the hosts,
// and with the owner's index the planner ANDed a bitmap of every entry of the run's owner (each claim it
// ever took, dead ones too until a vacuum) into each host's probe: a 1,000,000-row run's putMany reached 8 s
// a batch at 420,000 claims taken (issue 25). A run's whole claims end once (leave, close): a scan then.

/** The claim-then-look step in schema `s`, and the claims without their index by owner. */
export const claimV3Schema = (s: string): string => `
  DROP INDEX ${s}.claims_by_owner;

  -- Claims p_hosts (given sorted, so two runs take row locks in one order) as claim does in answers.ts;
  -- returns the hosts another live run holds (busy) and, of the rest, the answers held within p_max_age
  -- (NULL: any age) of p_now (NULL: the server's clock), whose claims end here: they are not bought.
  CREATE FUNCTION ${s}.claim_fresh(p_endpoint text, p_owner text, p_hosts text[], p_claim_max bigint, p_lease bigint,
                                   p_max_age bigint, p_now bigint)
  RETURNS TABLE (host text, busy boolean, status text, body text, fetched_at bigint, prev_fetched_at bigint)
  LANGUAGE plpgsql AS $$
  #variable_conflict use_column
  DECLARE v_mine text[];
  BEGIN
    WITH got AS (
      INSERT INTO ${s}.claims AS c (endpoint, host, owner, taken_at)
      SELECT p_endpoint, h, p_owner, ${s}.now_ms() FROM unnest(p_hosts) WITH ORDINALITY AS u(h, n) ORDER BY n
      ON CONFLICT (endpoint, host) DO UPDATE SET owner = excluded.owner, taken_at = excluded.taken_at
      WHERE c.owner = excluded.owner OR c.taken_at < excluded.taken_at - p_claim_max
         OR NOT EXISTS (SELECT 1 FROM ${s}.runs r WHERE r.id = c.owner AND r.last_seen >= excluded.taken_at - p_lease)
      RETURNING c.host)
    SELECT COALESCE(array_agg(got.host), '{}') INTO v_mine FROM got;
    RETURN QUERY SELECT h, true, NULL::text, NULL::text, NULL::bigint, NULL::bigint
      FROM unnest(p_hosts) AS u(h) WHERE h <> ALL (v_mine);
    RETURN QUERY
      WITH held AS (
        SELECT a.host, a.status, a.body, a.fetched_at, a.prev_fetched_at FROM ${s}.answers a
         WHERE a.endpoint = p_endpoint AND a.host = ANY (v_mine)
           AND (p_max_age IS NULL OR a.fetched_at >= COALESCE(p_now, ${s}.now_ms()) - p_max_age)),
      ended AS (DELETE FROM ${s}.claims c USING held WHERE c.owner = p_owner AND c.endpoint = p_endpoint AND c.host = held.host)
      SELECT held.host, false, held.status, held.body, held.fetched_at, held.prev_fetched_at FROM held;
  END $$;
`;
