-- dp_stream 0.8.0 -> 0.9.0: any mechanism by name, the unbounded
-- balanced-digit mechanism as the default for streams without end
-- (docs/mechanisms.md).

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.9.0'" to load this file. \quit

CREATE FUNCTION @extschema@.dp_mechanism_of(kind text, epsilon float8, horizon bigint DEFAULT NULL,
                                             parameter bigint DEFAULT NULL, max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_mechanism_of' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_mechanism_of(text, float8, bigint, bigint, bigint) IS
    'any mechanism by its name in the text form; a NULL horizon is none, a NULL parameter the default block or arity';

CREATE FUNCTION @extschema@.dp_balanced_unbounded(epsilon float8, max_per_step bigint DEFAULT 1,
                                                   arity bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_mechanism_of('balanced_unbounded', epsilon, NULL::bigint, arity, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_balanced_unbounded(float8, bigint, bigint) IS
    'balanced-digit trees on blocks of growing length: no horizon, within 1.4x of the best bounded mechanism''s variance';

CREATE FUNCTION @extschema@.dp_honaker(epsilon float8, horizon bigint, arity bigint DEFAULT NULL,
                                        max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_mechanism_of('honaker', epsilon, horizon, arity, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_honaker(float8, bigint, bigint, bigint) IS
    'k-ary tree with Honaker''s streaming estimator (arity 2: Binary at 0.58x its variance); pan-private and keyed options; T-bounded';

CREATE OR REPLACE FUNCTION @extschema@.dp_auto(epsilon float8, horizon bigint DEFAULT NULL,
                                                max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE WHEN horizon IS NULL THEN @extschema@.dp_balanced_unbounded(epsilon, max_per_step)
              ELSE @extschema@.dp_balanced(epsilon, horizon, NULL::bigint, max_per_step) END
$$;
COMMENT ON FUNCTION @extschema@.dp_auto(float8, bigint, bigint) IS
    'the recommended mechanism: balanced digits for a known horizon, balanced digits on growing blocks for a stream without end';

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
               (@extschema@.dp_balanced_unbounded(epsilon, max_per_step)),
               (@extschema@.dp_honaker(epsilon, horizon, NULL::bigint, max_per_step)),
               (@extschema@.dp_simple_i(epsilon, horizon, max_per_step)),
               (@extschema@.dp_simple_ii(epsilon, max_per_step)),
               (@extschema@.dp_ppcum(epsilon, horizon, max_per_step))) AS candidates (m)
  ORDER BY 3, 2
$$;

-- rho-zero-concentrated DP (opt-in; an approximate-DP guarantee): exact
-- discrete Gaussian noise, rho instead of epsilon (docs/zcdp.md)
CREATE FUNCTION @extschema@.dp_zcdp_mechanism_of(kind text, rho float8, horizon bigint DEFAULT NULL,
                                                  parameter bigint DEFAULT NULL, max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    AS 'MODULE_PATHNAME', 'dp_zcdp_mechanism_of' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_zcdp_mechanism_of(text, float8, bigint, bigint, bigint) IS
    'a mechanism under rho-zCDP with discrete Gaussian noise: binary, kary, balanced, balanced_unbounded or blt';

CREATE FUNCTION @extschema@.dp_blt(rho float8, horizon bigint, max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('blt', rho, horizon, NULL::bigint, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_blt(float8, bigint, bigint) IS
    'buffered-linear-Toeplitz matrix factorization under rho-zCDP: the least variance of the zCDP counters, O(1) state; horizon up to 2^40';

CREATE FUNCTION @extschema@.dp_gaussian_binary(rho float8, horizon bigint, max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('binary', rho, horizon, NULL::bigint, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_gaussian_binary(float8, bigint, bigint) IS
    'the Binary mechanism with discrete Gaussian noise, under rho-zCDP';

CREATE FUNCTION @extschema@.dp_smooth_binary(rho float8, horizon bigint, max_per_step bigint DEFAULT 1)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_zcdp_mechanism_of('smooth_binary', rho, horizon, NULL::bigint, max_per_step) $$;
COMMENT ON FUNCTION @extschema@.dp_smooth_binary(float8, bigint, bigint) IS
    'the Smooth Binary mechanism of Andersson and Pagh under rho-zCDP: the same error at every step, 0.62-0.73x Gaussian Binary''s mean variance';

CREATE FUNCTION @extschema@.dp_rho(mechanism @extschema@.dp_mechanism) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_mechanism_rho' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_rho(@extschema@.dp_mechanism) IS
    'rho of a zCDP mechanism; NULL for a pure epsilon-DP one';

CREATE FUNCTION @extschema@.dp_zcdp_epsilon(rho float8, delta float8) RETURNS float8
    AS 'MODULE_PATHNAME', 'dp_zcdp_epsilon_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.dp_zcdp_epsilon(float8, float8) IS
    'the epsilon of the (epsilon, delta)-DP implied by rho-zCDP';

CREATE FUNCTION @extschema@.dp_zcdp_epsilon(mechanism @extschema@.dp_mechanism, delta float8) RETURNS float8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.dp_zcdp_epsilon(@extschema@.dp_rho(mechanism), delta) $$;
COMMENT ON FUNCTION @extschema@.dp_zcdp_epsilon(@extschema@.dp_mechanism, float8) IS
    'the epsilon of the (epsilon, delta)-DP a zCDP mechanism gives (NULL for a pure epsilon-DP one)';
