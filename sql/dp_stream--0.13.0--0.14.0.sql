-- dp_stream 0.13.0 -> 0.14.0: no silent wrong answers.  One argument order
-- for every mechanism constructor, a count's bound on one step stated by
-- the user (never a default that clamps), refusals for what cannot mean
-- anything (FILTER, a window without ORDER BY), and messages that name
-- what to do.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.14.0'" to load this file. \quit

-- ===== section: arguments =====
-- ===== end of section: arguments =====

-- ===== section: refusals =====
-- ===== end of section: refusals =====

-- ===== section: docs =====
-- The mechanism registry as a table: the docs' lists of mechanisms and of
-- the options each accepts are tested against it (test/docs.sh).
CREATE FUNCTION @extschema@.dp_mechanism_kinds(
    OUT kind text, OUT bounded boolean, OUT parameters text[],
    OUT epsilon boolean, OUT rho boolean, OUT pan_private boolean,
    OUT consistent boolean, OUT keyed boolean, OUT person_level boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_mechanism_kinds'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 16;
COMMENT ON FUNCTION @extschema@.dp_mechanism_kinds() IS
'every counting mechanism of this version: whether it needs a horizon, its own parameters (as in the text form), and the options it accepts (pure epsilon, rho-zCDP, dp_pan_private, dp_consistent, dp_keyed, dp_person_level)';
-- ===== end of section: docs =====

-- ===== section: biases =====
-- ===== end of section: biases =====

-- ===== section: demo =====
-- ===== end of section: demo =====
