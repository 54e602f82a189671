-- dp_stream 0.6.0 -> 0.7.0: a comment on every object of the extension;
-- functions that help choose epsilon and a mechanism before spending any
-- (docs/choosing_parameters.md).

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.7.0'" to load this file. \quit

COMMENT ON AGGREGATE @extschema@.dp_count(bigint, @extschema@.dp_mechanism) IS
    'private running count (window) or total (aggregate) of per-step values, clamped into [0, max_per_step]';
COMMENT ON AGGREGATE @extschema@.dp_count(integer, @extschema@.dp_mechanism) IS
    'private running count (window) or total (aggregate) of per-step values, clamped into [0, max_per_step]';
COMMENT ON AGGREGATE @extschema@.dp_count(float8, @extschema@.dp_mechanism) IS
    'private running count of per-step values, rounded half to even and clamped into [0, max_per_step]';
COMMENT ON AGGREGATE @extschema@.dp_sum(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running sum of values clamped into [lower, upper]';
COMMENT ON AGGREGATE @extschema@.dp_sum(bigint, bigint, bigint, @extschema@.dp_mechanism) IS
    'private running sum of integers clamped into [lower, upper], computed exactly';
COMMENT ON AGGREGATE @extschema@.dp_sum(integer, integer, integer, @extschema@.dp_mechanism) IS
    'private running sum of integers clamped into [lower, upper], computed exactly';
COMMENT ON AGGREGATE @extschema@.dp_avg(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running average of values clamped into [lower, upper] (NULL while the noisy count is not positive)';
COMMENT ON AGGREGATE @extschema@.dp_variance(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running sample variance of values clamped into [lower, upper]';
COMMENT ON AGGREGATE @extschema@.dp_var_samp(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running sample variance of values clamped into [lower, upper]';
COMMENT ON AGGREGATE @extschema@.dp_var_pop(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running population variance of values clamped into [lower, upper]';
COMMENT ON AGGREGATE @extschema@.dp_stddev(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running sample standard deviation of values clamped into [lower, upper]';
COMMENT ON AGGREGATE @extschema@.dp_stddev_samp(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running sample standard deviation of values clamped into [lower, upper]';
COMMENT ON AGGREGATE @extschema@.dp_stddev_pop(float8, float8, float8, @extschema@.dp_mechanism) IS
    'private running population standard deviation of values clamped into [lower, upper]';

COMMENT ON FUNCTION @extschema@.dp_estimate(@extschema@.dp_counter) IS
    'the release of a stored counter at its current step (draws no noise)';
COMMENT ON FUNCTION @extschema@.dp_steps(@extschema@.dp_counter) IS
    'the number of steps a stored counter has consumed (a public field)';
COMMENT ON FUNCTION @extschema@.dp_steps(@extschema@.dp_statistic) IS
    'the number of steps a stored statistic has consumed (a public field)';
COMMENT ON FUNCTION @extschema@.dp_mechanism(@extschema@.dp_counter) IS
    'the mechanism of a stored counter (a public field)';
COMMENT ON FUNCTION @extschema@.dp_mechanism(@extschema@.dp_statistic) IS
    'the mechanism of a stored statistic (a public field)';
COMMENT ON FUNCTION @extschema@.dp_push(@extschema@.dp_counter, bigint) IS
    'the counter one step later, with this step''s value (NULL counts as 0)';
COMMENT ON FUNCTION @extschema@.dp_push(@extschema@.dp_counter, float8) IS
    'the counter one step later, with this step''s value rounded half to even (NULL counts as 0)';
COMMENT ON FUNCTION @extschema@.dp_push(@extschema@.dp_statistic, bigint) IS
    'the statistic one step later, with this step''s value (NULL: no observation)';
COMMENT ON FUNCTION @extschema@.dp_push(@extschema@.dp_statistic, float8) IS
    'the statistic one step later, with this step''s value (NULL or NaN: no observation)';
COMMENT ON FUNCTION dp_stream.create_budget(text, float8) IS
    'creates a privacy budget: the total epsilon all releases about a dataset may spend';
COMMENT ON FUNCTION dp_stream.push_period(dp_stream.streams, timestamp, float8) IS
    'internal: one period of a managed stream, for advance';
COMMENT ON FUNCTION dp_stream.random_id() IS 'internal: a random id for a new secret';
COMMENT ON FUNCTION dp_stream.random_secret() IS 'internal: 32 random bytes for a new secret';
COMMENT ON FUNCTION dp_stream.refuse_change() IS
    'internal: the trigger that keeps releases, charges and keys append-only';
COMMENT ON FUNCTION dp_stream.register_key(text, @extschema@.dp_mechanism, text, regrole, text) IS
    'internal: writes a key registration for create_key, as the extension''s owner';

-- The privacy unit: a person with at most `contributions` over the stream.
CREATE FUNCTION @extschema@.dp_person_level(mechanism @extschema@.dp_mechanism, contributions bigint)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_person_level_option' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_person_level(@extschema@.dp_mechanism, bigint) IS
    'the mechanism protecting a person who contributes at most this much to the whole stream (events of a count, observations of a statistic)';

-- Choosing parameters: public inputs only, no noise drawn.
CREATE FUNCTION @extschema@.dp_error_sd(mechanism @extschema@.dp_mechanism, steps bigint)
    RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_mechanism_error_sd' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_error_sd(@extschema@.dp_mechanism, bigint) IS
    'standard deviation of the error of the release at a given step (draws no noise)';
CREATE FUNCTION @extschema@.dp_epsilon_for(mechanism @extschema@.dp_mechanism, half_width float8,
                                            steps bigint, confidence float8 DEFAULT 0.95)
    RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_mechanism_epsilon_for' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_epsilon_for(@extschema@.dp_mechanism, float8, bigint, float8) IS
    'the smallest epsilon whose error bound at a step is at most half_width (the mechanism''s own epsilon is ignored)';
CREATE FUNCTION @extschema@.dp_error_bound_max(mechanism @extschema@.dp_mechanism, steps bigint,
                                                confidence float8 DEFAULT 0.95)
    RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_mechanism_error_bound_max' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_error_bound_max(@extschema@.dp_mechanism, bigint, float8) IS
    'the widest error bound over steps 1..steps: a band that never narrows (at most 10^7 steps)';

CREATE FUNCTION @extschema@.dp_compare_mechanisms(epsilon float8, horizon bigint, steps bigint,
                                                   max_per_step bigint DEFAULT 1,
                                                   confidence float8 DEFAULT 0.95)
    RETURNS TABLE (mechanism @extschema@.dp_mechanism, error_sd float8, error_bound float8)
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT m, @extschema@.dp_error_sd(m, steps), @extschema@.dp_error_bound(m, steps, confidence)
  FROM (VALUES (@extschema@.dp_binary(epsilon, horizon, max_per_step)),
               (@extschema@.dp_two_level(epsilon, horizon, NULL::bigint, max_per_step)),
               (@extschema@.dp_hybrid(epsilon, max_per_step)),
               (@extschema@.dp_simple_i(epsilon, horizon, max_per_step)),
               (@extschema@.dp_simple_ii(epsilon, max_per_step)),
               (@extschema@.dp_ppcum(epsilon, horizon, max_per_step))) AS candidates (m)
  ORDER BY 3, 2
$$;
COMMENT ON FUNCTION @extschema@.dp_compare_mechanisms(float8, bigint, bigint, bigint, float8) IS
    'every mechanism at one epsilon and horizon: the error at a step, best first (draws no noise)';

-- The support functions of the types and aggregates: what each serves.
DO $$
DECLARE
  f record;
  role text;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure AS signature, p.proname
    FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
    JOIN pg_catalog.pg_extension e ON d.refclassid = 'pg_catalog.pg_extension'::regclass
                                   AND d.refobjid = e.oid AND e.extname = 'dp_stream'
    WHERE d.deptype = 'e' AND pg_catalog.obj_description(p.oid, 'pg_proc') IS NULL
      AND p.proname ~ '_(in|out|send|recv|transition|final|final_bigint)$'
  LOOP
    role := CASE
      WHEN f.proname ~ '_in$' THEN 'input function of its type (text form)'
      WHEN f.proname ~ '_out$' THEN 'output function of its type (text form)'
      WHEN f.proname ~ '_recv$' THEN 'binary input function of its type'
      WHEN f.proname ~ '_send$' THEN 'binary output function of its type'
      WHEN f.proname ~ '_transition$' THEN 'transition function of the aggregates of the same name'
      ELSE 'final function of the aggregates of the same name' END;
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s IS %L', f.signature, 'internal: ' || role);
  END LOOP;
END $$;

COMMENT ON TYPE @extschema@.dp_rr_estimate IS
    'a debiased count from randomized responses, with its standard deviation';
COMMENT ON TABLE dp_stream.streams IS
    'the managed streams with their sealed states: the extension''s owner only';
COMMENT ON TABLE dp_stream.budgets IS 'privacy budgets: the total epsilon of each dataset';
COMMENT ON TABLE dp_stream.charges IS
    'append-only: every epsilon charged, against which budget, on what, by whom, when';
COMMENT ON SEQUENCE dp_stream.charges_id_seq IS 'internal: ids of dp_stream.charges';
