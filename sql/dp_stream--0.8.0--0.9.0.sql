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
               (@extschema@.dp_simple_i(epsilon, horizon, max_per_step)),
               (@extschema@.dp_simple_ii(epsilon, max_per_step)),
               (@extschema@.dp_ppcum(epsilon, horizon, max_per_step))) AS candidates (m)
  ORDER BY 3, 2
$$;
