-- dp_stream 0.15.0 -> 0.16.0: no change to the catalog.  0.16.0 is the first
-- version installed by one full script (sql/dp_stream.sql, built into
-- sql/dp_stream--0.16.0.sql); a database updated from 0.15.0 has the same
-- objects, which test/regress/sql/upgrade.sql checks.

\echo Use "ALTER EXTENSION dp_stream UPDATE TO '0.16.0'" to load this file. \quit
