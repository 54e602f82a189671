-- dp_stream 0.19.0 -> 0.20.0.  No SQL object changes: 0.20.0 is a change of
-- the library alone.  A keyed statistic (dp_sum, dp_avg, dp_variance,
-- dp_summary under a key of derivation 2) derives its channels' noise terms
-- of a step together, several in one vector evaluation, rather than one
-- after another; the terms, and so every keyed release, are the same to the
-- bit (docs/keyed_noise.md).  The script exists so that the extension's
-- version names the library that installations run;
-- test/regress/sql/upgrade.sql checks that a database updated from 0.19.0
-- has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.20.0'" to load this file. \quit
