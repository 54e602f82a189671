-- The Citus functions of 0.15.0 on a single node (no Citus): the sync says
-- Citus is missing; it is for administrators only; everything that is
-- refused on a Citus worker (streams, budgets, keys, charges) works here.
\set VERBOSITY terse
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS dp_stream CASCADE;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
-- a superuser, no Citus: refused, saying so (55000)
SELECT dp_stream.citus_sync_secrets();
-- a role that is no dp_stream administrator: refused before anything (42501)
CREATE ROLE citus_single_nobody;
SET ROLE citus_single_nobody;
SELECT dp_stream.citus_sync_secrets();
RESET ROLE;
-- a single node is its own coordinator: a budget, a key and a stream work
SELECT dp_stream.create_budget('citus_single', 1.0);
SELECT dp_stream.create_key('citus_single_key', dp_binary(0.5, 16, 2)) IS NOT NULL AS key_made;
SELECT dp_stream.create_stream('citus_single_stream', 'count', dp_binary(0.2, 16, 2),
                               first_period => '2026-01-01');
SELECT period, step FROM dp_stream.advance('citus_single_stream', '2026-01-01', 1);
DROP ROLE citus_single_nobody;
-- leave the next tests a fresh extension (no budget, key or stream of this one)
SET client_min_messages = warning;
DROP EXTENSION dp_stream CASCADE;
CREATE EXTENSION dp_stream;
RESET client_min_messages;
