-- dp_stream 0.15.0 -> 0.16.0.  0.16.0 is the first version installed by one
-- full script (sql/dp_stream.sql, built into sql/dp_stream--0.16.0.sql); a
-- database updated from 0.15.0 has the same objects, which
-- test/regress/sql/upgrade.sql checks.  The sections below are what this
-- update changes; each object's final form is in sql/dp_stream.sql too.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.16.0'" to load this file. \quit

-- ===== section: registry =====
-- dp_mechanisms(): every kind of the registry (src/core/mechanisms) with
-- the facts it declares.  dp_compare_mechanisms and dp_auto choose from it,
-- so that no update script lists the kinds again: a kind added to the
-- registry is compared, and ranked for dp_auto, by its entry alone.
CREATE FUNCTION @extschema@.dp_mechanisms(
    OUT kind text, OUT constructor text, OUT bounded boolean, OUT epsilon boolean,
    OUT rho boolean, OUT options text[], OUT parameters text[],
    OUT parameter_ranges text[], OUT parameter_defaults text[], OUT auto_rank integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_mechanisms'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 16;
COMMENT ON FUNCTION @extschema@.dp_mechanisms() IS
'every counting mechanism of this version: its constructor, whether it needs a horizon, its privacy forms (epsilon, rho), the options it accepts (pan_private, consistent, keyed, person_level), its own parameters with their ranges and defaults (NULL: required), and its rank for dp_auto (NULL: never chosen)';

-- (the arguments by position: dp_mechanisms() has a column epsilon)
-- the candidates: every kind with a pure epsilon form whose own parameters
-- all have defaults, built by name at one epsilon, horizon and bound, in
-- dp_auto's order (a horizon no kind can take is reported by the first)
CREATE OR REPLACE FUNCTION @extschema@.dp_compare_mechanisms(epsilon float8, horizon bigint, steps bigint,
                                                              max_per_step bigint DEFAULT NULL,
                                                              confidence float8 DEFAULT 0.95)
    RETURNS TABLE (mechanism @extschema@.dp_mechanism, error_sd float8, error_bound float8)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$
  SELECT m, @extschema@.dp_error_sd(m, $3), @extschema@.dp_error_bound(m, $3, $5)
  FROM (SELECT @extschema@.dp_mechanism_of(k.kind, $1, CASE WHEN k.bounded THEN $2 END, $4) AS m
        FROM (SELECT * FROM @extschema@.dp_mechanisms() ORDER BY auto_rank NULLS LAST, kind
              OFFSET 0) AS k
        WHERE k.epsilon AND array_position(k.parameter_defaults, NULL) IS NULL) AS candidates
  WHERE $1 IS NOT NULL AND $2 IS NOT NULL AND $3 IS NOT NULL AND $5 IS NOT NULL
  ORDER BY 3, 2
$$;

-- the kind of lowest rank that fits the horizon (bounded with one, unbounded
-- without), chosen before any mechanism is built; its choice does not
-- depend on the bound
CREATE OR REPLACE FUNCTION @extschema@.dp_auto(epsilon float8, horizon bigint DEFAULT NULL,
                                                max_per_step bigint DEFAULT NULL)
    RETURNS @extschema@.dp_mechanism
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp SET dp_stream.argument_order_warning = off
AS $$
  SELECT @extschema@.dp_mechanism_of((SELECT k.kind FROM @extschema@.dp_mechanisms() AS k
                                      WHERE k.auto_rank IS NOT NULL AND k.bounded = ($2 IS NOT NULL)
                                      ORDER BY k.auto_rank LIMIT 1), $1, $2, $3)
$$;
-- ===== end of section: registry =====

-- ===== section: construct =====
-- Every constructor written in C is one C function, dp_mechanism_construct,
-- which finds the kind from the name of the function called and reads the
-- arguments by their declared names; signatures, defaults, results and
-- messages are unchanged.  The symbols of 0.15.0 stay in the library for
-- databases not yet updated.
CREATE OR REPLACE FUNCTION @extschema@.dp_balanced(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_binary(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_expiring(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint, lambda double precision DEFAULT NULL::double precision, delay bigint DEFAULT 0) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_expiring_baseline(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, epsilon_past double precision DEFAULT NULL::double precision, window_size bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_honaker(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_hybrid(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_kary(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, arity bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_mechanism_of(kind text, epsilon double precision, horizon bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT NULL::bigint, parameter bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_ppcum(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_simple_i(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_simple_ii(epsilon double precision, max_per_step bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_two_level(epsilon double precision, horizon bigint, max_per_step bigint DEFAULT NULL::bigint, block bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';

CREATE OR REPLACE FUNCTION @extschema@.dp_zcdp_mechanism_of(kind text, rho double precision, horizon bigint DEFAULT NULL::bigint, max_per_step bigint DEFAULT NULL::bigint, parameter bigint DEFAULT NULL::bigint) RETURNS @extschema@.dp_mechanism
    LANGUAGE c IMMUTABLE PARALLEL SAFE
    AS 'MODULE_PATHNAME', 'dp_mechanism_construct';
-- ===== end of section: construct =====
