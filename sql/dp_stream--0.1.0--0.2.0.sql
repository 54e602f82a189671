-- dp_stream 0.1.0 -> 0.2.0: every counting mechanism of the seeds, the
-- pan-private and consistent options, and randomized response.
-- See docs/mechanisms.md.  Stored 0.1.0 values (dp_mechanism, dp_counter)
-- stay readable: both types read their version-1 formats.  There is no
-- separate 0.2.0 install script: CREATE EXTENSION runs 0.1.0's script and
-- then this one, so a fresh install and an upgrade are the same objects.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.2.0'" to load this file. \quit

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
