-- dp_stream 0.16.0 -> 0.17.0.  The sections below are what this update
-- changes; each object's final form is in sql/dp_stream.sql too, and
-- test/regress/sql/upgrade.sql checks that a database updated from 0.16.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.17.0'" to load this file. \quit

-- ===== section: window30 =====
-- Rolling windows (issue 30): the rolling mechanism's constructor, dp_rolling_of
-- and the rolling forms of the aggregates.

CREATE FUNCTION @extschema@.dp_rolling(epsilon double precision, width bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
COMMENT ON FUNCTION @extschema@.dp_rolling(epsilon double precision, width bigint, max_per_step bigint) IS 'rolling window: each release is the noisy sum of the last width steps (width at most 511), from a tree over width; no horizon, error independent of the stream''s length';

CREATE FUNCTION @extschema@.dp_rolling_of(mechanism @extschema@.dp_mechanism, width bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_rolling_of';
COMMENT ON FUNCTION @extschema@.dp_rolling_of(mechanism @extschema@.dp_mechanism, width bigint) IS 'the rolling mechanism of width steps with mechanism''s epsilon (or rho), max_per_step, privacy unit, key and pan-private option: what dp_rolling_count(x, width, mechanism) runs';

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
