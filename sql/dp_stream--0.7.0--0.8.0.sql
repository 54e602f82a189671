-- dp_stream 0.7.0 -> 0.8.0: the k-ary tree mechanism, with ordinary and
-- with balanced digits (docs/mechanisms.md).

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.8.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dp_kary(epsilon float8, horizon bigint, arity bigint DEFAULT NULL,
                                     max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_kary_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_kary(float8, bigint, bigint, bigint) IS
    'k-ary tree: k-adic intervals, arity chosen for the least mean variance by default; T-bounded, error O(k log_k^1.5 T / epsilon)';

CREATE FUNCTION @extschema@.dp_balanced(epsilon float8, horizon bigint, arity bigint DEFAULT NULL,
                                         max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_balanced_construct' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_balanced(float8, bigint, bigint, bigint) IS
    'k-ary tree with balanced digits (odd arity, chosen by default): the least variance of the pure epsilon-DP counters; T-bounded';

-- the default: the most accurate pure epsilon-DP counter for the horizon,
-- balanced digits with their best arity; Hybrid when the stream has no end
CREATE FUNCTION @extschema@.dp_auto(epsilon float8, horizon bigint DEFAULT NULL,
                                     max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN horizon IS NULL THEN @extschema@.dp_hybrid(epsilon, max_per_step)
              ELSE @extschema@.dp_balanced(epsilon, horizon, NULL::bigint, max_per_step) END
$$;
COMMENT ON FUNCTION @extschema@.dp_auto(float8, bigint, bigint) IS
    'the recommended mechanism: balanced digits for a known horizon (the least variance), Hybrid for a stream without end';

-- the comparison includes them
CREATE OR REPLACE FUNCTION @extschema@.dp_compare_mechanisms(epsilon float8, horizon bigint, steps bigint,
                                                              max_per_step bigint DEFAULT 1,
                                                              confidence float8 DEFAULT 0.95)
    RETURNS TABLE (mechanism @extschema@.dp_mechanism, error_sd float8, error_bound float8)
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT m, @extschema@.dp_error_sd(m, steps), @extschema@.dp_error_bound(m, steps, confidence)
  FROM (VALUES (@extschema@.dp_binary(epsilon, horizon, max_per_step)),
               (@extschema@.dp_kary(epsilon, horizon, NULL::bigint, max_per_step)),
               (@extschema@.dp_balanced(epsilon, horizon, NULL::bigint, max_per_step)),
               (@extschema@.dp_two_level(epsilon, horizon, NULL::bigint, max_per_step)),
               (@extschema@.dp_hybrid(epsilon, max_per_step)),
               (@extschema@.dp_simple_i(epsilon, horizon, max_per_step)),
               (@extschema@.dp_simple_ii(epsilon, max_per_step)),
               (@extschema@.dp_ppcum(epsilon, horizon, max_per_step))) AS candidates (m)
  ORDER BY 3, 2
$$;
