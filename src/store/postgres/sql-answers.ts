// The answers' part of the schema (version 1): answers, their history and the trigger that keeps it, claims,
// the runs' presence, and the view of profiles for analysts. Times are epoch ms in bigint columns, as the
// contract has them, stamped by the server (now_ms(): clock_timestamp(), not the transaction's start).
// Bodies are kept as the JSON text the service's answer was validated into: jsonb would reorder their keys,
// and a row read from the store must print as the same answer fresh from the service does.

/** Version 1 of the answers' tables in schema `s` (a name already checked: lower case, no quoting needed). */
export const answersSchema = (s: string): string => `
  CREATE TABLE ${s}.meta (
    key   text PRIMARY KEY,
    value text NOT NULL
  );

  CREATE FUNCTION ${s}.now_ms() RETURNS bigint LANGUAGE sql VOLATILE PARALLEL SAFE
    AS $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

  CREATE TABLE ${s}.answers (
    endpoint        text   NOT NULL,
    host            text   NOT NULL,
    status          text   NOT NULL CHECK (status IN ('found', 'missing')),
    body            text,
    fetched_at      bigint NOT NULL,
    prev_fetched_at bigint,
    -- Host first: a batch's lookup (host = ANY(...) AND endpoint = ...) is then an index scan on the host
    -- even before the table has statistics, which the planner of a freshly filled table otherwise lacks.
    PRIMARY KEY (host, endpoint)
  );
  CREATE INDEX answers_fetched_at ON ${s}.answers (fetched_at);

  -- No unique key, as in SQLite: three answers for one host within a millisecond could repeat one.
  CREATE TABLE ${s}.history (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint    text   NOT NULL,
    host        text   NOT NULL,
    status      text   NOT NULL,
    body        text,
    fetched_at  bigint NOT NULL,
    replaced_at bigint NOT NULL
  );
  CREATE INDEX history_by_host ON ${s}.history (host, endpoint, replaced_at);

  -- What a refresh is compared by: the body less a profile's age_days, which grows by one a day (the SQLite
  -- trigger leaves it out too: store/sqlite/history.ts). jsonb compares by value, not by text.
  CREATE FUNCTION ${s}.comparable(body text) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(body::jsonb) = 'object' THEN body::jsonb - 'age_days' ELSE body::jsonb END $$;

  CREATE FUNCTION ${s}.keep_history() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO ${s}.history (endpoint, host, status, body, fetched_at, replaced_at)
    VALUES (OLD.endpoint, OLD.host, OLD.status, OLD.body, OLD.fetched_at, NEW.fetched_at);
    RETURN NULL;
  END $$;

  CREATE TRIGGER answers_history AFTER UPDATE OF status, body ON ${s}.answers FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR ${s}.comparable(OLD.body) IS DISTINCT FROM ${s}.comparable(NEW.body))
    EXECUTE FUNCTION ${s}.keep_history();

  -- A run's presence: its heartbeat (last_seen) is renewed while it lives; one silent for a lease is dead.
  -- machine and pid are for people reading it, never for judging liveness.
  CREATE TABLE ${s}.runs (
    id         text    PRIMARY KEY,
    machine    text    NOT NULL,
    pid        integer NOT NULL,
    started_at bigint  NOT NULL,
    last_seen  bigint  NOT NULL,
    buying     boolean NOT NULL DEFAULT false
  );

  CREATE TABLE ${s}.claims (
    endpoint text   NOT NULL,
    host     text   NOT NULL,
    owner    text   NOT NULL,
    taken_at bigint NOT NULL,
    PRIMARY KEY (endpoint, host)
  );
  CREATE INDEX claims_by_owner ON ${s}.claims (owner);

  ${profilesView(s)}
`;

/** The latest profile of every host, in typed columns (docs/postgres.md), for analysts' SQL. */
const profilesView = (s: string): string => `
  -- A JSON value as a number or a string only when it is one: an odd answer reads as NULL, not as an error
  -- that would fail the analyst's whole query.
  CREATE FUNCTION ${s}.json_number(j jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(j) = 'number' THEN (j #>> '{}')::numeric END $$;
  CREATE FUNCTION ${s}.json_string(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE WHEN jsonb_typeof(j) = 'string' THEN j #>> '{}' END $$;

  CREATE VIEW ${s}.profiles AS
  SELECT a.host,
         a.status,
         CASE WHEN jsonb_typeof(p.b -> 'technologies') = 'array'
              THEN ARRAY(SELECT jsonb_array_elements_text(p.b -> 'technologies')) END       AS technologies,
         ${s}.json_string(p.b -> 'network')                                                 AS network,
         ${s}.json_string(p.b -> 'platform')                                                AS platform,
         ${s}.json_string(p.b -> 'registrar')                                               AS registrar,
         ${s}.json_string(p.b -> 'country_iso')                                             AS country,
         ${s}.json_string(p.b -> 'lang_norm')                                               AS language,
         CASE WHEN jsonb_typeof(p.b -> 'resolves') = 'boolean' THEN (p.b ->> 'resolves')::boolean END AS resolves,
         ${s}.json_number(p.b -> 'age_days')::integer                                       AS age_days,
         ${s}.json_number(p.b -> 'http_status')::integer                                    AS http_status,
         ${s}.json_string(p.b -> 'redirect_to')                                             AS redirect_to,
         round(${s}.json_number(p.b -> 'traffic' -> 'estimated_monthly_visits'))::bigint   AS traffic_visits,
         ${s}.json_string(p.b -> 'traffic' -> 'band')                                       AS traffic_band,
         ${s}.json_string(p.b -> 'traffic' -> 'as_of')                                      AS traffic_month,
         ${s}.json_string(p.b -> 'employees' -> 'apex')                                     AS employees_apex,
         round(${s}.json_number(p.b -> 'employees' -> 'low'))::integer                      AS employees_low,
         round(${s}.json_number(p.b -> 'employees' -> 'high'))::integer                     AS employees_high,
         round(${s}.json_number(p.b -> 'employees' -> 'point'))::integer                    AS employees_point,
         to_timestamp(a.fetched_at / 1000.0)                                                AS fetched_at
    FROM ${s}.answers a
    CROSS JOIN LATERAL (SELECT a.body::jsonb AS b) p
   WHERE a.endpoint = 'domain';
  COMMENT ON VIEW ${s}.profiles IS 'domain-intel: the latest profile of every host looked up, one row per host (docs/postgres.md)';
`;
