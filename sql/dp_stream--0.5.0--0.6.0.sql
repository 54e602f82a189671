-- dp_stream 0.5.0 -> 0.6.0: sealed states, keyed (repeatable) noise, the key
-- registry, roles for administrators and readers.  See docs/threat_model.md
-- ("Sealed states"), docs/keyed_noise.md and docs/managed_streams.md.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.6.0'" to load this file. \quit

-- Secrets: 32 random bytes from the operating system, and random ids, so
-- that the rows a restored dump brings back never collide with the fresh
-- ones its CREATE EXTENSION made.
CREATE FUNCTION dp_stream.random_secret() RETURNS bytea
    AS 'MODULE_PATHNAME', 'dp_random_secret' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE FUNCTION dp_stream.random_id() RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_random_id' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION dp_stream.random_secret() FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.random_id() FROM PUBLIC;

CREATE TABLE dp_stream.secrets (
    id bigint PRIMARY KEY,
    purpose text NOT NULL CHECK (purpose IN ('seal', 'noise')),
    secret bytea NOT NULL CHECK (length(secret) = 32),
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
REVOKE ALL ON dp_stream.secrets FROM PUBLIC;
COMMENT ON TABLE dp_stream.secrets IS
    'the database''s sealing and noise secrets: superusers only; dumped with the database';
SELECT pg_catalog.pg_extension_config_dump('dp_stream.secrets', '');
INSERT INTO dp_stream.secrets (id, purpose, secret)
VALUES (dp_stream.random_id(), 'seal', dp_stream.random_secret()),
       (dp_stream.random_id(), 'noise', dp_stream.random_secret());

CREATE FUNCTION dp_stream.rotate_secret() RETURNS bigint
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  new_id bigint := dp_stream.random_id();
BEGIN
  INSERT INTO dp_stream.secrets (id, purpose, secret)
  VALUES (new_id, 'seal', dp_stream.random_secret());
  -- the catalog's states move to the new secret at once; values in other
  -- tables keep opening under the old one until they are resealed
  UPDATE dp_stream.streams
     SET counter = @extschema@.dp_reseal(counter),
         statistic_state = @extschema@.dp_reseal(statistic_state);
  RETURN new_id;
END $$;
COMMENT ON FUNCTION dp_stream.rotate_secret() IS
    'creates a new sealing secret, reseals the stream catalog under it and returns its id (superusers)';
REVOKE ALL ON FUNCTION dp_stream.rotate_secret() FROM PUBLIC;

CREATE FUNCTION dp_stream.drop_secret(secret_id bigint) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s dp_stream.secrets;
BEGIN
  SELECT * INTO s FROM dp_stream.secrets WHERE id = secret_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'dp_stream secret % does not exist', secret_id USING ERRCODE = 'undefined_object';
  END IF;
  IF s.purpose = 'noise' THEN
    RAISE EXCEPTION 'a noise secret cannot be dropped'
      USING ERRCODE = 'object_in_use',
            DETAIL = 'Every keyed release depends on it: without it, the same data would be released again with new noise.';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM dp_stream.secrets t
                 WHERE t.purpose = 'seal' AND (t.created_at, t.id) > (s.created_at, s.id)) THEN
    RAISE EXCEPTION 'the newest sealing secret cannot be dropped'
      USING ERRCODE = 'object_in_use', HINT = 'Rotate first: SELECT dp_stream.rotate_secret().';
  END IF;
  DELETE FROM dp_stream.secrets WHERE id = secret_id;
END $$;
COMMENT ON FUNCTION dp_stream.drop_secret(bigint) IS
    'drops an old sealing secret; values still sealed under it no longer open (superusers)';
REVOKE ALL ON FUNCTION dp_stream.drop_secret(bigint) FROM PUBLIC;

CREATE FUNCTION @extschema@.dp_reseal(state @extschema@.dp_counter) RETURNS @extschema@.dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_reseal' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
CREATE FUNCTION @extschema@.dp_reseal(state @extschema@.dp_statistic) RETURNS @extschema@.dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_reseal' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.dp_reseal(@extschema@.dp_counter) IS
    'the same state sealed under the newest secret (after a rotation, or for a state written before 0.6.0)';
COMMENT ON FUNCTION @extschema@.dp_reseal(@extschema@.dp_statistic) IS
    'the same state sealed under the newest secret (after a rotation, or for a state written before 0.6.0)';

-- Repeatable states: their noise is keyed by a random key of their own, so
-- two continuations pushed with the same values agree (and a retried
-- advance releases what the rolled-back one showed).  Managed streams use
-- them; for states others may hold, see docs/keyed_noise.md.
CREATE FUNCTION @extschema@.dp_counter_new(mechanism @extschema@.dp_mechanism, repeatable boolean)
    RETURNS @extschema@.dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.dp_counter_new(@extschema@.dp_mechanism, boolean) IS
    'a counter state at step 0; repeatable: its forks pushed with the same values agree';
CREATE FUNCTION @extschema@.dp_statistic_new(statistic text, lower float8, upper float8,
                                              mechanism @extschema@.dp_mechanism, repeatable boolean)
    RETURNS @extschema@.dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_new' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.dp_statistic_new(text, float8, float8, @extschema@.dp_mechanism, boolean) IS
    'a sum, average or variance state at step 0; repeatable: its forks pushed with the same values agree';

-- who made each release (NULL for releases made before 0.6.0)
ALTER TABLE dp_stream.releases ADD COLUMN released_by name;
ALTER TABLE dp_stream.releases ALTER COLUMN released_by SET DEFAULT session_user;

-- Managed streams start from repeatable states (the rest as in 0.5.0).
CREATE OR REPLACE FUNCTION dp_stream.create_stream(
    name text,
    statistic text,
    mechanism @extschema@.dp_mechanism,
    lower float8 DEFAULT NULL,
    upper float8 DEFAULT NULL,
    first_period timestamp DEFAULT date_trunc('day', localtimestamp),
    period_length interval DEFAULT interval '1 day',
    dataset text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF name IS NULL OR statistic IS NULL OR mechanism IS NULL OR first_period IS NULL
     OR period_length IS NULL THEN
    RAISE EXCEPTION 'dp_stream.create_stream arguments must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF period_length <= interval '0' THEN
    RAISE EXCEPTION 'period_length must be positive' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF @extschema@.dp_key_of(mechanism) IS NOT NULL THEN
    RAISE EXCEPTION 'a managed stream takes no keyed mechanism'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A managed stream releases each period once and draws its noise under a key of its own; advance runs as the extension''s owner, so a registered key would be usable by every administrator.',
            HINT = 'Pass the mechanism without dp_keyed().';
  END IF;
  IF statistic = 'count' THEN
    IF lower IS NOT NULL OR upper IS NOT NULL THEN
      RAISE EXCEPTION 'a count stream takes no bounds'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'A count clamps each period into [0, max_per_step] of its mechanism.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, first_period, period_length, counter)
    VALUES (name, statistic, mechanism, first_period, period_length,
            @extschema@.dp_counter_new(mechanism, true));
  ELSIF statistic IN ('sum', 'average', 'variance', 'summary') THEN
    IF lower IS NULL OR upper IS NULL THEN
      RAISE EXCEPTION 'a % stream needs lower and upper', statistic
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'Pass the range every value is clamped into.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, lower, upper, first_period,
                                   period_length, statistic_state)
    VALUES (name, statistic, mechanism, lower, upper, first_period, period_length,
            @extschema@.dp_statistic_new(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                         lower, upper, mechanism, true));
  ELSE
    RAISE EXCEPTION 'unknown statistic "%"', statistic
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use count, sum, average, variance or summary.';
  END IF;
  -- a stream spends its epsilon once, for all its periods: charged now
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(mechanism), format('stream %s', name));
  END IF;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'stream "%" already exists', name USING ERRCODE = 'duplicate_object';
END $$;

-- The catalog's states were written unsealed by 0.5.0: seal them now.
SELECT pg_catalog.set_config('dp_stream.read_unsealed', 'on', true);
UPDATE dp_stream.streams
   SET counter = @extschema@.dp_reseal(counter),
       statistic_state = @extschema@.dp_reseal(statistic_state);
SELECT pg_catalog.set_config('dp_stream.read_unsealed', 'off', true);

-- Keyed noise: a key is registered once, with its mechanism, and charged.
CREATE FUNCTION @extschema@.dp_keyed(mechanism @extschema@.dp_mechanism, key text)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_keyed_option' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_keyed(@extschema@.dp_mechanism, text) IS
    'the mechanism with repeatable noise under a registered key: the same data always gives the same releases';

CREATE FUNCTION @extschema@.dp_key_of(mechanism @extschema@.dp_mechanism) RETURNS text
    AS 'MODULE_PATHNAME', 'dp_mechanism_key' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_key_of(@extschema@.dp_mechanism) IS
    'the key of a keyed mechanism, NULL for any other';
CREATE FUNCTION dp_stream.key_computes(statistic text, lower float8 DEFAULT NULL,
                                       upper float8 DEFAULT NULL, integer_values boolean DEFAULT false)
    RETURNS text
    AS 'MODULE_PATHNAME', 'dp_key_computes' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_stream.key_computes(text, float8, float8, boolean) IS
    'what a key is registered to compute: count, or a statistic with its bounds and value domain';

-- A key is registered for one mechanism, one computation and one role.
--   used_by: the role whose members may draw noise under the key.  Nobody
--     else may: whoever can compute a keyed release over data of their
--     choosing can test guesses about the real data (docs/keyed_noise.md).
--   computes: what is computed (dp_stream.key_computes): the same data
--     computed another way would get fresh noise.
CREATE TABLE dp_stream.keys (
    key text PRIMARY KEY,
    mechanism @extschema@.dp_mechanism NOT NULL,
    used_by regrole NOT NULL,
    computes text NOT NULL,
    dataset text REFERENCES dp_stream.budgets (dataset),
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by name NOT NULL DEFAULT session_user
);
REVOKE ALL ON dp_stream.keys FROM PUBLIC;
COMMENT ON TABLE dp_stream.keys IS
    'keys of keyed noise, each with the one mechanism, computation and role it may be used with';
SELECT pg_catalog.pg_extension_config_dump('dp_stream.keys', '');
CREATE TRIGGER keys_append_only BEFORE UPDATE OR DELETE ON dp_stream.keys
    FOR EACH ROW EXECUTE FUNCTION dp_stream.refuse_change();
CREATE TRIGGER keys_no_truncate BEFORE TRUNCATE ON dp_stream.keys
    FOR EACH STATEMENT EXECUTE FUNCTION dp_stream.refuse_change();

-- Runs as the caller, so that the default role is the caller's current
-- role (under SET ROLE too); register_key, as the owner, writes the row.
CREATE FUNCTION dp_stream.create_key(key text, mechanism @extschema@.dp_mechanism,
                                     dataset text DEFAULT NULL, used_by regrole DEFAULT NULL,
                                     statistic text DEFAULT 'count', lower float8 DEFAULT NULL,
                                     upper float8 DEFAULT NULL, integer_values boolean DEFAULT false)
RETURNS @extschema@.dp_mechanism
LANGUAGE sql SET search_path = pg_catalog, pg_temp
AS $$
  SELECT dp_stream.register_key(key, mechanism, dataset,
                                coalesce(used_by, current_user::regrole),
                                dp_stream.key_computes(statistic, lower, upper, integer_values))
$$;
COMMENT ON FUNCTION dp_stream.create_key(text, @extschema@.dp_mechanism, text, regrole, text, float8, float8, boolean) IS
    'registers a key for keyed noise with its mechanism, computation and role, charges its epsilon once, returns the keyed mechanism';

CREATE FUNCTION dp_stream.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text,
                                       used_by regrole, computes text)
RETURNS @extschema@.dp_mechanism
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  keyed @extschema@.dp_mechanism;
BEGIN
  IF key IS NULL OR mechanism IS NULL OR used_by IS NULL OR computes IS NULL THEN
    RAISE EXCEPTION 'key, mechanism, used_by and computes must not be null'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF NOT pg_catalog.pg_has_role(session_user, used_by, 'MEMBER') THEN
    RAISE EXCEPTION 'a key can be registered only for a role one is a member of'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  keyed := @extschema@.dp_keyed(mechanism, key);
  INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset)
  VALUES (key, keyed, used_by, computes, dataset);
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(keyed), format('key %s', key));
  END IF;
  RETURN keyed;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'key "%" already exists', key
    USING ERRCODE = 'duplicate_object',
          HINT = 'A key is registered once; use the mechanism it was registered with (see dp_stream.keys).';
END $$;
REVOKE ALL ON FUNCTION dp_stream.create_key(text, @extschema@.dp_mechanism, text, regrole, text, float8, float8, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION dp_stream.register_key(text, @extschema@.dp_mechanism, text, regrole, text) FROM PUBLIC;

-- push_period as in 0.5.0, with every argument of the extension's functions
-- of exactly the declared type: advance runs it as the extension's owner,
-- and an untyped 0.95 (numeric) would let a role that can create functions
-- in the extension's schema add a closer overload and run as the owner.
CREATE OR REPLACE FUNCTION dp_stream.push_period(s dp_stream.streams, period timestamp, value float8)
RETURNS dp_stream.streams
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  estimate float8;
  bound float8;
  summary @extschema@.dp_summary;
BEGIN
  s.steps := s.steps + 1;
  IF s.statistic = 'count' THEN
    s.counter := @extschema@.dp_push(s.counter, coalesce(value, 0::float8));
    estimate := @extschema@.dp_estimate(s.counter);
    bound := @extschema@.dp_error_bound(s.counter, 0.95::float8);
  ELSE
    s.statistic_state := @extschema@.dp_push(s.statistic_state, value);
    IF s.statistic = 'summary' THEN
      summary := @extschema@.dp_summary(s.statistic_state);
      estimate := (summary).count;
    ELSE
      estimate := @extschema@.dp_estimate(s.statistic_state);
      IF s.statistic IN ('sum', 'average') THEN
        bound := @extschema@.dp_error_bound(s.statistic_state, 0.95::float8);
      END IF;
    END IF;
  END IF;
  INSERT INTO dp_stream.releases (stream, step, period, estimate, error_bound, summary)
  VALUES (s.name, s.steps, period, estimate, bound, summary);
  RETURN s;
END $$;

-- who created a stream: the session's user (current_user is the owner there)
ALTER TABLE dp_stream.streams ALTER COLUMN created_by SET DEFAULT session_user;

-- What administrators and readers see of the catalog: no state.
CREATE VIEW dp_stream.stream_list AS
  SELECT name, statistic, mechanism, lower, upper, first_period, period_length, steps,
         first_period + period_length * steps AS next_period, created_at, created_by
  FROM dp_stream.streams;
COMMENT ON VIEW dp_stream.stream_list IS 'the managed streams, without their states';

CREATE VIEW dp_stream.spending AS
  SELECT c.dataset, c.epsilon, c.purpose, c.charged_by, c.charged_at,
         b.total_epsilon - sum(c.epsilon) OVER (PARTITION BY c.dataset ORDER BY c.id)
           AS remaining_after
  FROM dp_stream.charges c JOIN dp_stream.budgets b USING (dataset);
COMMENT ON VIEW dp_stream.spending IS 'every charge: how much, on what, by whom, when, and what was left';

-- Roles.  Cluster-wide, so created only when missing (another database may
-- have made them); DROP EXTENSION leaves them.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dp_stream_admin') THEN
    CREATE ROLE dp_stream_admin NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dp_stream_reader') THEN
    CREATE ROLE dp_stream_reader NOLOGIN;
  END IF;
END $$;
COMMENT ON ROLE dp_stream_admin IS 'dp_stream: creates and advances streams, registers keys, manages budgets';
COMMENT ON ROLE dp_stream_reader IS 'dp_stream: reads releases and the list of streams';

GRANT SELECT ON dp_stream.releases, dp_stream.stream_list TO dp_stream_reader, dp_stream_admin;
GRANT SELECT ON dp_stream.budgets, dp_stream.charges, dp_stream.spending, dp_stream.keys
    TO dp_stream_admin;
GRANT EXECUTE ON FUNCTION
    dp_stream.create_stream(text, text, @extschema@.dp_mechanism, float8, float8, timestamp, interval, text),
    dp_stream.advance(text, timestamp, float8),
    dp_stream.create_budget(text, float8),
    dp_stream.charge(text, float8, text),
    dp_stream.budget(text),
    dp_stream.create_key(text, @extschema@.dp_mechanism, text, regrole, text, float8, float8, boolean),
    dp_stream.register_key(text, @extschema@.dp_mechanism, text, regrole, text)
    TO dp_stream_admin;
