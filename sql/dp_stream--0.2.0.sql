-- dp_stream 0.2.0: the counting mechanisms, the dp_count aggregates and the
-- dp_counter state type.  See docs/reference.md.

\echo Use "CREATE EXTENSION dp_stream" to load this file. \quit

-- A mechanism: which algorithm and its parameters.  Built by dp_binary().
CREATE TYPE dp_mechanism;

CREATE FUNCTION dp_mechanism_in(cstring) RETURNS dp_mechanism
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_mechanism_out(dp_mechanism) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_mechanism_recv(internal) RETURNS dp_mechanism
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_mechanism_send(dp_mechanism) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE dp_mechanism (
    INPUT = dp_mechanism_in,
    OUTPUT = dp_mechanism_out,
    RECEIVE = dp_mechanism_recv,
    SEND = dp_mechanism_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = plain
);
COMMENT ON TYPE dp_mechanism IS 'a differentially private counting mechanism and its parameters';

-- A counter state: noisy nodes only, safe to store and continue.
CREATE TYPE dp_counter;

CREATE FUNCTION dp_counter_in(cstring) RETURNS dp_counter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_counter_out(dp_counter) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_counter_recv(internal) RETURNS dp_counter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_counter_send(dp_counter) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE dp_counter (
    INPUT = dp_counter_in,
    OUTPUT = dp_counter_out,
    RECEIVE = dp_counter_recv,
    SEND = dp_counter_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = main
);
COMMENT ON TYPE dp_counter IS 'a continuable differentially private counter state (noisy nodes only)';

-- Constructors
CREATE FUNCTION dp_binary(epsilon float8, horizon bigint, max_per_step bigint DEFAULT 1)
    RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_binary_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_binary(float8, bigint, bigint) IS
    'Binary (tree) mechanism: T-bounded, error O(log^1.5 T / epsilon)';

-- Aggregates.  Transition functions draw noise: VOLATILE, and kept in the
-- leader process (PARALLEL RESTRICTED) so that a seeded test stream is never
-- replayed in two processes.
CREATE FUNCTION dp_count_transition(internal, bigint, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME', 'dp_count_transition_int8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_count_transition(internal, integer, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME', 'dp_count_transition_int4' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_count_transition(internal, float8, dp_mechanism) RETURNS internal
    AS 'MODULE_PATHNAME', 'dp_count_transition_float8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_count_final(internal) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_count_state_final(internal) RETURNS dp_counter
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE dp_count(bigint, dp_mechanism) (
    SFUNC = dp_count_transition, STYPE = internal,
    FINALFUNC = dp_count_final, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = RESTRICTED
);
CREATE AGGREGATE dp_count(integer, dp_mechanism) (
    SFUNC = dp_count_transition, STYPE = internal,
    FINALFUNC = dp_count_final, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = RESTRICTED
);
CREATE AGGREGATE dp_count(float8, dp_mechanism) (
    SFUNC = dp_count_transition, STYPE = internal,
    FINALFUNC = dp_count_final, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = RESTRICTED
);
CREATE AGGREGATE dp_count_state(bigint, dp_mechanism) (
    SFUNC = dp_count_transition, STYPE = internal,
    FINALFUNC = dp_count_state_final, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = RESTRICTED
);
CREATE AGGREGATE dp_count_state(integer, dp_mechanism) (
    SFUNC = dp_count_transition, STYPE = internal,
    FINALFUNC = dp_count_state_final, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = RESTRICTED
);
CREATE AGGREGATE dp_count_state(float8, dp_mechanism) (
    SFUNC = dp_count_transition, STYPE = internal,
    FINALFUNC = dp_count_state_final, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = RESTRICTED
);

-- State functions
CREATE FUNCTION dp_push(state dp_counter, value bigint) RETURNS dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_push_int8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_push(state dp_counter, value float8) RETURNS dp_counter
    AS 'MODULE_PATHNAME', 'dp_counter_push_float8' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
CREATE FUNCTION dp_estimate(state dp_counter) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_counter_estimate' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_steps(state dp_counter) RETURNS bigint
    AS 'MODULE_PATHNAME', 'dp_counter_steps' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_mechanism(state dp_counter) RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_counter_mechanism' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_error_bound(state dp_counter, confidence float8 DEFAULT 0.95) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_counter_error_bound_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_error_bound(mechanism dp_mechanism, steps bigint, confidence float8 DEFAULT 0.95)
    RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_mechanism_error_bound_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_error_bound(dp_counter, float8) IS
    'half-width of a two-sided interval for the current release, from the exact noise distribution';
COMMENT ON FUNCTION dp_error_bound(dp_mechanism, bigint, float8) IS
    'half-width of a two-sided interval for the release at a given step (draws no noise)';

CREATE FUNCTION dp_simple_i(epsilon float8, horizon bigint, max_per_step bigint DEFAULT 1)
    RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_simple_i_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_simple_i(float8, bigint, bigint) IS
    'Simple I: fresh noise on every release; T-bounded, error O(T / epsilon)';

CREATE FUNCTION dp_simple_ii(epsilon float8, max_per_step bigint DEFAULT 1)
    RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_simple_ii_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_simple_ii(float8, bigint) IS
    'Simple II: noise on every value; unbounded, error O(sqrt(t) / epsilon)';

CREATE FUNCTION dp_two_level(epsilon float8, horizon bigint, block bigint DEFAULT NULL,
                             max_per_step bigint DEFAULT 1)
    RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_two_level_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION dp_two_level(float8, bigint, bigint, bigint) IS
    'Two-level: blocks of ceil(sqrt(T)) steps plus singletons; T-bounded, error O(T^(1/4) / epsilon)';

CREATE FUNCTION dp_hybrid(epsilon float8, max_per_step bigint DEFAULT 1)
    RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_hybrid_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_hybrid(float8, bigint) IS
    'Hybrid: logarithmic blocks plus a Binary tree per block, epsilon/2 each; unbounded, error O(log^1.5 t / epsilon)';

CREATE FUNCTION dp_ppcum(epsilon float8, horizon bigint, max_per_step bigint DEFAULT 1)
    RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_ppcum_construct' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_ppcum(float8, bigint, bigint) IS
    'PPCum: pan-private cumulative sum; T-bounded, error O(log^1.5 T / epsilon) at every step';

CREATE FUNCTION dp_pan_private(mechanism dp_mechanism) RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_pan_private_option' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_pan_private(dp_mechanism) IS
    'the mechanism with a second noise term on every accumulator: a stored state stays private together with all later releases';

CREATE FUNCTION dp_consistent(mechanism dp_mechanism) RETURNS dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_consistent_option' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_consistent(dp_mechanism) IS
    'the mechanism with releases post-processed into non-decreasing integers growing by at most max_per_step';

-- Randomized response (the local model)
CREATE FUNCTION dp_randomized_response(value boolean, epsilon float8) RETURNS boolean
    AS 'MODULE_PATHNAME', 'dp_randomized_response_sql' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION dp_randomized_response(boolean, float8) IS
    'keeps the bit with probability e^epsilon / (1 + e^epsilon), flips it otherwise: epsilon-local DP';

CREATE TYPE dp_rr_estimate AS (estimate float8, standard_deviation float8, reports bigint);

CREATE FUNCTION dp_rr_count_transition(internal, boolean, float8) RETURNS internal
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_rr_count_final(internal) RETURNS dp_rr_estimate
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_rr_count(randomized boolean, epsilon float8) (
    SFUNC = dp_rr_count_transition, STYPE = internal,
    FINALFUNC = dp_rr_count_final, FINALFUNC_MODIFY = READ_ONLY
);
COMMENT ON AGGREGATE dp_rr_count(boolean, float8) IS
    'unbiased count of true bits from randomized responses, with its standard deviation';
