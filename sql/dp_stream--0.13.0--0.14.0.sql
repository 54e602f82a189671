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
-- ===== end of section: biases =====

-- ===== section: demo =====
-- ===== end of section: demo =====
