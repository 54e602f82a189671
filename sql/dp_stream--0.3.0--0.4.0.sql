-- dp_stream 0.3.0 -> 0.4.0: closes the holes of the 0.3.0 security review.
-- State aggregates refuse window contexts (checked in their final
-- functions, so the objects are unchanged); dp_summary gives every
-- statistic of a stream per row from one budget, releases only.  See
-- docs/threat_model.md and docs/aggregates.md.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.4.0'" to load this file. \quit

-- Count, sum, average, variances and standard deviations of one stream, all
-- read from the same three noisy counters: epsilon is spent once.
CREATE TYPE dp_summary AS (
    count float8,
    sum float8,
    avg float8,
    var_pop float8,
    var_samp float8,
    stddev_pop float8,
    stddev_samp float8
);
COMMENT ON TYPE dp_summary IS
    'private count, sum, average, variances and standard deviations of one stream, from one budget';

CREATE FUNCTION dp_summary_final(internal) RETURNS dp_summary
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The same transition as dp_variance: three counters at epsilon / 3 each.
CREATE AGGREGATE dp_summary(value float8, lower float8, upper float8, mechanism dp_mechanism) (
    SFUNC = dp_variance_transition, STYPE = internal,
    FINALFUNC = dp_summary_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = RESTRICTED);
COMMENT ON AGGREGATE dp_summary(float8, float8, float8, dp_mechanism) IS
    'window-safe: every statistic of the stream at each row from one epsilon (count, centred sum and squares at epsilon/3 each); releases only';

-- Every estimate of a stored state at once (NULL for those it does not hold).
CREATE FUNCTION dp_summary(state dp_statistic) RETURNS dp_summary
    AS 'MODULE_PATHNAME', 'dp_statistic_summary' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION dp_summary(dp_statistic) IS
    'every estimate a stored sum, average or variance state holds, as one row';

COMMENT ON AGGREGATE dp_count_state(bigint, dp_mechanism) IS
    'the counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_count_state(integer, dp_mechanism) IS
    'the counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_count_state(float8, dp_mechanism) IS
    'the counter state of the stream, to store and continue; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_sum_state(float8, float8, float8, dp_mechanism) IS
    'the sum state of the stream; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_sum_state(bigint, bigint, bigint, dp_mechanism) IS
    'the sum state of the stream; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_sum_state(integer, integer, integer, dp_mechanism) IS
    'the sum state of the stream; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_avg_state(float8, float8, float8, dp_mechanism) IS
    'the average state of the stream; plain aggregate only (refused as a window function)';
COMMENT ON AGGREGATE dp_variance_state(float8, float8, float8, dp_mechanism) IS
    'the variance state of the stream; plain aggregate only (refused as a window function)';
