-- dp_stream 0.17.0 -> 0.18.0.  The sections below are what this update
-- changes; each object's final form is in sql/dp_stream.sql too, and
-- test/regress/sql/upgrade.sql checks that a database updated from 0.17.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.18.0'" to load this file. \quit

-- ===== section: speed29 =====
-- dp_auto without JIT (issue 29): the planner folds dp_auto(...) by running
-- its registry query, and under enable_sort = off that query's cost passed
-- jit_above_cost, so every planning paid 0.1-0.2 s of LLVM compilation.
ALTER FUNCTION @extschema@.dp_auto(double precision, bigint, bigint) SET jit TO 'off';
-- dp_compare_mechanisms' registry query sorts too: the same setting.
ALTER FUNCTION @extschema@.dp_compare_mechanisms(double precision, bigint, bigint, bigint, double precision) SET jit TO 'off';
