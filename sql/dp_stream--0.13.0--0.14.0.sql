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
-- ===== end of section: docs =====

-- ===== section: biases =====
-- dp_error_bound_max is a per-step bound: say so where \df+ shows it
COMMENT ON FUNCTION @extschema@.dp_error_bound_max(@extschema@.dp_mechanism, bigint, float8) IS
    'the widest error bound over steps 1..steps: a band that never narrows (at most 10^7 steps); '
    'per step, not for the whole stream: at confidence 1 - (1 - c) / steps it holds at every step at once with probability >= c';
-- ===== end of section: biases =====

-- ===== section: demo =====
-- ===== end of section: demo =====
