-- dp_stream 0.18.0 -> 0.19.0.  No SQL object changes: 0.19.0 is a change of
-- the library alone.  Fresh discrete Laplace noise at large scales (the
-- real-valued channels of dp_sum, dp_avg and dp_variance) takes its low
-- bits by rejection from uniform, with the same exact law in about half the
-- time (docs/noise.md); keyed and seeded noise, and stored states, draw as
-- before.  The script exists so that the extension's version names the
-- library that installations run; test/regress/sql/upgrade.sql checks that
-- a database updated from 0.18.0 has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.19.0'" to load this file. \quit
