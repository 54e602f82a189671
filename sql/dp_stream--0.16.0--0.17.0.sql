-- dp_stream 0.16.0 -> 0.17.0.  The sections below are what this update
-- changes; each object's final form is in sql/dp_stream.sql too, and
-- test/regress/sql/upgrade.sql checks that a database updated from 0.16.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.17.0'" to load this file. \quit

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

