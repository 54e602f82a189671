-- dp_stream 0.20.0 -> 0.21.0.  No SQL object changes: 0.21.0 is a change of
-- the library alone.  PPCum keeps the sum of its level noises from one step
-- to the next instead of adding every level again at each step (O(1)
-- amortised work a step instead of O(log T)), and the balanced blocks
-- (dp_auto without a horizon) keep their open block's position instead of
-- finding it from the first block at every step; their releases are the
-- same to the bit.  The script exists so that the extension's version names the
-- library that installations run; test/regress/sql/upgrade.sql checks that
-- a database updated from 0.20.0 has the objects of a fresh install.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.21.0'" to load this file. \quit
