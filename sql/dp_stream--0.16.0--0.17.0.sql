-- dp_stream 0.16.0 -> 0.17.0.  The sections below are what this update
-- changes; each object's final form is in sql/dp_stream.sql too, and
-- test/regress/sql/upgrade.sql checks that a database updated from 0.16.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.17.0'" to load this file. \quit

-- ===== section: keyed29 =====
-- Keyed derivation 2 (issue 29 item 4, docs/keyed_noise.md): a key records
-- how its noise terms are derived.  Every key registered before 0.17.0
-- keeps derivation 1 for good (its releases must never be drawn again with
-- other noise); register_key writes 2 for the keys registered from now on.
-- The column's default stays 1, so that rows restored from a dump of an
-- older version, which lack the column, keep the derivation they drew with.
ALTER TABLE dp_stream.keys ADD COLUMN derivation smallint DEFAULT 1 NOT NULL;
ALTER TABLE dp_stream.keys
    ADD CONSTRAINT keys_derivation_check CHECK ((derivation = ANY (ARRAY[1, 2])));
COMMENT ON COLUMN dp_stream.keys.derivation IS 'how the key''s noise terms are derived: 1 (keys registered before 0.17.0), 2 (registered since: one PRF evaluation a term); fixed for the key''s life';

CREATE OR REPLACE FUNCTION dp_stream_private.register_key(key text, mechanism @extschema@.dp_mechanism, dataset text, used_by regrole, computes text) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
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
      USING ERRCODE = 'insufficient_privilege', DETAIL = format('Role %s is not a member of %s.', session_user, used_by), HINT = format('Register the key for a role %s is a member of, or have a superuser run GRANT %s TO %s first.', session_user, used_by, pg_catalog.quote_ident(session_user));
  END IF;
  keyed := @extschema@.dp_keyed(mechanism, key);
  INSERT INTO dp_stream.keys (key, mechanism, used_by, computes, dataset, noise_secret, derivation)
  VALUES (key, keyed, used_by, computes, dataset, dp_stream.keyed_noise_secret(), 2);
  IF dataset IS NOT NULL THEN
    PERFORM dp_stream.charge(dataset, @extschema@.dp_epsilon(keyed), format('key %s', key));
  END IF;
  PERFORM dp_stream.citus_sync(false); RETURN keyed;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'key "%" already exists', key
    USING ERRCODE = 'duplicate_object',
          HINT = 'A key is registered once; use the mechanism it was registered with (see dp_stream.keys).';
END $$;
-- ===== end of section: keyed29 =====

-- ===== section: window30 =====
-- Rolling windows (issue 30): the rolling mechanism's constructor, dp_rolling_of
-- and the rolling forms of the aggregates.

CREATE FUNCTION @extschema@.dp_rolling(epsilon double precision, width bigint, max_per_step bigint DEFAULT NULL::bigint, levels integer DEFAULT NULL::integer, arity integer DEFAULT NULL::integer) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_rolling(epsilon double precision, width bigint, max_per_step bigint, levels integer, arity integer) IS 'rolling window: each release is the noisy sum of the last width steps (width at most 511), from a tree of the given arity (default 2 when levels is given) over width capped at levels levels (1: each step noised once; both left out: the pair of least mean variance, e.g. 2 levels of arity 19 at width 365); no horizon, error independent of the stream''s length';

CREATE FUNCTION @extschema@.dp_rolling_of(mechanism @extschema@.dp_mechanism, width bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_rolling_of';
COMMENT ON FUNCTION @extschema@.dp_rolling_of(mechanism @extschema@.dp_mechanism, width bigint) IS 'the rolling mechanism of width steps with mechanism''s epsilon (or rho), max_per_step, privacy unit, key and pan-private option, on the number of levels of least mean variance: what dp_rolling_count(x, width, mechanism) runs';

CREATE FUNCTION @extschema@.dp_rolling_count_transition(internal, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_count_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_rolling_count_transition(internal, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_count_transition(internal, integer, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_count_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_rolling_count_transition(internal, integer, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_count_transition(internal, bigint, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_count_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_rolling_count_transition(internal, bigint, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_sum_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_sum_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_rolling_sum_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_sum_transition(internal, integer, integer, integer, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_sum_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_rolling_sum_transition(internal, integer, integer, integer, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_sum_transition(internal, bigint, bigint, bigint, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_sum_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_rolling_sum_transition(internal, bigint, bigint, bigint, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_avg_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_avg_transition';
COMMENT ON FUNCTION @extschema@.dp_rolling_avg_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_rolling_variance_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_rolling_variance_transition';
COMMENT ON FUNCTION @extschema@.dp_rolling_variance_transition(internal, double precision, double precision, double precision, bigint, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE AGGREGATE @extschema@.dp_rolling_avg(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_avg_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_avg_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_avg(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private average of the last width steps values clamped into [lower, upper] (NULL while the noisy count is not positive), from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_avg_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_avg_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_avg_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling average state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_count(value double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count(value double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private count of the last width steps (clamped into [0, max_per_step]), from the rolling mechanism of mechanisms budget: error independent of the streams length';

CREATE AGGREGATE @extschema@.dp_rolling_count(value integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count(value integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'private count of the last width steps (clamped into [0, max_per_step]), from the rolling mechanism of mechanisms budget: error independent of the streams length';

CREATE AGGREGATE @extschema@.dp_rolling_count(value bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count(value bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'private count of the last width steps (clamped into [0, max_per_step]), from the rolling mechanism of mechanisms budget: error independent of the streams length';

CREATE AGGREGATE @extschema@.dp_rolling_count_state(value double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count_state(value double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_count_state(value integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count_state(value integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_count_state(value bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_count_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_count_state(value bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_sum(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sum of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_sum(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final_bigint,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sum of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_sum(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_sum_final_bigint,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sum of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_sum_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_sum_state(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum_state(value integer, lower integer, upper integer, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_sum_state(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_sum_state(value bigint, lower bigint, upper bigint, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling sum state of the stream; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_rolling_summary(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_summary_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_summary(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'window-safe: every statistic of the last width steps at each row from one epsilon (count, centred sum and squares at epsilon/3 each); releases only';

CREATE AGGREGATE @extschema@.dp_rolling_variance(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_var_samp_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_variance(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'private sample variance of the last width steps values clamped into [lower, upper], from the rolling mechanism of mechanisms budget';

CREATE AGGREGATE @extschema@.dp_rolling_variance_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_rolling_variance_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_statistic_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_rolling_variance_state(value double precision, lower double precision, upper double precision, width bigint, mechanism @extschema@.dp_mechanism) IS 'the rolling variance state of the stream; plain aggregate only (refused as a window function)';
-- ===== end of section: window30 =====

-- ===== section: decayed30 =====
-- Issue 30: the mechanism kind "decayed" (an exponentially decayed sum),
-- its constructor and the aggregates dp_decayed_count and dp_decayed_sum.

CREATE FUNCTION @extschema@.dp_decayed(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint, gamma double precision DEFAULT NULL::double precision) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_decayed(epsilon double precision, max_per_step bigint, gamma double precision) IS 'exponentially decayed sum: releases sum of gamma^(t - s) x_s (gamma => x in (0, 0.999999], required) with an error bounded in t; no horizon; read by dp_decayed_count and dp_decayed_sum';

CREATE FUNCTION @extschema@.dp_decayed_count_transition(internal, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_count_transition_float8';
COMMENT ON FUNCTION @extschema@.dp_decayed_count_transition(internal, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_count_transition(internal, integer, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_count_transition_int4';
COMMENT ON FUNCTION @extschema@.dp_decayed_count_transition(internal, integer, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_count_transition(internal, bigint, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_count_transition_int8';
COMMENT ON FUNCTION @extschema@.dp_decayed_count_transition(internal, bigint, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_sum_transition(internal, double precision, double precision, double precision, double precision, @extschema@.dp_mechanism) RETURNS internal
    LANGUAGE c PARALLEL RESTRICTED
    AS 'MODULE_PATHNAME', 'dp_decayed_sum_transition';
COMMENT ON FUNCTION @extschema@.dp_decayed_sum_transition(internal, double precision, double precision, double precision, double precision, @extschema@.dp_mechanism) IS 'internal: transition function of the aggregates of the same name';

CREATE FUNCTION @extschema@.dp_decayed_final(internal) RETURNS double precision
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_decayed_final';
COMMENT ON FUNCTION @extschema@.dp_decayed_final(internal) IS 'internal: final function of dp_decayed_count and dp_decayed_sum';

CREATE AGGREGATE @extschema@.dp_decayed_count(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed count (x, gamma, mechanism): sum of gamma^(t - s) x_s, values rounded half to even and clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_decayed_count(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed count (x, gamma, mechanism): sum of gamma^(t - s) x_s, values clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_decayed_count(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed count (x, gamma, mechanism): sum of gamma^(t - s) x_s, values clamped into [0, max_per_step]';

CREATE AGGREGATE @extschema@.dp_decayed_sum(value double precision, lower double precision, upper double precision, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_sum_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_sum(value double precision, lower double precision, upper double precision, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'private exponentially decayed sum (value, lower, upper, gamma, mechanism): sum of gamma^(t - s) v_s, values clamped into [lower, upper]';

CREATE FUNCTION @extschema@.dp_decayed_state_final(internal) RETURNS @extschema@.dp_counter
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_decayed_state_final';
COMMENT ON FUNCTION @extschema@.dp_decayed_state_final(internal) IS 'internal: final function of dp_decayed_count_state';

CREATE AGGREGATE @extschema@.dp_decayed_count_state(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count_state(value double precision, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'the decayed counter state of the stream, to store and continue with dp_push and read with dp_decayed_estimate; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_decayed_count_state(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count_state(value integer, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'the decayed counter state of the stream, to store and continue with dp_push and read with dp_decayed_estimate; plain aggregate only (refused as a window function)';

CREATE AGGREGATE @extschema@.dp_decayed_count_state(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) (
    SFUNC = @extschema@.dp_decayed_count_transition,
    STYPE = internal,
    FINALFUNC = @extschema@.dp_decayed_state_final,
    PARALLEL = restricted
);
COMMENT ON AGGREGATE @extschema@.dp_decayed_count_state(value bigint, gamma double precision, mechanism @extschema@.dp_mechanism) IS 'the decayed counter state of the stream, to store and continue with dp_push and read with dp_decayed_estimate; plain aggregate only (refused as a window function)';

CREATE FUNCTION @extschema@.dp_decayed_estimate(state @extschema@.dp_counter) RETURNS double precision
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_decayed_estimate';
COMMENT ON FUNCTION @extschema@.dp_decayed_estimate(state @extschema@.dp_counter) IS 'the release of a decayed count''s state (dp_decayed_count_state, dp_push), in the values'' units';
-- ===== end of section: decayed30 =====

-- ===== section: review1 =====
-- A managed stream refuses a decayed mechanism (0A000): advance releases
-- with dp_estimate, which refuses it, so the stream was registered and its
-- epsilon charged without ever releasing.
CREATE OR REPLACE FUNCTION dp_stream_private.create_stream(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, dataset text DEFAULT NULL::text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  id bigint;
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
  IF pg_catalog.starts_with(mechanism::text, 'decayed(') THEN
    RAISE EXCEPTION 'a managed stream takes no decayed mechanism'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'advance releases a period with dp_estimate, which refuses a decayed counter: the stream would be registered, and its epsilon charged, without ever releasing.',
            HINT = 'Compute decayed releases with dp_decayed_count or dp_decayed_sum and store them.';
  END IF;
  -- the id that ties the stream's state to this row (0 means none)
  LOOP
    id := dp_stream.random_id();
    EXIT WHEN id <> 0;
  END LOOP;
  -- the state is repeatable (pan-private, content-keyed noise of its own),
  -- bound to the extension's owner (this function's role) and to the id
  IF statistic = 'count' THEN
    IF lower IS NOT NULL OR upper IS NOT NULL THEN
      RAISE EXCEPTION 'a count stream takes no bounds'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'A count clamps each period into [0, max_per_step] of its mechanism.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, first_period, period_length,
                                   counter, stream_id)
    VALUES (name, statistic, mechanism, first_period, period_length,
            dp_stream.bind_stream(@extschema@.dp_counter_new(mechanism, true), id), id);
  ELSIF statistic IN ('sum', 'average', 'variance', 'summary') THEN
    IF lower IS NULL OR upper IS NULL THEN
      RAISE EXCEPTION '% stream needs lower and upper',
                      CASE statistic WHEN 'average' THEN 'an average' ELSE 'a ' || statistic END
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'Pass the range every value is clamped into.';
    END IF;
    INSERT INTO dp_stream.streams (name, statistic, mechanism, lower, upper, first_period,
                                   period_length, statistic_state, stream_id)
    VALUES (name, statistic, mechanism, lower, upper, first_period, period_length,
            dp_stream.bind_stream(
              @extschema@.dp_statistic_new(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                           lower, upper, mechanism, true), id), id);
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
-- ===== end of section: review1 =====

-- ===== section: publications =====
-- A publication refuses a decayed mechanism (0A000), as a managed stream
-- does: its releases are running statistics, which refuse a decayed
-- counter, so the key was registered and the epsilon charged for nothing.
CREATE OR REPLACE FUNCTION dp_stream_private.create_publication(name text, statistic text, mechanism @extschema@.dp_mechanism, lower double precision DEFAULT NULL::double precision, upper double precision DEFAULT NULL::double precision, partition_by text DEFAULT 'partition'::text, privacy_unit text DEFAULT 'event'::text, contributions bigint DEFAULT NULL::bigint, truncation text DEFAULT NULL::text, partitions_per_person bigint DEFAULT NULL::bigint, dataset text DEFAULT NULL::text, used_by regrole DEFAULT NULL::regrole, first_period timestamp without time zone DEFAULT date_trunc('day'::text, LOCALTIMESTAMP), period_length interval DEFAULT '1 day'::interval, integer_values boolean DEFAULT false) RETURNS @extschema@.dp_mechanism
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
  published @extschema@.dp_mechanism;
  computes text;
BEGIN
  IF name IS NULL OR statistic IS NULL OR mechanism IS NULL OR partition_by IS NULL
     OR privacy_unit IS NULL OR first_period IS NULL OR period_length IS NULL THEN
    RAISE EXCEPTION 'dp_stream.create_publication arguments must not be null'
      USING ERRCODE = 'null_value_not_allowed',
            HINT = 'name, statistic, mechanism, partition_by, privacy_unit, first_period and period_length are required.';
  END IF;
  IF statistic NOT IN ('count', 'sum', 'average', 'variance', 'summary') THEN
    RAISE EXCEPTION 'unknown statistic "%"', statistic
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use count, sum, average, variance or summary.';
  END IF;
  IF pg_catalog.starts_with(mechanism::text, 'decayed(') THEN
    RAISE EXCEPTION 'a publication takes no decayed mechanism'
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'A publication releases running statistics with dp_count, dp_sum, dp_avg, dp_variance or dp_summary, which refuse a decayed counter: the key would be registered, and its epsilon charged, without ever releasing.',
            HINT = 'Compute decayed releases with dp_decayed_count and store them.';
  END IF;
  IF statistic = 'count' AND (lower IS NOT NULL OR upper IS NOT NULL) THEN
    RAISE EXCEPTION 'a count publication takes no bounds'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'A count clamps each period into [0, max_per_step] of its mechanism.';
  END IF;
  IF period_length <= interval '0' OR extract(month FROM period_length) <> 0
     OR extract(year FROM period_length) <> 0 THEN
    RAISE EXCEPTION 'the period_length of a publication must be positive and of a fixed length'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('period_length was %s.', period_length),
            HINT = 'Use days, hours, minutes or seconds (interval ''7 days'', not ''1 month'').';
  END IF;
  IF @extschema@.dp_key_of(mechanism) IS NOT NULL
     OR pg_catalog.strpos(mechanism::text, 'contributions=') > 0 THEN
    RAISE EXCEPTION 'a publication takes the plain mechanism'
      USING ERRCODE = 'invalid_parameter_value',
            DETAIL = format('The mechanism was %s.', mechanism),
            HINT = 'Leave out dp_keyed and dp_person_level: the publication keys the noise itself, and a person is the unit with privacy_unit => ''person'', contributions => k.';
  END IF;
  IF privacy_unit = 'event' THEN
    IF contributions IS NOT NULL OR partitions_per_person IS NOT NULL
       OR coalesce(truncation, 'none') <> 'none' THEN
      RAISE EXCEPTION 'contributions, truncation and partitions_per_person are for a person-level publication'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Pass privacy_unit => ''person'' with them.';
    END IF;
    truncation := 'none';
    published := mechanism;
  ELSIF privacy_unit = 'person' THEN
    IF contributions IS NULL THEN
      RAISE EXCEPTION 'a person-level publication needs contributions'
        USING ERRCODE = 'null_value_not_allowed',
              HINT = 'contributions => k: at most k contributions per person to the whole publication.';
    END IF;
    truncation := coalesce(truncation, 'across_partitions');
    IF truncation = 'per_partition' AND partitions_per_person IS NULL THEN
      RAISE EXCEPTION 'truncation per partition does not compose in parallel'
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = 'With k contributions per person in each partition, a person in m partitions contributes mk to the publication: its releases are m times epsilon-DP for that person, not epsilon-DP.',
              HINT = 'Truncate each person to k contributions across all partitions (truncation => ''across_partitions'', what dp_stream.publish does), or state partitions_per_person => m to be charged m times epsilon.';
    ELSIF truncation = 'across_partitions' AND partitions_per_person IS NOT NULL THEN
      RAISE EXCEPTION 'partitions_per_person is for truncation per partition'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Across partitions, one epsilon covers every partition: leave partitions_per_person out.';
    ELSIF truncation NOT IN ('across_partitions', 'per_partition') THEN
      RAISE EXCEPTION 'unknown truncation "%"', truncation
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Use across_partitions or per_partition.';
    END IF;
    published := @extschema@.dp_person_level(mechanism, contributions);
  ELSE
    RAISE EXCEPTION 'unknown privacy unit "%"', privacy_unit
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Use event or person.';
  END IF;
  -- what is computed, checked as create_key checks it
  computes := dp_stream.key_computes(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                     lower, upper, coalesce(integer_values, false));
  IF statistic <> 'count' THEN
    PERFORM @extschema@.dp_statistic_new(CASE statistic WHEN 'summary' THEN 'variance' ELSE statistic END,
                                         lower, upper, published);
  ELSE
    PERFORM dp_stream.check_count_mechanism(published);
  END IF;
  RETURN dp_stream.register_publication(name, published, coalesce(used_by, current_user::regrole),
                                        statistic, lower, upper, coalesce(integer_values, false),
                                        computes, partition_by, privacy_unit, contributions,
                                        truncation, partitions_per_person, first_period,
                                        period_length, dataset);
END $$;
-- ===== end of section: publications =====
