-- dp_stream 0.2.0 -> 0.3.0: private running sum, average, variance and
-- standard deviation over any counting mechanism (Budaeva et al., sections 4.1-4.3; docs/references.md),
-- and the dp_statistic state type.  See docs/aggregates.md.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.3.0'" to load this file. \quit

-- A sum, average or variance state: the bounds, the mechanism and one to
-- three noisy counters (count, sum, sum of squares).  Safe to store and continue.
CREATE TYPE dp_statistic;
CREATE FUNCTION dp_statistic_in(cstring) RETURNS dp_statistic
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_statistic_out(dp_statistic) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_statistic_recv(internal) RETURNS dp_statistic
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- the stored bytes are already portable: send them as dp_counter_send does
CREATE FUNCTION dp_statistic_send(dp_statistic) RETURNS bytea
    AS 'MODULE_PATHNAME', 'dp_counter_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE dp_statistic (
    INPUT = dp_statistic_in,
    OUTPUT = dp_statistic_out,
    RECEIVE = dp_statistic_recv,
    SEND = dp_statistic_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);
COMMENT ON TYPE dp_statistic IS
    'a continuable differentially private sum, average or variance state (noisy nodes only)';

-- Transition functions draw noise (VOLATILE, PARALLEL RESTRICTED, as for
-- dp_count); final functions only read the state.
CREATE FUNCTION dp_sum_transition(internal, float8, float8, float8, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME', 'dp_sum_transition_float8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_sum_transition(internal, bigint, bigint, bigint, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME', 'dp_sum_transition_int8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_sum_transition(internal, integer, integer, integer, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME', 'dp_sum_transition_int4' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_avg_transition(internal, float8, float8, float8, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_variance_transition(internal, float8, float8, float8, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION dp_sum_final(internal) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_sum_final_float8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_sum_final_bigint(internal) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_sum_final_int8' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_avg_final(internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_var_pop_final(internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_var_samp_final(internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_stddev_pop_final(internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_stddev_samp_final(internal) RETURNS float8
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_statistic_state_final(internal) RETURNS dp_statistic
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Sums.  Integer inputs keep granularity 1: integer noise, bigint result.
CREATE AGGREGATE dp_sum(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_sum_transition, STYPE = internal,
    FINALFUNC = dp_sum_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum(value bigint, lower bigint, upper bigint, mechanism dp_mechanism) (
    SFUNC = dp_sum_transition, STYPE = internal,
    FINALFUNC = dp_sum_final_bigint, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum(value integer, lower integer, upper integer, mechanism dp_mechanism) (
    SFUNC = dp_sum_transition, STYPE = internal,
    FINALFUNC = dp_sum_final_bigint, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum_state(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_sum_transition, STYPE = internal,
    FINALFUNC = dp_statistic_state_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum_state(value bigint, lower bigint, upper bigint, mechanism dp_mechanism) (
    SFUNC = dp_sum_transition, STYPE = internal,
    FINALFUNC = dp_statistic_state_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum_state(value integer, lower integer, upper integer, mechanism dp_mechanism) (
    SFUNC = dp_sum_transition, STYPE = internal,
    FINALFUNC = dp_statistic_state_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);

-- Averages: noisy sum of (x - midpoint) over noisy count, epsilon / 2 each.
CREATE AGGREGATE dp_avg(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_avg_transition, STYPE = internal,
    FINALFUNC = dp_avg_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_avg_state(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_avg_transition, STYPE = internal,
    FINALFUNC = dp_statistic_state_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);

-- Variances and standard deviations: count, sum and sum of squares,
-- epsilon / 3 each.  As in PostgreSQL, dp_variance and dp_stddev are the
-- sample forms.
CREATE AGGREGATE dp_var_pop(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_var_pop_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_var_samp(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_var_samp_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_variance(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_var_samp_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_stddev_pop(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_stddev_pop_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_stddev_samp(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_stddev_samp_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_stddev(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_stddev_samp_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_variance_state(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_statistic_state_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);

-- State functions.  dp_push is not strict: a NULL value is a step without
-- an observation.
CREATE FUNCTION dp_push(state dp_statistic, value float8) RETURNS dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_push_float8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_push(state dp_statistic, value bigint) RETURNS dp_statistic
    AS 'MODULE_PATHNAME', 'dp_statistic_push_int8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_estimate(state dp_statistic) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_statistic_estimate_default' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_estimate(state dp_statistic, estimate text) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_statistic_estimate_named' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_steps(state dp_statistic) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_statistic_steps_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_mechanism(state dp_statistic) RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_statistic_mechanism' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_error_bound(state dp_statistic, confidence float8 DEFAULT 0.95) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_statistic_error_bound_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp_estimate(dp_statistic) IS
    'the sum, average or sample variance the state''s aggregate releases';
COMMENT ON FUNCTION dp_estimate(dp_statistic, text) IS
    'sum, count, avg, var_pop, var_samp, stddev_pop or stddev_samp of a state';
COMMENT ON FUNCTION dp_error_bound(dp_statistic, float8) IS
    'sums: exact half-width; averages: a union bound over the noisy sum and count (see docs/aggregates.md)';
